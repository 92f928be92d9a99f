import { z } from 'zod';

/**
 * Parses the environment with a schema and fails fast, naming every bad variable at once.
 * Defaults in the schemas are those of the local stack, so it starts with no settings at all.
 */
export function loadEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  throw new EnvError(`invalid environment:\n${lines.join('\n')}`);
}

export class EnvError extends Error {
  override name = 'EnvError';
}

/** For a service's entry point: a bad environment ends the process with one clear line, no stack. */
export function loadEnvOrExit<S extends z.ZodObject>(service: string, schema: S): z.output<S> {
  try {
    return loadEnv(schema);
  } catch (err) {
    if (!(err instanceof EnvError)) throw err;
    process.stderr.write(`${JSON.stringify({ level: 'fatal', service, msg: err.message })}\n`);
    process.exit(1);
  }
}

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
export const millis = (fallback: number, max = 600_000) => z.coerce.number().int().min(1).max(max).default(fallback);

/** A text variable (`fallback` when unset, empty by default) read by `parse`; what `parse` throws becomes the variable's error. */
export const parsedText = <T>(parse: (text: string) => T, fallback = '') =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      try {
        return parse(text);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
        return z.NEVER;
      }
    });

/**
 * One section of a service's settings: the variables of one concern (its chains, its storage…)
 * under a title. A service's env schema is composed of its sections,
 * `BaseEnv.extend({ ...Chains.shape, ...Storage.shape })`, so the parsed environment stays one flat
 * object (`env.NAME`); docs/configuration.md shows one table per section, under its title, with the
 * section's doc comment.
 */
export const envSection = <S extends z.ZodRawShape>(title: string, shape: S) => z.object(shape).meta({ title });

/** The NATS bus: where it is, and how this service logs in to it. */
const BusSection = envSection('Bus (NATS)', {
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** This service's own NATS user (D14); by default the service's name. */
  NATS_USER: z.string().min(1).optional(),
  /** Its password (a Kubernetes Secret in production; the local stack makes one per run). */
  NATS_PASSWORD: z.string().default(''),
  NATS_CONNECT_TIMEOUT_MS: millis(5000),
  /**
   * Copies the server keeps of each JetStream stream and of the prices bucket: 3 on the
   * three-member cluster (Kubernetes, the e2e stack's `natsCluster`); streams made earlier with
   * another count are moved to it. Unset (one server: the local stack, docker compose): streams
   * are created with the server's default, one, and their count is never changed, so a service
   * started without it never moves a cluster's streams down to one copy.
   */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).optional(),
});

/** The service's HTTP port (its own variable, in its HTTP section): health probes, metrics, and the gateway's API. */
const HttpSection = envSection('HTTP', {
  HOST: z.string().default('127.0.0.1'),
  /** Serve Prometheus metrics at `/metrics` on the service's HTTP port (scraped in-cluster in production). */
  METRICS_ENABLED: z.stringbool().default(true),
});

/** Stopping on SIGTERM or SIGINT (a Kubernetes pod being replaced, Ctrl-C). */
const ShutdownSection = envSection('Shutdown', {
  /**
   * After SIGTERM or SIGINT the service takes no new work and lets the work in flight finish (HTTP
   * requests being answered, background passes under way), then exits. Whatever is still unfinished this
   * long after the signal is abandoned: the process logs it and exits with code 1. In Kubernetes it
   * must end within terminationGracePeriodSeconds (30 s) after the preStop sleep (5 s).
   */
  SHUTDOWN_GRACE_MS: millis(10_000),
});

/** Variables every service shares. */
export const BaseEnv = z.object({ ...BusSection.shape, ...HttpSection.shape, ...ShutdownSection.shape });

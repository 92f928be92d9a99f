import type { JetStreamManager, StreamConfig } from '@nats-io/jetstream';
import type { StreamDefinition } from '@xchain/contracts';
import { Gauge, register, type Registry } from 'prom-client';

/** What `ensureStream` found: the stream as defined, or the ways the server's differs from the definition. */
export interface StreamCheck {
  stream: string;
  /** `ok`: the server's stream is as defined (created now or earlier); `mismatch`: it is not, and was left as it is. */
  outcome: 'ok' | 'mismatch';
  /** One line per difference, e.g. `max_age: server 604800 s, defined 2592000 s`. */
  differences: string[];
}

const NS_PER_SEC = 1e9;
const lastChecks = new Map<string, StreamCheck>();

/** The last check of each stream this process made (for health pages and tests). */
export function streamChecks(): ReadonlyMap<string, StreamCheck> {
  return lastChecks;
}

/** How `ensureStream` is asked to run. */
export interface EnsureStreamOptions {
  /**
   * Copies the server keeps of the stream (NATS_STREAM_REPLICAS: 1 on one server, 3 on the
   * three-member cluster). A stream is created with this many; an existing one with another count
   * is updated to it (a copy more or less loses no message). Undefined: created with the server's
   * default and never changed.
   */
  replicas?: number | undefined;
  registry?: Registry;
}

/**
 * Creates `def`'s stream when it is missing; when it exists, compares the server's configuration
 * with the definition. A difference is reported (one warn line naming each difference, the
 * `nats_stream_config_mismatch` gauge at 1 and the answer) and never fixed here: updating a
 * production stream (shortening its retention, dropping a subject) is an operator's decision, and
 * the services keep working on the stream as it is. The one thing changed is the replica count
 * (`opts.replicas`), which is the deployment's, not the stream's: moving a stream onto more or fewer
 * members keeps every message. Connection and permission errors are thrown.
 */
export async function ensureStream(
  jsm: JetStreamManager,
  def: StreamDefinition,
  log: { warn: (fields: object, msg: string) => void },
  opts: EnsureStreamOptions = {},
): Promise<StreamCheck> {
  const registry = opts.registry ?? register;
  const replicas = opts.replicas;
  let server: StreamConfig;
  let refusal: string | undefined;
  try {
    // The server answers an add of an identical existing stream with its info, and refuses one that differs.
    server = (
      await jsm.streams.add({
        name: def.name,
        subjects: [...def.subjects],
        max_age: def.maxAgeSecs * NS_PER_SEC,
        storage: def.storage,
        ...(replicas !== undefined ? { num_replicas: replicas } : {}),
      })
    ).config;
  } catch (err) {
    refusal = err instanceof Error ? err.message : String(err);
    // Missing permission or connection trouble fails this too, and then the add's error is the one to see.
    server = (await jsm.streams.info(def.name).catch(() => Promise.reject(err))).config;
  }
  const differences = compareStream(def, server);
  if (replicas !== undefined && replicasOf(server) !== replicas) {
    const moved = await ensureReplicas(jsm, def.name, replicas, log);
    if (moved.ok)
      refusal = undefined; // the add was refused for the replica count only, now as configured
    else differences.push(moved.difference);
  }
  if (differences.length === 0 && refusal !== undefined) differences.push(`the server refused the definition: ${refusal}`);
  const check: StreamCheck = { stream: def.name, outcome: differences.length === 0 ? 'ok' : 'mismatch', differences };
  lastChecks.set(def.name, check);
  mismatchGauge(registry).set({ stream: def.name }, check.outcome === 'ok' ? 0 : 1);
  if (check.outcome === 'mismatch') {
    log.warn(
      { stream: def.name, differences },
      `stream ${def.name} differs from its definition (left as it is): ${differences.join('; ')}`,
    );
  }
  return check;
}

/** A stream's replica count as the server reports it (0 or missing means the default, one). */
const replicasOf = (config: Pick<StreamConfig, 'num_replicas'>): number => config.num_replicas || 1;

/**
 * Moves an existing stream (one of ours or a KV bucket's) to `replicas` copies when it has another
 * count, with one warn line; nothing else of its configuration changes. Two services doing it at
 * once is fine: the second finds it done. A refusal (a count the server cannot hold, such as 3 on a
 * single server) is answered as a difference to report, not thrown; connection errors are thrown.
 */
export async function ensureReplicas(
  jsm: JetStreamManager,
  stream: string,
  replicas: number,
  log: { warn: (fields: object, msg: string) => void },
): Promise<{ ok: true } | { ok: false; difference: string }> {
  const before = replicasOf((await jsm.streams.info(stream)).config);
  if (before === replicas) return { ok: true };
  try {
    await jsm.streams.update(stream, { num_replicas: replicas });
  } catch (err) {
    const now = replicasOf((await jsm.streams.info(stream)).config);
    if (now === replicas) return { ok: true };
    const reason = err instanceof Error ? err.message : String(err);
    return { ok: false, difference: `num_replicas: server ${now}, configured ${replicas} (the update was refused: ${reason})` };
  }
  log.warn({ stream, from: before, to: replicas }, `stream ${stream}: replicas ${before} → ${replicas} (NATS_STREAM_REPLICAS)`);
  return { ok: true };
}

export function compareStream(def: StreamDefinition, server: Pick<StreamConfig, 'subjects' | 'max_age' | 'storage'>): string[] {
  const differences: string[] = [];
  const defined = [...def.subjects].sort();
  const actual = [...(server.subjects ?? [])].sort();
  if (defined.join('\n') !== actual.join('\n'))
    differences.push(`subjects: server [${actual.join(', ')}], defined [${defined.join(', ')}]`);
  const serverSecs = server.max_age / NS_PER_SEC;
  if (serverSecs !== def.maxAgeSecs)
    differences.push(`max_age: server ${serverSecs === 0 ? 'unlimited' : `${serverSecs} s`}, defined ${def.maxAgeSecs} s`);
  if (server.storage !== def.storage) differences.push(`storage: server ${server.storage}, defined ${def.storage}`);
  return differences;
}

function mismatchGauge(registry: Registry): Gauge<'stream'> {
  const name = 'nats_stream_config_mismatch';
  return (
    (registry.getSingleMetric(name) as Gauge<'stream'> | undefined) ??
    new Gauge({
      name,
      help: '1 when a JetStream stream on the server differs from its definition in the contracts (see the warn log), else 0',
      labelNames: ['stream'],
      registers: [registry],
    })
  );
}

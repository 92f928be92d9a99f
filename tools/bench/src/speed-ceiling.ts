import { readFileSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { inboxPrefixOf } from '@xchain/contracts';
import { ReplyMux } from '@xchain/messaging';
import { type Managed, SERVICE_NODE_FLAGS, freePort, launch, waitFor } from '@xchain/stack';
import Fastify from 'fastify';

/**
 * The bare path every gateway operation rides on, with no work at either end: a Fastify server
 * that forwards each POST body over NATS request/reply (the services' client, `ReplyMux`) to an
 * echo responder and sends the reply back. Two processes, as gateway and quote-engine are, on the
 * stack's own NATS: what the machine does at best per request through HTTP → NATS → HTTP, the
 * ceiling the operations are measured against.
 */
export interface Ceiling {
  url: string;
  pids: { http: number; echo: number };
  stop(): Promise<void>;
}

const SUBJECT = `bench.echo.${process.pid}`;
/** The bus user the ceiling processes connect as. */
export const CEILING_USER = 'bench-ceiling';

export async function startCeiling(natsUrl: string, natsAuth: { user?: string; password?: string } = {}): Promise<Ceiling> {
  const port = await freePort();
  const env = {
    ...process.env,
    BENCH_NATS_URL: natsUrl,
    BENCH_SUBJECT: SUBJECT,
    BENCH_PORT: String(port),
    ...(natsAuth.user ? { BENCH_NATS_USER: natsAuth.user, BENCH_NATS_PASSWORD: natsAuth.password ?? '' } : {}),
  };
  // With the services' Node flags: the ceiling is the same runtime, doing no work.
  const procs: Managed[] = [
    launch('bench-echo', process.execPath, [...SERVICE_NODE_FLAGS, __filename, 'echo'], { env }),
    launch('bench-http', process.execPath, [...SERVICE_NODE_FLAGS, __filename, 'http'], { env }),
  ];
  const stop = async () => {
    for (const p of procs) await p.stop();
  };
  const url = `http://127.0.0.1:${port}/echo`;
  try {
    // Ready when a request makes the round trip (the responder is subscribed too).
    await waitFor(
      'bench ceiling',
      async () => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).ok,
      15_000,
      procs[1],
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, pids: { echo: procs[0]!.child.pid!, http: procs[1]!.child.pid! }, stop };
}

/** VmRSS of a process in MiB, from /proc (undefined once it is gone). */
export function rssMiB(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

async function natsFromEnv() {
  const user = process.env['BENCH_NATS_USER'];
  return connect({
    servers: process.env['BENCH_NATS_URL']!,
    name: 'bench-ceiling',
    // As the services connect (libs/messaging connectNats): without it nats.js builds two or three
    // Error objects (stack traces) per request, which would make the ceiling lower than the bare path.
    noAsyncTraces: true,
    ...(user ? { user, pass: process.env['BENCH_NATS_PASSWORD'], inboxPrefix: inboxPrefixOf(user) } : {}),
  });
}

async function serveEcho(): Promise<void> {
  const nc = await natsFromEnv();
  nc.subscribe(process.env['BENCH_SUBJECT']!, { callback: (_err, msg) => void msg.respond(msg.data) });
  await nc.flush();
}

async function serveHttp(): Promise<void> {
  const nc = await natsFromEnv();
  const subject = process.env['BENCH_SUBJECT']!;
  const app = Fastify({ logger: false });
  // The services' own request/reply client, so the ceiling rides the same path as the services
  // (docs/benchmarks.md, reading the figures).
  const mux = ReplyMux.of(nc);
  app.post('/echo', async (req, reply) => {
    const answer = await mux.request(subject, Buffer.from(JSON.stringify(req.body)), 5000);
    return reply.type('application/json; charset=utf-8').send(Buffer.from(answer.data));
  });
  await app.listen({ host: '127.0.0.1', port: Number(process.env['BENCH_PORT']) });
}

if (require.main === module) {
  const role = process.argv[2];
  (role === 'echo' ? serveEcho() : role === 'http' ? serveHttp() : Promise.reject(new Error(`unknown role ${role}`))).catch(
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}

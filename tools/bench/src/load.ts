import { Agent, request } from 'node:http';
import { RawConnection, type RawRequestSpec, type RawTarget, rawTarget } from './raw-http';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
}

/** What to send (url, method, body, headers: raw-http.ts's request spec), how many at once and for how long. */
export interface LoadOptions extends RawRequestSpec {
  concurrency: number;
  /** Bounded in both count and time: whichever comes first ends the run. */
  maxRequests: number;
  maxSeconds: number;
}

interface Client {
  /** Sends the run's request once and resolves with the answer's status. */
  send(): Promise<number>;
  close(): void;
}

/**
 * The load generator's client: `raw` (default; raw-http.ts) or `node-http` (BENCH_CLIENT=node-http:
 * `node:http` with a keep-alive Agent, what the generator used before raw-http.ts).
 */
export function loadClientName(): string {
  return process.env['BENCH_CLIENT'] ?? 'raw';
}

function client(spec: RawRequestSpec, maxSockets: number): Client {
  const kind = loadClientName();
  if (kind === 'raw') return new ConnectionPool(rawTarget(spec));
  if (kind === 'node-http') return new NodeHttpClient(spec, maxSockets);
  throw new Error(`BENCH_CLIENT must be raw or node-http, not ${kind}`);
}

class NodeHttpClient implements Client {
  private readonly agent: Agent;

  constructor(
    private readonly spec: RawRequestSpec,
    maxSockets: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  send(): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = request(
        this.spec.url,
        { method: this.spec.method ?? 'GET', agent: this.agent, headers: this.spec.headers, timeout: 10_000 },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.on('timeout', () => req.destroy(new Error('timeout')));
      if (this.spec.body) req.write(this.spec.body);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * A keep-alive connection per request in flight, as many as needed up to the run's bound; one
 * that failed or was closed by the server is dropped and a new one opened on next use.
 */
class ConnectionPool implements Client {
  private readonly idle: RawConnection[] = [];
  private readonly all = new Set<RawConnection>();

  constructor(private readonly target: RawTarget) {}

  /** Sends one request on an idle connection (or a new one) and resolves with the status. */
  async send(): Promise<number> {
    let conn = this.idle.pop();
    while (conn && !conn.usable) {
      this.all.delete(conn);
      conn = this.idle.pop();
    }
    if (!conn) {
      conn = new RawConnection(this.target);
      this.all.add(conn);
    }
    try {
      return await conn.send();
    } finally {
      if (conn.usable) this.idle.push(conn);
      else this.all.delete(conn);
    }
  }

  close(): void {
    for (const conn of this.all) conn.close();
    this.all.clear();
    this.idle.length = 0;
  }
}

/** Closed-loop load from this process over keep-alive connections; latency per request. */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const pool = client(opts, opts.concurrency);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let sent = 0;
  let errors = 0;
  const started = process.hrtime.bigint();
  const deadline = Date.now() + opts.maxSeconds * 1000;
  const worker = async () => {
    while (sent < opts.maxRequests && Date.now() < deadline) {
      sent++;
      const t0 = process.hrtime.bigint();
      try {
        const status = await pool.send();
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status >= 400) errors++;
      } catch {
        errors++;
        statuses['error'] = (statuses['error'] ?? 0) + 1;
      }
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  pool.close();
  return summarize(latencies, errors, Number(process.hrtime.bigint() - started) / 1e9, statuses);
}

/** Throughput and latency percentiles of one run (sorts `latencies` in place). */
function summarize(latencies: number[], errors: number, seconds: number, statuses: Record<string, number>): LoadResult {
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return {
    requests: latencies.length,
    errors,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: pct(0.5),
    p99Ms: pct(0.99),
    statuses,
  };
}

export function formatLoad(label: string, r: LoadResult): string {
  return `${label.padEnd(34)} ${r.perSecond.toFixed(0).padStart(7)} req/s  p50 ${r.p50Ms.toFixed(2).padStart(7)} ms  p99 ${r.p99Ms
    .toFixed(2)
    .padStart(7)} ms  (${r.requests} requests, ${r.errors} errors, ${r.seconds.toFixed(1)} s)`;
}

export interface OpenLoopOptions extends Omit<LoadOptions, 'concurrency' | 'maxRequests'> {
  /** Requests started per second on a fixed schedule, whatever the answers' pace. */
  ratePerSec: number;
  /** Bound on requests outstanding; a request due past it is counted as dropped, not sent. */
  maxInFlight: number;
  /**
   * Seconds of the same schedule run first and not counted (default 2). A run starts on a new
   * connection pool and code the generator has not yet optimised, which would set the p99.
   */
  warmSeconds?: number;
  /** Called once, when the first counted request is due: where a caller starts measuring what the counted part costs. */
  onCountStart?: () => void;
}

export interface OpenLoopResult extends LoadResult {
  offeredPerSec: number;
  dropped: number;
  /** How the counted requests slower than SLOW_MS lie in time (`clustering`). */
  slow: Clustering;
}

/** Open-loop requests slower than this count as slow in `clustering` (the PreviewQuote p99 aim). */
export const SLOW_MS = 10;
/** Width of the windows of scheduled start `clustering` groups requests by. */
export const WINDOW_MS = 50;

/** Slow requests, and how many of the run's windows of scheduled start hold at least one. */
export interface Clustering {
  requests: number;
  windows: number;
  slowWindows: number;
}

/**
 * Where a run's slow requests lie: requests (scheduled start `dueMs[i]`, latency `latencyMs[i]`)
 * grouped into windows of `windowMs` by scheduled start. A few windows holding every slow request
 * is a stall (a pause somewhere that held up whatever was due then); slow requests spread over
 * most windows is a machine near saturation.
 */
export function clustering(dueMs: readonly number[], latencyMs: readonly number[], windowMs = WINDOW_MS, slowMs = SLOW_MS): Clustering {
  const all = new Set<number>();
  const slow = new Set<number>();
  let requests = 0;
  for (let i = 0; i < dueMs.length; i++) {
    const w = Math.floor(dueMs[i]! / windowMs);
    all.add(w);
    if (latencyMs[i]! > slowMs) {
      requests++;
      slow.add(w);
    }
  }
  return { requests, windows: all.size, slowWindows: slow.size };
}

/**
 * Open-loop load: requests start at fixed times (rate × (warmSeconds + maxSeconds) of them), never
 * waiting for earlier answers. Latency runs from each request's scheduled start, so a stall of this
 * generator or of the server shows in the figures instead of hiding (no coordinated omission).
 * Only requests due after the warm-up are counted, in latency, errors, drops and rate alike.
 */
export async function runOpenLoop(opts: OpenLoopOptions): Promise<OpenLoopResult> {
  const pool = client(opts, opts.maxInFlight);
  const warmNs = (opts.warmSeconds ?? 2) * 1e9;
  const total = Math.max(1, Math.floor(opts.ratePerSec * (opts.maxSeconds + (opts.warmSeconds ?? 2))));
  const intervalNs = 1e9 / opts.ratePerSec;
  const latencies: number[] = [];
  const dues: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let dropped = 0;
  let next = 0;
  let inFlight = 0;
  const started = process.hrtime.bigint();
  const elapsedNs = () => Number(process.hrtime.bigint() - started);
  let countedFromNs: number | undefined;
  await new Promise<void>((done) => {
    const finished = () => next >= total && inFlight === 0 && done();
    const tick = () => {
      const now = elapsedNs();
      while (next < total && next * intervalNs <= now) {
        const due = next * intervalNs;
        const counted = due >= warmNs;
        if (counted && countedFromNs === undefined) {
          countedFromNs = due;
          opts.onCountStart?.();
        }
        next++;
        if (inFlight >= opts.maxInFlight) {
          if (counted) dropped++;
          continue;
        }
        inFlight++;
        pool
          .send()
          .then((status) => {
            if (!counted) return;
            statuses[status] = (statuses[status] ?? 0) + 1;
            if (status >= 400) errors++;
          })
          .catch(() => {
            if (!counted) return;
            errors++;
            statuses['error'] = (statuses['error'] ?? 0) + 1;
          })
          .finally(() => {
            if (counted) {
              latencies.push((elapsedNs() - due) / 1e6);
              dues.push(due / 1e6);
            }
            inFlight--;
            finished();
          });
      }
      if (next < total) setTimeout(tick, Math.max(0, Math.floor((next * intervalNs - elapsedNs()) / 1e6)));
      else finished();
    };
    tick();
  });
  pool.close();
  const slow = clustering(dues, latencies); // before summarize sorts the latencies
  return {
    ...summarize(latencies, errors, (elapsedNs() - (countedFromNs ?? 0)) / 1e9, statuses),
    offeredPerSec: opts.ratePerSec,
    dropped,
    slow,
  };
}

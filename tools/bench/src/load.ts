import { Agent, request } from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  concurrency: number;
  /** Bounded in both count and time: whichever comes first ends the run. */
  maxRequests: number;
  maxSeconds: number;
}

function once(agent: Agent, opts: LoadOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(opts.url, { method: opts.method ?? 'GET', agent, headers: opts.headers, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    if (opts.body) req.write(opts.body);
    req.end();
  });
}

/** Closed-loop load from this process over keep-alive connections; latency per request. */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: opts.concurrency });
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
        const status = await once(agent, opts);
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
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
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

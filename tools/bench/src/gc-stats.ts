/**
 * Garbage collections in each service over a run, read from the services' own `/metrics`
 * (prom-client's `nodejs_gc_duration_seconds`, which every service exports: libs/service-kit).
 * A benchmark prints them beside open-loop latency: a run's p99 is set by a few stalls rather than
 * by the spread of ordinary requests, and a full (major) GC in the gateway is one such stall.
 */

/** Collections of one kind (major, minor, incremental, weakcb): how many, and their pauses' sum in seconds. */
export interface GcKind {
  count: number;
  seconds: number;
}

export type GcStats = Map<string, GcKind>;

/** One scrape per service (name → its base URL); a service that does not answer is left out. */
export type GcSnapshot = Map<string, GcStats>;

const SERIES = /^nodejs_gc_duration_seconds_(count|sum)\{([^}]*)\}\s+(\S+)/;
const KIND = /(?:^|,)kind="([^"]*)"/;

/** The GC series of a Prometheus text exposition, by kind. */
export function parseGcStats(text: string): GcStats {
  const out: GcStats = new Map();
  for (const line of text.split('\n')) {
    const m = SERIES.exec(line);
    if (!m) continue;
    const kind = KIND.exec(m[2]!)?.[1];
    const value = Number(m[3]);
    if (kind === undefined || !Number.isFinite(value)) continue;
    const k = out.get(kind) ?? { count: 0, seconds: 0 };
    if (m[1] === 'count') k.count += value;
    else k.seconds += value;
    out.set(kind, k);
  }
  return out;
}

/** Scrapes every service's `/metrics` at once, each within `timeoutMs`. */
export async function gcSnapshot(services: ReadonlyMap<string, string>, timeoutMs = 2000): Promise<GcSnapshot> {
  const entries = await Promise.all(
    [...services].map(async ([name, base]) => {
      try {
        const res = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(timeoutMs) });
        return res.ok ? ([name, parseGcStats(await res.text())] as const) : undefined;
      } catch {
        return undefined;
      }
    }),
  );
  return new Map(entries.filter((e) => e !== undefined));
}

/**
 * The collections over one run: `start` as it begins (it scrapes without being waited for, so the
 * run's schedule is not held up), `finish` after it. Without a `start` the delta is empty. Each
 * scrape costs every service some CPU: start it where a burst of work does not land in what is
 * measured (observed-run.ts starts it with the warm-up).
 */
export function gcOverRun(services: ReadonlyMap<string, string>): { start: () => void; finish: () => Promise<GcSnapshot> } {
  let from: Promise<GcSnapshot> | undefined;
  return {
    start: () => {
      from = gcSnapshot(services);
    },
    finish: async () => gcDelta((await from) ?? new Map(), await gcSnapshot(services)),
  };
}

/** The collections between two snapshots, per service (only services both snapshots have). */
export function gcDelta(from: GcSnapshot, to: GcSnapshot): GcSnapshot {
  const out: GcSnapshot = new Map();
  for (const [service, stats] of to) {
    const before = from.get(service);
    if (!before) continue;
    const delta: GcStats = new Map();
    for (const [kind, b] of stats) {
      const a = before.get(kind) ?? { count: 0, seconds: 0 };
      delta.set(kind, { count: b.count - a.count, seconds: b.seconds - a.seconds });
    }
    out.set(service, delta);
  }
  return out;
}

/** Full (major) collections in a delta, all services together. */
export function majorGcs(delta: GcSnapshot): number {
  let n = 0;
  for (const stats of delta.values()) n += stats.get('major')?.count ?? 0;
  return n;
}

const ORDER = ['major', 'incremental', 'minor'];

/**
 * A delta as "gateway 1 major 12 ms, 70 minor 150 ms; quote-engine ..." (count, then the sum of
 * their pauses); kinds with none are left out, and so is weakcb (weak callbacks, not a
 * collection), and so are services with no collection at all.
 */
export function formatGc(delta: GcSnapshot): string {
  const parts: string[] = [];
  for (const [service, stats] of delta) {
    const kinds = ORDER.flatMap((kind) => {
      const k = stats.get(kind);
      return k && k.count > 0 ? [`${k.count} ${kind} ${(k.seconds * 1000).toFixed(0)} ms`] : [];
    });
    if (kinds.length > 0) parts.push(`${service} ${kinds.join(', ')}`);
  }
  return parts.join('; ') || 'none';
}

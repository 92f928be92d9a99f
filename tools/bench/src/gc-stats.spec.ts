import { type AddressInfo, type Socket, createServer } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { formatGc, gcDelta, gcOverRun, gcSnapshot, majorGcs, parseGcStats } from './gc-stats';

// The GC series as prom-client writes them (copied from a gateway's /metrics), around other series.
const exposition = (
  minor: number,
  minorSecs: number,
  major: number,
  majorSecs: number,
) => `# HELP nodejs_eventloop_lag_seconds Lag of event loop in seconds.
# TYPE nodejs_eventloop_lag_seconds gauge
nodejs_eventloop_lag_seconds 0.004
# HELP nodejs_gc_duration_seconds Garbage collection duration by kind, one of major, minor, incremental or weakcb.
# TYPE nodejs_gc_duration_seconds histogram
nodejs_gc_duration_seconds_bucket{le="0.001",kind="minor"} 2
nodejs_gc_duration_seconds_bucket{le="+Inf",kind="minor"} ${minor}
nodejs_gc_duration_seconds_sum{kind="minor"} ${minorSecs}
nodejs_gc_duration_seconds_count{kind="minor"} ${minor}
nodejs_gc_duration_seconds_bucket{le="+Inf",kind="major"} ${major}
nodejs_gc_duration_seconds_sum{kind="major"} ${majorSecs}
nodejs_gc_duration_seconds_count{kind="major"} ${major}
nodejs_gc_duration_seconds_sum{service="gateway",kind="incremental"} 0.002
nodejs_gc_duration_seconds_count{service="gateway",kind="incremental"} 3
`;

describe('parseGcStats', () => {
  it('reads count and pause sum per kind, whatever other labels a series has, and ignores buckets and other metrics', () => {
    const stats = parseGcStats(exposition(13, 0.035, 1, 0.00995));
    expect([...stats.keys()].sort()).toEqual(['incremental', 'major', 'minor']);
    expect(stats.get('minor')).toEqual({ count: 13, seconds: 0.035 });
    expect(stats.get('major')).toEqual({ count: 1, seconds: 0.00995 });
    expect(stats.get('incremental')).toEqual({ count: 3, seconds: 0.002 });
  });

  it('gives nothing for a text without the series', () => {
    expect(parseGcStats('up 1\n').size).toBe(0);
  });
});

describe('gcDelta, majorGcs and formatGc', () => {
  it('counts the collections between two scrapes, per service, and prints the ones there were', () => {
    const from = new Map([
      ['gateway', parseGcStats(exposition(13, 0.035, 1, 0.01))],
      ['quote-engine', parseGcStats(exposition(40, 0.05, 2, 0.03))],
    ]);
    const to = new Map([
      ['gateway', parseGcStats(exposition(83, 0.185, 2, 0.024))],
      ['quote-engine', parseGcStats(exposition(40, 0.05, 2, 0.03))],
      ['partner-service', parseGcStats(exposition(5, 0.01, 0, 0))], // not in the first scrape: left out
    ]);
    const delta = gcDelta(from, to);
    expect(majorGcs(delta)).toBe(1);
    expect(formatGc(delta)).toBe('gateway 1 major 14 ms, 70 minor 150 ms');
  });

  it('says none when no service collected', () => {
    const snap = new Map([['gateway', parseGcStats(exposition(1, 0.001, 0, 0))]]);
    expect(formatGc(gcDelta(snap, snap))).toBe('none');
    expect(majorGcs(gcDelta(snap, snap))).toBe(0);
  });
});

describe('gcSnapshot', () => {
  it('scrapes each service and leaves out one that fails or does not answer in time', async () => {
    const ok = createHttpServer((req, res) => {
      if (req.url === '/metrics') res.end(exposition(7, 0.01, 1, 0.005));
      else res.writeHead(404).end();
    });
    const failing = createHttpServer((_req, res) => res.writeHead(500).end());
    const held: Socket[] = [];
    const silent = createServer((socket) => void held.push(socket)); // accepts, never answers
    const listen = (s: { listen: (port: number, host: string, cb: () => void) => unknown; address: () => unknown }) =>
      new Promise<string>((resolve) => s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)));
    try {
      const urls = new Map([
        ['gateway', await listen(ok)],
        ['quote-engine', await listen(failing)],
        ['price-oracle', await listen(silent)],
      ]);
      const snap = await gcSnapshot(urls, 300);
      expect([...snap.keys()]).toEqual(['gateway']);
      expect(snap.get('gateway')!.get('major')).toEqual({ count: 1, seconds: 0.005 });
    } finally {
      ok.closeAllConnections();
      ok.close();
      failing.closeAllConnections();
      failing.close();
      for (const socket of held) socket.destroy();
      silent.close();
    }
  });
});

describe('gcOverRun', () => {
  it('gives the collections between its start and its finish, and none without a start', async () => {
    let majors = 1;
    const server = createHttpServer((_req, res) => res.end(exposition(10, 0.02, majors, majors * 0.01)));
    const url = await new Promise<string>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
    );
    try {
      const services = new Map([['gateway', url]]);
      const run = gcOverRun(services);
      run.start();
      await new Promise((r) => setTimeout(r, 50)); // the start's scrape lands before the run's collections
      majors = 3;
      expect(formatGc(await run.finish())).toBe('gateway 2 major 20 ms');
      expect(formatGc(await gcOverRun(services).finish())).toBe('none');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

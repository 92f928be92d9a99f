import type { Logger } from '@xchain/telemetry';
import { SourceMonitor } from './source-health';

function fakeLog() {
  const lines: { level: string; msg: string; detail?: string }[] = [];
  const at = (level: string) => (obj: { detail?: string }, msg: string) => lines.push({ level, msg, detail: obj.detail });
  return { log: { info: at('info'), warn: at('warn') } as unknown as Logger, lines };
}

describe('SourceMonitor', () => {
  const T = 1_000_000;

  it('is not healthy before its first poll, and says why without logging', () => {
    const { log, lines } = fakeLog();
    const m = new SourceMonitor('pyth', 10_000, log);
    expect(m.observe(T)).toMatchObject({ source: 'pyth', ok: false, detail: expect.stringContaining('not polled yet') });
    expect(lines).toEqual([]);
  });

  it('logs each change of verdict once, not once per poll', () => {
    const { log, lines } = fakeLog();
    const m = new SourceMonitor('pyth', 10_000, log);
    m.recordSuccess(2, T);
    m.recordSuccess(2, T + 1000);
    m.recordFailure('Hermes answered HTTP 500', T + 2000);
    m.recordFailure('Hermes answered HTTP 500', T + 3000);
    m.recordFailure('Hermes did not answer within 2000 ms', T + 4000);
    m.recordSuccess(2, T + 5000);
    expect(lines.map((l) => `${l.level} ${l.msg}`)).toEqual([
      'info price source healthy',
      'warn price source unhealthy',
      'info price source healthy',
    ]);
    expect(lines[1]?.detail).toBe('failing: Hermes answered HTTP 500; last fresh value 1s ago');
  });

  it('turns unhealthy when nothing fresh arrives for the silence budget, and reports when it last had one', () => {
    const { log } = fakeLog();
    const m = new SourceMonitor('chainlink', 10_000, log);
    m.recordSuccess(1, T);
    m.recordSuccess(0, T + 5000);
    expect(m.observe(T + 10_000).ok).toBe(true);
    expect(m.observe(T + 10_001)).toEqual({
      source: 'chainlink',
      ok: false,
      last_success_time: Math.floor(T / 1000),
      detail: 'silent: last fresh value 10s ago',
    });
  });

  it('is not healthy while it answers but has never had a fresh value', () => {
    const { log } = fakeLog();
    const m = new SourceMonitor('chainlink', 10_000, log);
    m.recordSuccess(0, T);
    expect(m.observe(T)).toMatchObject({ ok: false, detail: 'no fresh value yet' });
  });
});

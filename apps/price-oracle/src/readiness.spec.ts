import { FakeClock, HealthRegistry } from '@xchain/service-kit';
import pino from 'pino';
import { registerSourceChecks } from './readiness';
import { SourceMonitor } from './source-health';

const log = pino({ level: 'silent' });

describe('registerSourceChecks', () => {
  const T = 5_000_000;
  function setup() {
    const pyth = new SourceMonitor('pyth', 10_000, log);
    const file = new SourceMonitor('file', 10_000, log);
    const health = new HealthRegistry('price-oracle');
    registerSourceChecks(health, [pyth, file], new FakeClock(T));
    return { pyth, file, health };
  }

  it('stays ready while one source is healthy, saying which one covers for the failing one', async () => {
    const { pyth, file, health } = setup();
    pyth.recordFailure('Hermes answered HTTP 500', T);
    file.recordSuccess(3, T);
    expect(await health.readiness()).toEqual({
      status: 'ok',
      service: 'price-oracle',
      checks: {
        'price_source:pyth': { ok: true, detail: 'pyth: failing: Hermes answered HTTP 500 (prices still come from file)' },
        'price_source:file': { ok: true, detail: 'file: last fresh value 0s ago' },
      },
    });
  });

  it('fails when no source is healthy, each check naming its failing source', async () => {
    const { pyth, file, health } = setup();
    pyth.recordFailure('Hermes did not answer within 2000 ms', T);
    file.recordSuccess(1, T - 20_000);
    const report = await health.readiness();
    expect(report.status).toBe('unavailable');
    expect(report.checks).toEqual({
      'price_source:pyth': { ok: false, detail: 'pyth: failing: Hermes did not answer within 2000 ms' },
      'price_source:file': { ok: false, detail: 'file: silent: last fresh value 20s ago' },
    });
  });
});

import { Code } from '@xchain/contracts';
import { DatabaseOutage } from './database-outage';
import { databaseUnavailable, isDatabaseUnavailable, shortError } from './database-errors';

const withProps = (message: string, props: Record<string, unknown>) => Object.assign(new Error(message), props);

describe('isDatabaseUnavailable', () => {
  it.each([
    ['Prisma cannot reach the server (P1001)', withProps("Can't reach database server", { code: 'P1001' })],
    ['Prisma pool timeout (P2024)', withProps('Timed out fetching a new connection', { code: 'P2024' })],
    ['Prisma connection closed (P1017)', withProps('Server has closed the connection.', { code: 'P1017' })],
    ['PrismaClientInitializationError', Object.assign(new Error('init'), { name: 'PrismaClientInitializationError' })],
    [
      'driver adapter DatabaseNotReachable',
      withProps('x', { code: 'P2036', meta: { driverAdapterError: { cause: { kind: 'DatabaseNotReachable' } } } }),
    ],
    [
      'driver adapter postgres 57P01',
      withProps('x', { meta: { driverAdapterError: { cause: { kind: 'postgres', originalCode: '57P01' } } } }),
    ],
    [
      'pg ECONNREFUSED inside an AggregateError',
      new AggregateError([withProps('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' })], ''),
    ],
    ['pg "Connection terminated unexpectedly"', new Error('Connection terminated unexpectedly')],
    ['pg pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['SQLSTATE 08006 as cause', new Error('wrapped', { cause: withProps('connection failure', { code: '08006' }) })],
    ['SQLSTATE 57P03 (starting up)', withProps('the database system is starting up', { code: '57P03' })],
  ])('%s → unavailable', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    ['unique violation (P2002)', withProps('Unique constraint failed', { code: 'P2002' })],
    ['record not found (P2025)', withProps('No record', { code: 'P2025' })],
    ['syntax error 42601', withProps('syntax error', { code: '42601' })],
    ['a plain bug', new TypeError('cannot read properties of undefined')],
    ['not an error', 'down'],
    ['null', null],
  ])('%s → not unavailable', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });

  it('does not loop on a cyclic cause', () => {
    const a: Error & { cause?: unknown } = new Error('a');
    a.cause = a;
    expect(isDatabaseUnavailable(a)).toBe(false);
  });

  it('answers UNAVAILABLE / DATABASE_UNAVAILABLE with a retry delay', () => {
    const s = databaseUnavailable().status;
    expect(s.code).toBe(Code.UNAVAILABLE);
    expect(s.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ reason: 'DATABASE_UNAVAILABLE' }),
        expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retry_delay: '2s' }),
      ]),
    );
  });

  it('shortens a multi-line Prisma message to its reason', () => {
    const err = withProps(
      "\nInvalid `prisma.apiKey.findUnique()` invocation in\n/app/x.js:1:2\n\n→ 1 foo\n\nCan't reach database server at 127.0.0.1:5432",
      { code: 'P1001' },
    );
    expect(shortError(err)).toBe("Error: Can't reach database server at 127.0.0.1:5432");
  });
});

describe('DatabaseOutage', () => {
  const log = () => ({ warn: jest.fn(), info: jest.fn() });

  it('logs the start once, counts the rest, and logs the end with the count', () => {
    let t = 1000;
    const l = log();
    const outage = new DatabaseOutage(l, { now: () => t });
    for (let i = 0; i < 50; i++) outage.failed(new Error('Connection terminated'), 'x.y');
    expect(l.warn).toHaveBeenCalledTimes(1);
    expect(outage.down).toBe(true);
    t = 4000;
    outage.requestSucceeded();
    outage.requestSucceeded();
    expect(l.info).toHaveBeenCalledTimes(1);
    expect(l.info.mock.calls[0][0]).toEqual({ down_ms: 3000, failures_not_logged: 49 });
    expect(outage.down).toBe(false);
    outage.failed(new Error('again'));
    expect(l.warn).toHaveBeenCalledTimes(2);
  });

  it('with a probe, a request that succeeded ends the outage only when the probe does', async () => {
    const l = log();
    const outage = new DatabaseOutage(l, { probeMs: 60_000 });
    let up = false;
    outage.setProbe(async () => {
      if (!up) throw new Error('down');
    });
    outage.failed(new Error('Connection terminated'));
    outage.requestSucceeded();
    await new Promise((r) => setImmediate(r));
    expect(outage.down).toBe(true);
    up = true;
    outage.requestSucceeded();
    await new Promise((r) => setImmediate(r));
    expect(outage.down).toBe(false);
    expect(l.info).toHaveBeenCalledTimes(1);
    outage.stop();
  });

  it('the probe notices the end without any request', async () => {
    const l = log();
    const outage = new DatabaseOutage(l, { probeMs: 20 });
    outage.setProbe(async () => undefined);
    outage.failed(new Error('Connection terminated'));
    await new Promise((r) => setTimeout(r, 80));
    expect(outage.down).toBe(false);
    expect(l.info).toHaveBeenCalledTimes(1);
  });
});

import { RpcError } from '@xchain/contracts';
import { until } from '@xchain/stack';
import { chainRpcUnavailable } from './chain-errors';
import { DependencyOutage, DependencyOutages, unreachableDependency } from './dependency-outage';

function recorder() {
  const lines: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const log = {
    warn: (fields: object, msg: string) => void lines.push({ level: 'warn', msg, fields: fields as Record<string, unknown> }),
    info: (fields: object, msg: string) => void lines.push({ level: 'info', msg, fields: fields as Record<string, unknown> }),
  };
  return { lines, log };
}

const noResponders = (service: string) => RpcError.unavailable(`${service} is unavailable`, 'SERVICE_UNAVAILABLE', 1, { service });

describe('DependencyOutage', () => {
  afterEach(() => jest.useRealTimers());

  it('one warning when failures start, one line with the duration and count once calls have succeeded for the settle time, and again for the next outage', () => {
    jest.useFakeTimers({ now: 1000 });
    const { lines, log } = recorder();
    const outage = new DependencyOutage(log, 'gasless', { settleMs: 5000 });
    outage.succeeded(); // nothing open: nothing said
    for (let i = 0; i < 523; i++) outage.failed(noResponders('gasless'));
    jest.advanceTimersByTime(70_000);
    outage.succeeded();
    outage.succeeded();
    expect(lines).toHaveLength(1); // answered, but not yet for the settle time
    jest.advanceTimersByTime(5000);
    expect(outage.down).toBe(false);
    outage.failed(noResponders('gasless'));
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['warn', 'gasless unreachable; calls to it fail until it is back'],
      ['info', 'gasless reachable again'],
      ['warn', 'gasless unreachable; calls to it fail until it is back'],
    ]);
    expect(lines[0]!.fields).toMatchObject({ dependency: 'gasless', err: 'RpcError: gasless is unavailable' });
    expect(lines[1]!.fields).toEqual({ dependency: 'gasless', down_ms: 70_000, failures: 523 });
    outage.stop();
  });

  it('a dependency that fails again while it comes back (a restarted service warming up) is still one outage: one warning, one line back', () => {
    jest.useFakeTimers({ now: 0 });
    const { lines, log } = recorder();
    const outage = new DependencyOutage(log, 'gasless', { settleMs: 5000 });
    outage.failed(noResponders('gasless'));
    jest.advanceTimersByTime(15_000);
    outage.succeeded(); // the restarted relayer answers a first call…
    jest.advanceTimersByTime(1000);
    outage.failed(new Error('gasless did not answer within 500 ms')); // …then times out on the next
    jest.advanceTimersByTime(4999);
    outage.succeeded();
    jest.advanceTimersByTime(4999);
    expect(lines.map((l) => l.level)).toEqual(['warn']);
    expect(outage.down).toBe(true);
    jest.advanceTimersByTime(1);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['warn', 'gasless unreachable; calls to it fail until it is back'],
      ['info', 'gasless reachable again'],
    ]);
    // Down until the recovery that held began; both failures counted.
    expect(lines[1]!.fields).toEqual({ dependency: 'gasless', down_ms: 20_999, failures: 2 });
    expect(outage.down).toBe(false);
  });

  it('a probe ends the outage when no call comes', async () => {
    const { lines, log } = recorder();
    let up = false;
    const outage = new DependencyOutage(log, 'base RPC', {
      settleMs: 20,
      probe: async () => {
        if (!up) throw new Error('down');
      },
      probeMs: 10,
    });
    outage.failed(new Error('timeout'));
    up = true;
    await until('the outage to end', () => !outage.down, { timeoutMs: 2000, everyMs: 10 });
    expect(outage.down).toBe(false);
    expect(lines.map((l) => l.msg)).toEqual(['base RPC unreachable; calls to it fail until it is back', 'base RPC reachable again']);
  });
});

describe('DependencyOutages', () => {
  it('names the dependency an error says is away, and nothing for answers', () => {
    expect(unreachableDependency(noResponders('gasless'))).toBe('gasless');
    expect(
      unreachableDependency(
        new RpcError(4, 'gasless did not answer within 2000 ms', [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'UPSTREAM_TIMEOUT',
            domain: 'xchain.api',
            metadata: { service: 'gasless' },
          },
        ]),
      ),
    ).toBe('gasless');
    expect(unreachableDependency(RpcError.unavailable('x', 'RELAYER_UNAVAILABLE', 2))).toBe('gasless');
    expect(unreachableDependency(RpcError.unavailable('x', 'BUS_UNAVAILABLE', 2))).toBe('NATS');
    expect(unreachableDependency(chainRpcUnavailable('arbitrum'))).toBe('arbitrum RPC');
    expect(unreachableDependency(RpcError.unavailable('x', 'DATABASE_UNAVAILABLE', 2))).toBeUndefined();
    expect(unreachableDependency(RpcError.invalidArgument([{ field: 'a', description: 'b' }]))).toBeUndefined();
    expect(unreachableDependency(new Error('no responders'))).toBeUndefined();
  });

  it('callers share one outage per dependency: many callers, one warning, one line back with every failure counted', async () => {
    const { lines, log } = recorder();
    const outages = new DependencyOutages(log, { settleMs: 0 });
    for (let i = 0; i < 100; i++) {
      expect(outages.failed(noResponders('gasless'))).toBe(true); // settlement
      await outages.watch(Promise.reject(noResponders('gasless')), 'gasless').catch(() => undefined); // inventory
    }
    expect(outages.failed(new Error('a bug'))).toBe(false); // not an outage: the caller logs it
    expect(await outages.watch(Promise.resolve(7), 'gasless', 'arbitrum RPC')).toBe(7);
    expect(lines.map((l) => [l.level, l.msg, l.fields['failures']])).toEqual([
      ['warn', 'gasless unreachable; calls to it fail until it is back', undefined],
      ['info', 'gasless reachable again', 200],
    ]);
  });
});

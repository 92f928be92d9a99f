import { RpcError } from '@xchain/contracts';
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
  it('one warning when failures start, one line with the duration and count when a call succeeds, and again for the next outage', () => {
    const { lines, log } = recorder();
    let now = 1000;
    const outage = new DependencyOutage(log, 'gasless', { now: () => now });
    outage.succeeded(); // nothing open: nothing said
    for (let i = 0; i < 523; i++) outage.failed(noResponders('gasless'));
    now += 70_000;
    outage.succeeded();
    outage.succeeded();
    outage.failed(noResponders('gasless'));
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['warn', 'gasless unreachable; calls to it fail until it is back'],
      ['info', 'gasless reachable again'],
      ['warn', 'gasless unreachable; calls to it fail until it is back'],
    ]);
    expect(lines[0]!.fields).toMatchObject({ dependency: 'gasless', err: 'RpcError: gasless is unavailable' });
    expect(lines[1]!.fields).toEqual({ dependency: 'gasless', down_ms: 70_000, failures: 523 });
  });

  it('a probe ends the outage when no call comes', async () => {
    const { lines, log } = recorder();
    let up = false;
    const outage = new DependencyOutage(log, 'base RPC', {
      probe: async () => {
        if (!up) throw new Error('down');
      },
      probeMs: 10,
    });
    outage.failed(new Error('timeout'));
    up = true;
    for (let i = 0; i < 200 && outage.down; i++) await new Promise((r) => setTimeout(r, 10));
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
    const outages = new DependencyOutages(log);
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

import type { Status } from '@nats-io/transport-node';
import { NATS } from '@xchain/service-kit';
import { newTestService } from '@xchain/service-kit/testing';
import { RegistryChangeListener } from './registry-change-listener';
import { RegistryLists } from './registry-lists';

/** A connection whose status events and registry notices the test sends. */
function fakeConnection() {
  let deliver: ((err: Error | null) => void) | undefined;
  const statuses: Status[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  const nc = {
    subscribe: (_subject: string, opts: { callback: (err: Error | null) => void }) => {
      deliver = opts.callback;
      return { unsubscribe: () => undefined };
    },
    status: () => ({
      async *[Symbol.asyncIterator]() {
        for (;;) {
          while (statuses.length > 0) yield statuses.shift()!;
          if (closed) return;
          await new Promise<void>((r) => (wake = r));
        }
      },
    }),
  };
  const emit = (s: Status) => {
    statuses.push(s);
    wake?.();
  };
  return { nc, notice: () => deliver!(null), emit, close: () => ((closed = true), wake?.()) };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('RegistryChangeListener', () => {
  it('drops the lists on a change notice and after a reconnect, not on other connection events', async () => {
    const conn = fakeConnection();
    const t = newTestService(RegistryChangeListener, [{ provide: NATS, useValue: conn.nc }]);
    const lists = t.mock(RegistryLists);
    const listener = t.sut;
    listener.onModuleInit();
    conn.notice();
    expect(lists.changed).toHaveBeenCalledTimes(1);
    conn.emit({ type: 'disconnect', server: 'nats://127.0.0.1:4222' } as Status);
    await turn();
    expect(lists.changed).toHaveBeenCalledTimes(1);
    conn.emit({ type: 'reconnect', server: 'nats://127.0.0.1:4222' } as Status);
    await turn();
    expect(lists.changed).toHaveBeenCalledTimes(2);
    conn.close();
    listener.onApplicationShutdown();
  });
});

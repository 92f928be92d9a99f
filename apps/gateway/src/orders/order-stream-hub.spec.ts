import { OrderStreamHub } from './order-stream-hub';

describe('OrderStreamHub admission', () => {
  // follow() never touches NATS: the hub is not started.
  const hub = () =>
    new OrderStreamHub(
      {
        subscribe: () => {
          throw new Error('not started');
        },
      },
      { perCaller: 2, perReplica: 3 },
      { warn: () => undefined },
    );
  const hash = `0x${'ab'.repeat(32)}`;
  const noop = () => undefined;

  it('refuses a caller at its own cap first, then anyone once the replica is full, and counts closes once', () => {
    const h = hub();
    const a1 = h.follow('a', hash, noop);
    const a2 = h.follow('a', hash, noop);
    expect(h.follow('a', hash, noop)).toBe('caller_full');
    const b1 = h.follow('b', hash, noop);
    expect(h.open).toBe(3);
    expect(h.follow('c', hash, noop)).toBe('replica_full');
    expect(h.follow('a', hash, noop)).toBe('caller_full');
    for (const f of [a1, a2, b1]) expect(typeof f).toBe('function');
    (b1 as () => void)();
    (b1 as () => void)(); // closing twice frees one place only
    expect(h.open).toBe(2);
    expect(typeof h.follow('c', hash, noop)).toBe('function');
    expect(h.follow('d', hash, noop)).toBe('replica_full');
  });
});

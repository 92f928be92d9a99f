import { FakeClock } from '@xchain/service-kit';
import { RegistryLists } from './registry-lists';

/** An `ask` whose answers the test hands out one at a time, counting the calls. */
function upstream() {
  const waiting: { resolve: (v: unknown) => void; reject: (e: Error) => void }[] = [];
  const ask = jest.fn(() => new Promise<unknown>((resolve, reject) => waiting.push({ resolve, reject })));
  return {
    ask,
    answer: (v: unknown) => waiting.shift()!.resolve(v),
    fail: (e: Error) => waiting.shift()!.reject(e),
  };
}

const text = (l: { body: Buffer }) => l.body.toString('utf8');

describe('RegistryLists', () => {
  it('serves a kept list without asking again until it is max age old', async () => {
    const clock = new FakeClock(1_000);
    const lists = new RegistryLists(30_000, clock);
    const up = upstream();
    const first = lists.get('tokens', up.ask);
    up.answer({ tokens: ['a'] });
    expect(text(await first)).toBe('{"tokens":["a"]}');
    clock.advance(29_999);
    expect(text(await lists.get('tokens', up.ask))).toBe('{"tokens":["a"]}');
    expect(up.ask).toHaveBeenCalledTimes(1);
    clock.advance(1);
    const aged = lists.get('tokens', up.ask);
    expect(up.ask).toHaveBeenCalledTimes(2);
    up.answer({ tokens: ['b'] });
    expect(text(await aged)).toBe('{"tokens":["b"]}');
  });

  it('asks again after a change, and does not keep an answer that was asked for before it', async () => {
    const lists = new RegistryLists(30_000, new FakeClock());
    const up = upstream();
    const before = lists.get('tokens', up.ask);
    lists.changed();
    // A request after the change does not join the call made before it.
    const after = lists.get('tokens', up.ask);
    expect(up.ask).toHaveBeenCalledTimes(2);
    up.answer({ tokens: ['old'] });
    up.answer({ tokens: ['new'] });
    expect(text(await before)).toBe('{"tokens":["old"]}');
    expect(text(await after)).toBe('{"tokens":["new"]}');
    expect(text(await lists.get('tokens', up.ask))).toBe('{"tokens":["new"]}');
    expect(up.ask).toHaveBeenCalledTimes(2);
  });

  it('does not keep the old list when a change arrives while it is being asked for', async () => {
    const lists = new RegistryLists(30_000, new FakeClock());
    const up = upstream();
    const pending = lists.get('chains', up.ask);
    lists.changed();
    up.answer({ chains: ['old'] });
    expect(text(await pending)).toBe('{"chains":["old"]}');
    const next = lists.get('chains', up.ask);
    expect(up.ask).toHaveBeenCalledTimes(2);
    up.answer({ chains: ['new'] });
    expect(text(await next)).toBe('{"chains":["new"]}');
  });

  it('shares one call among requests that arrive while it is in flight, and keeps each list apart', async () => {
    const lists = new RegistryLists(30_000, new FakeClock());
    const up = upstream();
    const a = lists.get('tokens', up.ask);
    const b = lists.get('tokens', up.ask);
    const c = lists.get('chains', up.ask);
    expect(up.ask).toHaveBeenCalledTimes(2);
    up.answer({ tokens: [] });
    up.answer({ chains: [] });
    expect(await a).toBe(await b);
    expect(text(await c)).toBe('{"chains":[]}');
  });

  it('keeps nothing after a failure: every waiting caller gets it, and the next request asks again', async () => {
    const lists = new RegistryLists(30_000, new FakeClock());
    const up = upstream();
    const a = lists.get('tokens', up.ask);
    const b = lists.get('tokens', up.ask);
    up.fail(new Error('no responders'));
    await expect(a).rejects.toThrow('no responders');
    await expect(b).rejects.toThrow('no responders');
    const again = lists.get('tokens', up.ask);
    expect(up.ask).toHaveBeenCalledTimes(2);
    up.answer({ tokens: ['a'] });
    expect(text(await again)).toBe('{"tokens":["a"]}');
  });

  it('keeps the ETag of an unchanged list and gives a changed one a new ETag', async () => {
    const lists = new RegistryLists(30_000, new FakeClock());
    const up = upstream();
    const one = lists.get('tokens', up.ask);
    up.answer({ tokens: ['a'] });
    const etag = (await one).etag;
    lists.changed();
    const same = lists.get('tokens', up.ask);
    up.answer({ tokens: ['a'] });
    expect((await same).etag).toBe(etag);
    lists.changed();
    const other = lists.get('tokens', up.ask);
    up.answer({ tokens: ['b'] });
    expect((await other).etag).not.toBe(etag);
  });

  it('with a max age of 0 asks for every request that does not share a call in flight', async () => {
    const lists = new RegistryLists(0, new FakeClock());
    const up = upstream();
    const one = lists.get('tokens', up.ask);
    up.answer({ tokens: ['a'] });
    await one;
    const two = lists.get('tokens', up.ask);
    expect(up.ask).toHaveBeenCalledTimes(2);
    up.answer({ tokens: ['a'] });
    await two;
  });
});

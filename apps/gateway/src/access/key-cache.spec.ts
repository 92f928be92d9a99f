import { Code, RpcError, type ApiKeyIdentity } from '@xchain/contracts';
import { FakeClock } from '@xchain/service-kit';
import { KeyCache } from './key-cache';

const identity = (id: string, disabled = false): ApiKeyIdentity => ({
  key_id: id,
  partner_id: 'ptn_1',
  tier: 'standard',
  points_per_min: 600,
  disabled,
});

describe('KeyCache', () => {
  it('serves a cached answer until the TTL passes, then asks again', async () => {
    const clock = new FakeClock(0);
    const cache = new KeyCache(5000, 10, clock);
    const lookup = jest.fn(async (h: string) => identity(h));
    await cache.get('a', lookup);
    clock.set(4999);
    await cache.get('a', lookup);
    expect(lookup).toHaveBeenCalledTimes(1);
    clock.set(5000);
    await cache.get('a', lookup);
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('sees a disabled key at once after an eviction', async () => {
    const cache = new KeyCache(60_000, 10, new FakeClock());
    let disabled = false;
    const lookup = async (h: string) => identity(h, disabled);
    expect((await cache.get('a', lookup))?.disabled).toBe(false);
    disabled = true;
    expect((await cache.get('a', lookup))?.disabled).toBe(false);
    cache.evict('a');
    expect((await cache.get('a', lookup))?.disabled).toBe(true);
  });

  it('caches unknown keys, shares one lookup between concurrent callers and stays bounded', async () => {
    const cache = new KeyCache(60_000, 3, new FakeClock());
    const lookup = jest.fn(async () => null);
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.get('garbage', lookup)));
    expect(answers.every((a) => a === null)).toBe(true);
    expect(lookup).toHaveBeenCalledTimes(1);
    for (const h of ['b', 'c', 'd', 'e']) await cache.get(h, lookup);
    expect(cache.size).toBe(3);
  });

  it('does not cache a failed lookup', async () => {
    const cache = new KeyCache(60_000, 10, new FakeClock());
    await expect(cache.get('a', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await expect(cache.get('a', async (h) => identity(h))).resolves.toMatchObject({ key_id: 'a' });
  });
});

describe('KeyCache stale-if-error', () => {
  const down = () => Promise.reject(RpcError.unavailable('partner-service is unavailable', 'SERVICE_UNAVAILABLE'));
  const log = () => ({ warn: jest.fn(), info: jest.fn() });

  it('serves the last decision within the stale window when the partner-service does not answer, then refuses', async () => {
    const clock = new FakeClock(0);
    const l = log();
    const cache = new KeyCache(1000, 10, clock, { staleMs: 10_000, log: l });
    await cache.get('a', async (h) => identity(h));
    clock.set(1500);
    await expect(cache.get('a', down)).resolves.toMatchObject({ key_id: 'a', disabled: false });
    clock.set(5000);
    await expect(cache.get('a', () => Promise.reject(RpcError.deadlineExceeded('slow', 'UPSTREAM_TIMEOUT')))).resolves.toMatchObject({
      key_id: 'a',
    });
    clock.set(11_000); // fetched at 0: TTL 1000 + stale 10 000 are over
    await expect(cache.get('a', down)).rejects.toMatchObject({ status: { code: Code.UNAVAILABLE } });
    expect(cache.staleServedTotal).toBe(2);
    expect(l.warn).toHaveBeenCalledTimes(1);
  });

  it('asks again at most once a second while serving stale, and logs the recovery once', async () => {
    const clock = new FakeClock(0);
    const l = log();
    const cache = new KeyCache(5000, 10, clock, { staleMs: 60_000, log: l });
    await cache.get('a', async (h) => identity(h));
    clock.set(6000);
    const failing = jest.fn(down);
    await cache.get('a', failing);
    clock.set(6500);
    await cache.get('a', failing);
    expect(failing).toHaveBeenCalledTimes(1);
    clock.set(7001);
    await cache.get('a', failing);
    expect(failing).toHaveBeenCalledTimes(2);
    expect(l.warn).toHaveBeenCalledTimes(1);
    clock.set(8100);
    await cache.get('a', async (h) => identity(h));
    expect(l.info).toHaveBeenCalledTimes(1);
    expect(l.info.mock.calls[0][0]).toMatchObject({ stale_served: 2 });
  });

  it('never serves stale for an answer about the key or any other error', async () => {
    const clock = new FakeClock(0);
    const cache = new KeyCache(1000, 10, clock, { staleMs: 60_000 });
    await cache.get('a', async (h) => identity(h));
    clock.set(2000);
    await expect(cache.get('a', () => Promise.reject(new Error('bug')))).rejects.toThrow('bug');
    await expect(cache.get('a', () => Promise.reject(RpcError.internal()))).rejects.toMatchObject({ status: { code: Code.INTERNAL } });
    await expect(cache.get('a', async (h) => identity(h, true))).resolves.toMatchObject({ disabled: true });
  });

  it('an evicted key (key_changed) has no stale decision: the outage error stands', async () => {
    const clock = new FakeClock(0);
    const cache = new KeyCache(1000, 10, clock, { staleMs: 60_000 });
    await cache.get('a', async (h) => identity(h));
    cache.evict('a');
    clock.set(2000);
    await expect(cache.get('a', down)).rejects.toMatchObject({ status: { code: Code.UNAVAILABLE } });
    clock.set(0); // even inside the TTL an evicted entry is gone
    await expect(cache.get('a', down)).rejects.toMatchObject({ status: { code: Code.UNAVAILABLE } });
  });

  it('a key never cached gets the outage error, and staleMs 0 turns the window off', async () => {
    const cache = new KeyCache(1000, 10, new FakeClock(0), { staleMs: 60_000 });
    await expect(cache.get('new', down)).rejects.toMatchObject({ status: { code: Code.UNAVAILABLE } });
    const clock = new FakeClock(0);
    const off = new KeyCache(1000, 10, clock);
    await off.get('a', async (h) => identity(h));
    clock.set(1001);
    await expect(off.get('a', down)).rejects.toMatchObject({ status: { code: Code.UNAVAILABLE } });
  });
});

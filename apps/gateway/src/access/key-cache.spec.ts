import type { ApiKeyIdentity } from '@xchain/contracts';
import { KeyCache } from './key-cache';

const identity = (id: string, disabled = false): ApiKeyIdentity => ({ key_id: id, partner_id: 'ptn_1', tier: 'standard', points_per_min: 600, disabled });

describe('KeyCache', () => {
  it('serves a cached answer until the TTL passes, then asks again', async () => {
    let t = 0;
    const cache = new KeyCache(5000, 10, () => t);
    const lookup = jest.fn(async (h: string) => identity(h));
    await cache.get('a', lookup);
    t = 4999;
    await cache.get('a', lookup);
    expect(lookup).toHaveBeenCalledTimes(1);
    t = 5000;
    await cache.get('a', lookup);
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('sees a disabled key at once after an eviction', async () => {
    const cache = new KeyCache(60_000, 10);
    let disabled = false;
    const lookup = async (h: string) => identity(h, disabled);
    expect((await cache.get('a', lookup))?.disabled).toBe(false);
    disabled = true;
    expect((await cache.get('a', lookup))?.disabled).toBe(false);
    cache.evict('a');
    expect((await cache.get('a', lookup))?.disabled).toBe(true);
  });

  it('caches unknown keys, shares one lookup between concurrent callers and stays bounded', async () => {
    const cache = new KeyCache(60_000, 3);
    const lookup = jest.fn(async () => null);
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.get('garbage', lookup)));
    expect(answers.every((a) => a === null)).toBe(true);
    expect(lookup).toHaveBeenCalledTimes(1);
    for (const h of ['b', 'c', 'd', 'e']) await cache.get(h, lookup);
    expect(cache.size).toBe(3);
  });

  it('does not cache a failed lookup', async () => {
    const cache = new KeyCache(60_000, 10);
    await expect(cache.get('a', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await expect(cache.get('a', async (h) => identity(h))).resolves.toMatchObject({ key_id: 'a' });
  });
});

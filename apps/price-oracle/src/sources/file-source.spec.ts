import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../config-path';
import { drawsPerKey } from '../random';
import { FilePriceSource, loadPricesFile } from './file-source';
import type { Feed } from './source';

const ROOT = repoRoot()!;
const PRICES = join(ROOT, 'config/prices.json');
const feed = (price_id: string): Feed => ({ price_id, symbol: price_id.toUpperCase() });

describe('config/prices.json', () => {
  it('prices every price id of the registry, as exact decimals', () => {
    const registry = JSON.parse(readFileSync(join(ROOT, 'config/registry.json'), 'utf8')) as { tokens: { coingecko_id?: string }[] };
    const ids = new Set(registry.tokens.flatMap((t) => (t.coingecko_id ? [t.coingecko_id] : [])));
    const prices = loadPricesFile(PRICES);
    expect([...ids].filter((id) => !prices.has(id))).toEqual([]);
    expect(prices.get('ethereum')).toEqual({ price: 351227000000n, expo: -8 });
  });
});

describe('FilePriceSource', () => {
  const anchors = loadPricesFile(PRICES);
  const feeds = ['ethereum', 'usd-coin', 'pepe', 'not-in-file'].map(feed);

  it('gives the file values first, stamped now, then walks them in integer steps', async () => {
    const src = new FilePriceSource(anchors, drawsPerKey(7));
    const first = await src.fetch(feeds, 1000);
    expect(first).toEqual([
      { price_id: 'ethereum', price: '351227000000', expo: -8, conf: '0', publish_time: 1000, source: 'file' },
      { price_id: 'usd-coin', price: '100000000000', expo: -11, conf: '0', publish_time: 1000, source: 'file' },
      { price_id: 'pepe', price: '101300000000', expo: -16, conf: '0', publish_time: 1000, source: 'file' },
    ]);
    let moved = false;
    for (let t = 1001; t < 1200; t++) {
      for (const p of await src.fetch(feeds, t)) {
        expect(p.price).toMatch(/^[1-9][0-9]*$/);
        expect(p.publish_time).toBe(t);
        const anchor = anchors.get(p.price_id)!.price;
        const value = BigInt(p.price);
        expect(value * 10_000n >= anchor * 9_900n && value * 10_000n <= anchor * 10_100n).toBe(true);
        moved ||= value !== anchor;
      }
    }
    expect(moved).toBe(true);
  });

  it('replays the same walk for the same seed', async () => {
    const run = async (seed: number) => {
      const src = new FilePriceSource(anchors, drawsPerKey(seed));
      const out: string[] = [];
      for (let t = 0; t < 20; t++) out.push(...(await src.fetch(feeds, t)).map((p) => p.price));
      return out;
    };
    expect(await run(7)).toEqual(await run(7));
    expect(await run(7)).not.toEqual(await run(8));
  });

  it('covers only the ids in the file', () => {
    const src = new FilePriceSource(anchors, drawsPerKey(1));
    expect(src.covers(feed('bonk'))).toBe(true);
    expect(src.covers(feed('not-in-file'))).toBe(false);
  });

  it('refuses a file with a price that is not a plain positive decimal, naming it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prices-'));
    const bad = join(dir, 'prices.json');
    writeFileSync(bad, JSON.stringify({ prices: { ethereum: '3512.27', bitcoin: '9.5e4' } }));
    expect(() => loadPricesFile(bad)).toThrow(/bitcoin/);
    writeFileSync(bad, JSON.stringify({ prices: { ethereum: 3512.27 } }));
    expect(() => loadPricesFile(bad)).toThrow();
  });
});

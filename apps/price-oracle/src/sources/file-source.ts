import { readFileSync } from 'node:fs';
import type { Price } from '@xchain/contracts';
import { z } from 'zod';
import { parseDecimalPrice, toExpo } from '../decimal';
import type { Feed, PriceSource } from './source';

const EXPO = -12;
const STEP_BPS = 5n; // at most ±5 bps per tick
const BAND_BPS = 100n; // never more than ±1 % from the file's value

const FileSchema = z.object({ prices: z.record(z.string(), z.string()) });

/** A tiny deterministic generator (seeded) so walks are reproducible in tests. */
export function lcg(seed: number): () => number {
  let state = BigInt(seed >>> 0) || 1n;
  return () => {
    state = (state * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
    return Number(state >> 33n);
  };
}

/**
 * Prices from a local file (the default of the local stack), moved by a small bounded random walk
 * so quotes move. Integer math only; publish time is "now" because the walk is live.
 */
export class FilePriceSource implements PriceSource {
  readonly name = 'file' as const;
  private readonly base = new Map<string, bigint>();
  private readonly current = new Map<string, bigint>();

  constructor(
    path: string,
    private readonly random: () => number,
  ) {
    const file = FileSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
    for (const [id, text] of Object.entries(file.prices)) {
      const value = toExpo(parseDecimalPrice(text), EXPO);
      this.base.set(id, value);
      this.current.set(id, value);
    }
  }

  /** One walk step: ±STEP_BPS, clamped to the band around the file's value. */
  step(id: string): bigint | undefined {
    const base = this.base.get(id);
    const cur = this.current.get(id);
    if (base === undefined || cur === undefined) return undefined;
    const moveBps = BigInt(this.random() % Number(2n * STEP_BPS + 1n)) - STEP_BPS;
    let next = cur + (cur * moveBps) / 10_000n;
    const lo = base - (base * BAND_BPS) / 10_000n;
    const hi = base + (base * BAND_BPS) / 10_000n;
    next = next < lo ? lo : next > hi ? hi : next;
    if (next <= 0n) next = cur;
    this.current.set(id, next);
    return next;
  }

  async fetch(feeds: readonly Feed[], nowSecs: number): Promise<Price[]> {
    const out: Price[] = [];
    for (const f of feeds) {
      const value = this.step(f.price_id);
      if (value !== undefined) out.push({ price_id: f.price_id, price: value.toString(), expo: EXPO, conf: '0', publish_time: nowSecs, source: 'file' });
    }
    return out;
  }
}

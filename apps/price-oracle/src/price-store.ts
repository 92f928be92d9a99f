import { Kvm, type KV } from '@nats-io/kv';
import { PRICES_BUCKET, PriceSchema, type Price } from '@xchain/contracts';
import { parseJson, type NatsConnection } from '@xchain/messaging';

/** Where prices go: the JetStream KV bucket the quote-engine watches (key = price id). */
export interface PriceSink {
  put(price: Price): Promise<void>;
  /** What the bucket holds now (another run of the oracle may have written it). */
  current?(): Promise<Price[]>;
}

export class KvPriceStore implements PriceSink {
  private kv?: Promise<KV>;

  constructor(private readonly nc: NatsConnection) {}

  /** Validates first: a malformed value never reaches the bucket's readers. */
  async put(price: Price): Promise<void> {
    const checked = PriceSchema.parse(price);
    const kv = await this.bucket();
    await kv.put(checked.price_id, JSON.stringify(checked));
  }

  async current(): Promise<Price[]> {
    const kv = await this.bucket();
    const out: Price[] = [];
    for await (const key of await kv.keys()) {
      const entry = await kv.get(key);
      if (entry?.operation !== 'PUT') continue;
      const parsed = PriceSchema.safeParse(parseJson(entry.string()));
      if (parsed.success) out.push(parsed.data);
    }
    return out;
  }

  /** Creates the bucket when missing (history 1: readers only want the latest value). */
  private bucket(): Promise<KV> {
    this.kv ??= new Kvm(this.nc).create(PRICES_BUCKET, { history: 1 }).catch((err: unknown) => {
      this.kv = undefined; // JetStream may come up later: try again on the next put
      throw err;
    });
    return this.kv;
  }
}

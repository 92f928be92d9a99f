import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { PRICES_BUCKET, PriceSchema, type Price } from '@xchain/contracts';
import { ensureReplicas, parseJson, streamReplicasOf, type NatsConnection } from '@xchain/messaging';

/** Where prices go: the JetStream KV bucket the quote-engine watches (key = price id). */
export interface PriceSink {
  put(price: Price): Promise<void>;
  /** What the bucket holds now (another run of the oracle may have written it). */
  current?(): Promise<Price[]>;
}

export class KvPriceStore implements PriceSink {
  private kv?: Promise<KV>;

  constructor(
    private readonly nc: NatsConnection,
    private readonly log: { warn: (fields: object, msg: string) => void } = { warn: () => undefined },
  ) {}

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

  /**
   * Creates the bucket when missing (history 1: readers only want the latest value), with the bus's
   * stream replica count (NATS_STREAM_REPLICAS); a bucket made earlier with another count is moved
   * to it (a refusal is logged and the bucket used as it is).
   */
  private bucket(): Promise<KV> {
    this.kv ??= this.open().catch((err: unknown) => {
      this.kv = undefined; // JetStream may come up later: try again on the next put
      throw err;
    });
    return this.kv;
  }

  private async open(): Promise<KV> {
    const replicas = streamReplicasOf(this.nc);
    const kv = await new Kvm(this.nc).create(PRICES_BUCKET, { history: 1, ...(replicas !== undefined ? { replicas } : {}) });
    if (replicas !== undefined) {
      const moved = await ensureReplicas(await jetstreamManager(this.nc), `KV_${PRICES_BUCKET}`, replicas, this.log);
      if (!moved.ok) this.log.warn({ bucket: PRICES_BUCKET }, `prices bucket left as it is: ${moved.difference}`);
    }
    return kv;
  }
}

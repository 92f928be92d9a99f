import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { type OrderEvent, orderEventSubject } from '@xchain/contracts';

/**
 * The NATS test user that stands in for the fulfilment watcher (not built yet): it may publish
 * `fulfilled` order events and nothing else (D14). Pass it as `testUsers`; connect with `connectAs`.
 */
export const FULFILMENT_STAND_IN = { 'fulfilment-stand-in': { publish: [orderEventSubject('fulfilled')] } };

/** Publishes a `fulfilled` order event to JetStream, as the fulfilment side would. */
export async function publishFulfilled(nc: NatsConnection, quoteHash: string, chain: string): Promise<void> {
  const e: OrderEvent = {
    type: 'fulfilled',
    quote_hash: quoteHash,
    chain,
    tx_hash: `0x${quoteHash.slice(2, 10)}`,
    occurred_at: new Date().toISOString(),
  };
  await jetstream(nc).publish(orderEventSubject('fulfilled'), JSON.stringify(e));
}

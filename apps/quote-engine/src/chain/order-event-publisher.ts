import { jetstream } from '@nats-io/jetstream';
import { type OrderEvent, orderEventSubject } from '@xchain/contracts';
import type { NatsConnection } from '@xchain/messaging';
import { token } from '@xchain/service-kit';

/** Puts an order event on the ORDER_EVENTS_V1 stream, once per message id. */
export interface OrderEventPublisher {
  /** 'duplicate' when the stream already holds a message with this id (within its duplicate window). */
  publish(event: OrderEvent, msgId: string): Promise<'published' | 'duplicate'>;
}

export const ORDER_EVENT_PUBLISHER = token<OrderEventPublisher>('ORDER_EVENT_PUBLISHER');

/**
 * JetStream publishing with a message id, so a block read again after a failure or a restart is
 * dropped by the server; the durable consumer records each (quote, type) once anyway, so an
 * event repeated after the duplicate window changes nothing either. Before the stream exists
 * (the consumer creates it) the publish fails and the watcher retries its block.
 */
export function jetStreamOrderEventPublisher(nc: NatsConnection, timeoutMs: number): OrderEventPublisher {
  const js = jetstream(nc, { timeout: timeoutMs });
  return {
    async publish(event, msgId) {
      const ack = await js.publish(orderEventSubject(event.type), JSON.stringify(event), { msgID: msgId });
      return ack.duplicate ? 'duplicate' : 'published';
    },
  };
}

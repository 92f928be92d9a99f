import { Inject, Injectable } from '@nestjs/common';
import {
  Code,
  ORDER_EVENTS_STREAM_DEF,
  ORDER_EVENT_CONSUMERS,
  OrderEventSchema,
  RpcError,
  orderEventSubject,
  type OrderEvent,
} from '@xchain/contracts';
import { DurableConsumerProvider, type DurableConsumerOptions, type NatsConnection } from '@xchain/messaging';
import { LOGGER, NATS } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { ReferralsService } from './referrals.service';

/**
 * Fulfilled orders from the ORDER_EVENTS_V1 stream, through a durable consumer of its own, so no
 * fulfilment is missed while the partner-service restarts and a redelivery accrues nothing twice.
 * While the quote-engine cannot answer, events are redelivered; a quote it no longer retains is
 * dropped (there is nothing left to accrue from). A fulfilment that a reorg withdrew (`removed`)
 * reverses the accruals it created while no voucher holds them.
 */
@Injectable()
export class FulfilledOrdersConsumer extends DurableConsumerProvider<OrderEvent> {
  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(ReferralsService) private readonly referrals: ReferralsService,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    super();
  }

  protected consumerOptions(): DurableConsumerOptions<OrderEvent> {
    return {
      nc: this.nc,
      stream: ORDER_EVENTS_STREAM_DEF,
      durable: ORDER_EVENT_CONSUMERS.referrals, // the one durable name its NATS user may use (D14)
      filterSubject: orderEventSubject('fulfilled'),
      schema: OrderEventSchema,
      handle: (event) => this.accrue(event),
      retryDelayMs: 2000,
      log: this.log,
      label: 'referral accruals',
    };
  }

  /** Exposed for tests: what one event does. */
  async accrue(event: OrderEvent): Promise<void | 'drop'> {
    if (event.type !== 'fulfilled') return 'drop';
    if (event.removed) {
      // A reorg dropped the fulfilment: undo what it accrued, if no voucher holds it yet.
      const outcome = await this.referrals.withdraw(event);
      const fields = { quote_hash: event.quote_hash, tx_hash: event.tx_hash, ...outcome };
      if (outcome.kept > 0) this.log.warn(fields, 'withdrawn fulfilment: its accruals are already vouchered and stay; settle by hand');
      else
        this.log.info(
          fields,
          outcome.reversed > 0 ? 'withdrawn fulfilment: accruals reversed' : 'withdrawn fulfilment: nothing to reverse',
        );
      return;
    }
    try {
      const outcome = await this.referrals.accrue(event);
      this.log.info({ quote_hash: event.quote_hash, outcome }, 'referral accrual');
    } catch (err) {
      if (err instanceof RpcError && err.status.code === Code.NOT_FOUND) {
        this.log.warn({ quote_hash: event.quote_hash }, 'fulfilled order has no retained quote; no accrual');
        return 'drop';
      }
      throw err;
    }
  }
}

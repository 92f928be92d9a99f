import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { AckPolicy, jetstream, jetstreamManager, type ConsumerMessages } from '@nats-io/jetstream';
import { ORDER_EVENTS_STREAM, ORDER_EVENT_SUBJECTS, OrderEventSchema, RpcError, orderEventSubject } from '@xchain/contracts';
import type { NatsConnection } from '@xchain/messaging';
import { LOGGER, NATS } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { ReferralsService } from './referrals.service';

const DURABLE = 'partner-service-referrals';
const decoder = new TextDecoder();

/**
 * Fulfilled orders from the ORDER_EVENTS_V1 stream, through a durable consumer of its own, so no
 * fulfilment is missed while the partner-service restarts and a redelivery accrues nothing twice.
 */
@Injectable()
export class FulfilledOrdersConsumer implements OnModuleInit, OnApplicationShutdown {
  private messages?: ConsumerMessages;
  private stopped = false;

  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(ReferralsService) private readonly referrals: ReferralsService,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  onModuleInit(): void {
    void this.consumeForever();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    void this.messages?.close();
  }

  private async consumeForever(): Promise<void> {
    let delay = 250;
    while (!this.stopped) {
      try {
        const jsm = await jetstreamManager(this.nc);
        await jsm.streams.add({ name: ORDER_EVENTS_STREAM, subjects: [ORDER_EVENT_SUBJECTS], max_age: 30 * 24 * 3600 * 1e9 }).catch(async () => {
          await jsm.streams.info(ORDER_EVENTS_STREAM); // exists already: fine
        });
        await jsm.consumers.add(ORDER_EVENTS_STREAM, {
          durable_name: DURABLE,
          ack_policy: AckPolicy.Explicit,
          filter_subject: orderEventSubject('fulfilled'),
          max_deliver: 50,
        });
        const consumer = await jetstream(this.nc).consumers.get(ORDER_EVENTS_STREAM, DURABLE);
        this.messages = await consumer.consume();
        delay = 250;
        for await (const m of this.messages) {
          const parsed = OrderEventSchema.safeParse(safeJson(decoder.decode(m.data)));
          if (!parsed.success || parsed.data.type !== 'fulfilled') {
            this.log.warn({ subject: m.subject }, 'dropped a malformed fulfilment event');
            m.term();
            continue;
          }
          try {
            const outcome = await this.referrals.accrue(parsed.data);
            this.log.info({ quote_hash: parsed.data.quote_hash, outcome }, 'referral accrual');
            m.ack();
          } catch (err) {
            if (err instanceof RpcError && err.status.code === 5) {
              this.log.warn({ quote_hash: parsed.data.quote_hash }, 'fulfilled order has no retained quote; no accrual');
              m.term();
              continue;
            }
            this.log.warn({ err: err instanceof Error ? err.message : String(err), quote_hash: parsed.data.quote_hash }, 'referral accrual failed; redelivering');
            m.nak(2000);
          }
        }
      } catch (err) {
        if (!this.stopped) this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'fulfilment consumer failed; retrying');
      }
      if (this.stopped) return;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5000);
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

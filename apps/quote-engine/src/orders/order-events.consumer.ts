import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { AckPolicy, jetstream, jetstreamManager, type ConsumerMessages } from '@nats-io/jetstream';
import { ORDER_EVENTS_STREAM, ORDER_EVENT_SUBJECTS, OrderEventSchema, type OrderEvent } from '@xchain/contracts';
import type { NatsConnection } from '@xchain/messaging';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { LOGGER, NATS } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { DB } from '../db.providers';
import { EtaService } from './eta.service';

const DURABLE = 'quote-engine';
const decoder = new TextDecoder();

/**
 * Consumes order events from a JetStream stream with a durable consumer, so none is lost while
 * the quote-engine restarts. Each event is recorded once; a deposit and its fulfilment, in either
 * order, make one fulfilment-time sample.
 */
@Injectable()
export class OrderEventsConsumer implements OnModuleInit, OnApplicationShutdown {
  private messages?: ConsumerMessages;
  private stopped = false;

  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(DB) private readonly db: PrismaClient,
    @Inject(EtaService) private readonly eta: EtaService,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  async onModuleInit(): Promise<void> {
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
        await jsm.consumers.add(ORDER_EVENTS_STREAM, { durable_name: DURABLE, ack_policy: AckPolicy.Explicit, max_deliver: 20 });
        const consumer = await jetstream(this.nc).consumers.get(ORDER_EVENTS_STREAM, DURABLE);
        this.messages = await consumer.consume();
        delay = 250;
        for await (const m of this.messages) {
          const parsed = OrderEventSchema.safeParse(safeJson(decoder.decode(m.data)));
          if (!parsed.success) {
            this.log.warn({ subject: m.subject }, 'dropped a malformed order event');
            m.term();
            continue;
          }
          try {
            await this.record(parsed.data);
            m.ack();
          } catch (err) {
            this.log.warn({ err: String(err), quote_hash: parsed.data.quote_hash }, 'order event failed; redelivering');
            m.nak(1000);
          }
        }
      } catch (err) {
        if (!this.stopped) this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'order events consumer failed; retrying');
      }
      if (this.stopped) return;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5000);
    }
  }

  /** Idempotent: a redelivered event changes nothing. */
  async record(event: OrderEvent): Promise<void> {
    const quote = await this.db.quote.findUnique({
      where: { quoteHash: event.quote_hash },
      select: { srcChain: true, dstChain: true, routeType: true },
    });
    if (!quote) {
      this.log.warn({ quote_hash: event.quote_hash, type: event.type }, 'order event for an unknown quote');
      return;
    }
    await this.db.orderEvent.upsert({
      where: { quoteHash_type: { quoteHash: event.quote_hash, type: event.type } },
      create: { quoteHash: event.quote_hash, type: event.type, chain: event.chain, txHash: event.tx_hash, occurredAt: new Date(event.occurred_at) },
      update: {},
    });
    if (event.type === 'refunded') return;
    const both = await this.db.orderEvent.findMany({
      where: { quoteHash: event.quote_hash, type: { in: ['deposited', 'fulfilled'] } },
    });
    const deposited = both.find((e) => e.type === 'deposited');
    const fulfilled = both.find((e) => e.type === 'fulfilled');
    if (!deposited || !fulfilled) return;
    const secs = Math.max(0, Math.round((fulfilled.occurredAt.getTime() - deposited.occurredAt.getTime()) / 1000));
    await this.db.fulfillmentSample.upsert({
      where: { quoteHash: event.quote_hash },
      create: { quoteHash: event.quote_hash, ...quote, secs, fulfilledAt: fulfilled.occurredAt },
      update: {},
    });
    void this.eta.refresh();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

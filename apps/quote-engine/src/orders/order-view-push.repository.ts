import { Inject, Injectable } from '@nestjs/common';
import { OrderUpdateSchema, type OrderUpdate } from '@xchain/contracts';
import { Prisma, type PrismaClient } from '@xchain/quote-engine-db';
import { Clock } from '@xchain/service-kit';
import { DB } from '../db.providers';
import { OrderRepository } from './order.repository';

/** Where pushed versions are kept; the SQL table `order_view_pushes` in the service. */
export interface PushLog {
  /** The last version claimed, and the update claimed with it while it is not yet known published. */
  last(quoteHash: string): Promise<{ version: number; digest: string; pending?: OrderUpdate } | undefined>;
  /**
   * Claims `update.version` for this view, with the update to publish, only if the last claimed
   * one is `update.version - 1`: of two replicas pushing at once, one claims and publishes.
   */
  claim(quoteHash: string, update: OrderUpdate, digest: string): Promise<boolean>;
  /** The claimed `version` is on the stream: nothing is left to publish. */
  published(quoteHash: string, version: number): Promise<void>;
  partnerOf(quoteHash: string): Promise<string | undefined>;
}

export function sqlPushLog(db: PrismaClient, partnerOf: (quoteHash: string) => Promise<string | undefined>, clock: Clock): PushLog {
  return {
    async last(quoteHash) {
      const row = await db.orderViewPush.findUnique({ where: { quoteHash } });
      if (!row) return undefined;
      const pending = row.pending === null ? undefined : OrderUpdateSchema.safeParse(row.pending);
      return { version: row.version, digest: row.digest, ...(pending?.success ? { pending: pending.data } : {}) };
    },
    async claim(quoteHash, update, digest) {
      const { version } = update;
      const data = { version, digest, status: update.order.status, pending: update as unknown as Prisma.InputJsonValue };
      if (version === 1) {
        const created = await db.orderViewPush.createMany({ data: [{ quoteHash, ...data }], skipDuplicates: true });
        return created.count === 1;
      }
      const moved = await db.orderViewPush.updateMany({
        where: { quoteHash, version: version - 1 },
        data: { ...data, updatedAt: clock.now() },
      });
      return moved.count === 1;
    },
    async published(quoteHash, version) {
      await db.orderViewPush.updateMany({ where: { quoteHash, version }, data: { pending: Prisma.DbNull } });
    },
    partnerOf,
  };
}

/** The push log of the quote-engine: `order_view_pushes`, and each order's partner from `orders`. */
@Injectable()
export class OrderViewPushRepository implements PushLog {
  private readonly log: PushLog;

  constructor(@Inject(DB) db: PrismaClient, @Inject(OrderRepository) orders: OrderRepository, @Inject(Clock) clock: Clock) {
    this.log = sqlPushLog(db, (h) => orders.partnerOf(h), clock);
  }

  last(quoteHash: string) {
    return this.log.last(quoteHash);
  }

  claim(quoteHash: string, update: OrderUpdate, digest: string) {
    return this.log.claim(quoteHash, update, digest);
  }

  published(quoteHash: string, version: number) {
    return this.log.published(quoteHash, version);
  }

  partnerOf(quoteHash: string) {
    return this.log.partnerOf(quoteHash);
  }
}

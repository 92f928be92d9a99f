import { Inject, Injectable } from '@nestjs/common';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { DB } from '../db.providers';

/** Fulfilment times as the ETA reads them (`fulfillment_samples`; the order events consumer writes them). */
@Injectable()
export class FulfillmentSampleRepository {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  /** The samples fulfilled since `since`, newest first, at most `limit`. */
  since(since: Date, limit: number): Promise<{ srcChain: string; dstChain: string; routeType: string; secs: number }[]> {
    return this.db.fulfillmentSample.findMany({
      where: { fulfilledAt: { gte: since } },
      select: { srcChain: true, dstChain: true, routeType: true, secs: true },
      orderBy: { fulfilledAt: 'desc' },
      take: limit,
    });
  }
}

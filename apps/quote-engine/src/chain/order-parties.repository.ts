import type { PrismaClient } from '@xchain/quote-engine-db';
import { token } from '@xchain/service-kit';
import { partyAddressBytes32 } from '../orders/party-address';
import { ensureOrder } from '../orders/order.repository';

/**
 * The depositor of an order as one of its parties (ListOrders, `order_depositors`), written by the
 * watcher that saw the deposit (the router's `Deposited` depositor; the paying account on Solana).
 * The recipient and the refund address are columns of the order. A deposit a reorg withdraws leaves its depositor listed
 * (the order shows as it is then, `quoted`), as a later deposit by another account adds that one.
 */
export interface OrderParties {
  depositor(quoteHash: string, address: string): Promise<void>;
}

export const ORDER_PARTIES = token<OrderParties>('ORDER_PARTIES');

export function sqlOrderParties(db: PrismaClient): OrderParties {
  return {
    async depositor(quoteHash, address) {
      const bytes = partyAddressBytes32(address);
      if (!bytes) return;
      const raw = Buffer.from(bytes.slice(2), 'hex');
      // A deposit makes the quote an order. Nothing for a quote not stored (a stray deposit): the
      // order view does not know it either.
      if (!(await ensureOrder(db, quoteHash))) return;
      await db.$executeRaw`INSERT INTO order_depositors (quote_hash, address, created_at)
        SELECT quote_hash, ${raw}, created_at FROM orders WHERE quote_hash = ${quoteHash.toLowerCase()}
        ON CONFLICT (quote_hash, address) DO NOTHING`;
    },
  };
}

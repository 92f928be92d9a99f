import { z } from 'zod';
import { defineRpc } from '../rpc';
import { Uint64Input, Uint64String } from '../wire';

/**
 * The sponsorship ledger as the relayer uses it. Amounts are USD micros (decimal strings). Each
 * operation is idempotent per quote: repeating it returns the first outcome and changes nothing.
 */
/** Holds, settles and releases come from the relayer only; the quote-engine reads balances. */
const RELAYER = { access: 'internal', callers: ['gasless-relayer'] } as const;
const QuoteHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/);

export const HoldStatus = z.enum(['held', 'settled', 'released']);
export type HoldStatus = z.infer<typeof HoldStatus>;

export const LedgerHoldSchema = z.object({
  quote_hash: z.string(),
  partner_id: z.string(),
  status: HoldStatus,
  held_usd_micros: Uint64String,
  /** Set once settled: what was charged (at most the amount held). */
  charged_usd_micros: Uint64String.optional(),
  /** The partner's available balance when this answer was made. */
  balance_usd_micros: Uint64String,
});
export type LedgerHold = z.infer<typeof LedgerHoldSchema>;

/** Reserves relay gas of a quote. FAILED_PRECONDITION (INSUFFICIENT_FUNDING) when the balance cannot cover it. */
export const LedgerHoldRpc = defineRpc(
  'ledger.v1.hold',
  z.object({ partner_id: z.string().min(1), quote_hash: QuoteHash, amount_usd_micros: Uint64Input }),
  LedgerHoldSchema,
  RELAYER,
);
/** Charges the actual cost (capped at the hold) and returns the rest to the balance. */
export const LedgerSettleRpc = defineRpc(
  'ledger.v1.settle',
  z.object({ quote_hash: QuoteHash, actual_usd_micros: Uint64Input }),
  LedgerHoldSchema,
  RELAYER,
);
/** Returns the whole hold to the balance (the relay did not happen). */
export const LedgerReleaseRpc = defineRpc('ledger.v1.release', z.object({ quote_hash: QuoteHash }), LedgerHoldSchema, RELAYER);
/** The available balance of a partner, for "is this partner funded" checks. */
export const LedgerBalanceRpc = defineRpc(
  'ledger.v1.balance',
  z.object({ partner_id: z.string().min(1) }),
  z.object({ partner_id: z.string(), balance_usd_micros: Uint64String }),
  { access: 'internal', callers: ['quote-engine'] },
);

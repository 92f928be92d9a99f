import { z } from 'zod';
import { defineRpc } from '../rpc';
import { AmountString, ChainName, Rfc3339 } from '../wire';

const Count = z.number().int().min(0);

export const SettlementReportSchema = z.object({
  /** Per destination (chain, token): the operator wallet's balance, what open fills hold of it, and what is left to quote against. */
  inventory: z.array(
    z.object({
      chain: ChainName,
      token: z.string(),
      /** Absent when the relayer did not answer the balance read. */
      balance: AmountString.optional(),
      reserved: AmountString,
      open_fills: Count,
      available: AmountString.optional(),
    }),
  ),
  /** Open settlements by the step they wait on. */
  open: z.object({ fill: Count, cancel: Count, refund: Count }),
  /** Deposited orders no decision was taken for yet (waiting for an inventory reading, or a chain not filled by the system). */
  undecided: Count,
  /** The oldest deposited order not settled yet: undecided or open. */
  oldest_unsettled: z.object({ quote_hash: z.string(), deposited_at: Rfc3339, age_secs: Count, state: z.string() }).nullable(),
  claims: z.object({ due: Count, batched: Count, claimed: Count, stuck: Count }),
  /**
   * Per source chain and token, over the deposits of the window (`since`, default the last 7 days):
   * deposited = claimed + refunded + open, base units. A Solana deposit is never claimed: it is
   * in the operator's vault already, so a filled one stays in `open`.
   */
  reconciliation: z.array(
    z.object({
      chain: ChainName,
      token: z.string(),
      deposited: AmountString,
      claimed: AmountString,
      refunded: AmountString,
      open: AmountString,
    }),
  ),
  /** Settlements an operator must look at, newest first. */
  stuck: z.array(
    z.object({ quote_hash: z.string(), decision: z.string(), reason: z.string().nullable(), error: z.string().nullable(), since: Rfc3339 }),
  ),
  /**
   * Solana deposits into the vault that matched no retained quote (D16), by state: `open` (to be
   * sent back), `returned`, `stuck` (the return landed with an error); and the stuck ones, newest first.
   */
  stray_deposits: z.object({
    open: Count,
    returned: Count,
    stuck: Count,
    stuck_list: z.array(
      z.object({
        chain: ChainName,
        signature: z.string(),
        memo_index: Count,
        quote_hash: z.string(),
        sender: z.string(),
        mint: z.string(),
        amount: AmountString,
        reason: z.string(),
        error: z.string().nullable(),
        since: Rfc3339,
      }),
    ),
  }),
});
export type SettlementReport = z.infer<typeof SettlementReportSchema>;

/** The operator's view of settlement (`partner-admin settlement`): inventory, reservations, what waits and what is stuck. */
export const SettlementReportRpc = defineRpc(
  'settlement-admin.v1.report',
  z.object({ since: Rfc3339.optional() }),
  SettlementReportSchema,
  { access: 'operator' },
);

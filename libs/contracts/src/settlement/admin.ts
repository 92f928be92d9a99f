import { z } from 'zod';
import { defineRpc } from '../rpc';
import { AmountString, ChainName, Rfc3339 } from '../wire';

const Count = z.number().int().min(0);

/** One move of inventory between chains through CCTP, as the operator sees it. */
export const RebalanceMoveViewSchema = z.object({
  id: z.string(),
  src_chain: ChainName,
  dst_chain: ChainName,
  amount: AmountString,
  /** planned, approved, burned, attested (in flight); received, failed, stuck (ended). */
  state: z.string(),
  /** A burn still waiting for its attestation (or mint) past REBALANCE_STUCK_AFTER_MS: alerted, never burned again. */
  overdue: z.boolean(),
  fee_executed: AmountString.nullable(),
  burn_tx: z.string().nullable(),
  mint_tx: z.string().nullable(),
  error: z.string().nullable(),
  planned_at: Rfc3339,
  /** From planned to received (or to now, while in flight). */
  secs: Count,
});
export type RebalanceMoveView = z.infer<typeof RebalanceMoveViewSchema>;

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
  /**
   * Inventory rebalancing (issue 47), per token of quoting.json's `inventory_targets`: each chain's
   * holdings (filler inventory + claims due + moves on their way in) against its target and
   * threshold shares, the moves in flight and the latest ones ended, with how long each took.
   */
  rebalancing: z.array(
    z.object({
      token: z.string(),
      /** Whether this token is moved automatically (USDC between CCTP's EVM chains), or only shown and alerted on. */
      moved: z.boolean(),
      total: AmountString,
      chains: z.array(
        z.object({
          chain: ChainName,
          holding: AmountString,
          target: AmountString,
          threshold: AmountString,
          below_threshold: z.boolean(),
        }),
      ),
      /** Chains whose filler balance was not read (no reading, or too old): nothing is planned for the token meanwhile. */
      unread: z.array(ChainName),
      moves: z.array(RebalanceMoveViewSchema),
    }),
  ),
});
export type SettlementReport = z.infer<typeof SettlementReportSchema>;

/** The operator's view of settlement (`partner-admin settlement`): inventory, reservations, what waits and what is stuck. */
export const SettlementReportRpc = defineRpc(
  'settlement-admin.v1.report',
  z.object({ since: Rfc3339.optional() }),
  SettlementReportSchema,
  { access: 'operator' },
);

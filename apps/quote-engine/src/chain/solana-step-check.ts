import type { OrderEventType } from '@xchain/contracts';
import type { OrderWire } from '@xchain/order-codec';
import { type OrderStep, SOL, type SvmOrderTerms, type SvmTransfer, associatedTokenAccount, svmOrderTerms } from '@xchain/svm-orders';
import type { StrayReason } from '../settlement/stray-deposits.repository';

export type { StrayReason };

/** The stored quote a step names, as the quote-engine's database holds it. */
export interface StoredQuote {
  srcChain: string;
  dstChain: string;
  order: OrderWire;
  /** The end of retention (D16): a deposit that lands after it is not processed, but returned. */
  retainedUntil: Date;
}

/** A refused deposit carries `stray`: the reason it would be returned if it paid the vault. */
export type StepCheck = { ok: true; type: OrderEventType; amount: bigint } | { ok: false; reason: string; stray?: StrayReason };

export interface StepContext {
  /** Registry name of the Solana chain the step was read on. */
  chain: string;
  /** Accounts whose signature makes a payment a fill (SOLANA_FILLER_ACCOUNTS). */
  fillers: ReadonlySet<string>;
  /** Block time of the transaction, unix seconds: a deposit after the quote's retention is refused. */
  blockTime?: number;
}

const TYPES = { deposit: 'deposited', fill: 'fulfilled', refund: 'refunded' } as const;

/** Where an owner's `token` lands: the wallet itself for SOL, its associated token account for SPL. */
const accountOf = (owner: string, token: string) => (token === SOL ? owner : associatedTokenAccount(owner, token).toBase58());
const sum = (transfers: readonly SvmTransfer[]) => transfers.reduce((a, t) => a + t.amount, 0n);

/**
 * Whether a step read on chain is what its quote promised; only a step that is becomes an order
 * event. The chain says what moved, the stored order what should have:
 * - deposit: on the quote's source chain, the one transfer is `amount_in` of the source token into
 *   the order's vault (its associated token account for SPL), in a block within the quote's retention;
 * - fill: on the destination chain, a filler paid the recipient at least `min_amount_out` of the
 *   destination token, and at least `gas_drop` lamports on top when the order asks for it;
 * - refund: on the source chain, the vault paid `refund_address` the deposited `amount_in`.
 */
export function checkSolanaStep(step: OrderStep, quote: StoredQuote | undefined, ctx: StepContext): StepCheck {
  // Only a deposit is ever returned: a fill or refund that does not match moved the operator's own funds.
  const no = (reason: string, stray: StrayReason = 'MISMATCH'): StepCheck =>
    step.kind === 'deposit' ? { ok: false, reason, stray } : { ok: false, reason };
  if (!quote) return no('no such quote', 'NO_QUOTE');
  let terms: SvmOrderTerms;
  try {
    terms = svmOrderTerms(quote.order);
  } catch (err) {
    return no(`the stored order is unreadable: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (terms.quoteHash !== step.quoteHash) return no('the stored order does not hash to the quote hash');
  const type = TYPES[step.kind];
  if (step.kind === 'deposit' || step.kind === 'refund') {
    if (quote.srcChain !== ctx.chain) return no(`a ${step.kind} on ${ctx.chain}, but the quote's source chain is ${quote.srcChain}`);
    const t = step.transfers[0];
    if (!t || step.transfers.length !== 1) return no(`a ${step.kind} moves exactly one transfer`);
    if (t.mint !== terms.srcToken) return no(`moved ${t.mint}, the order's source token is ${terms.srcToken}`, 'WRONG_TOKEN');
    if (t.amount !== terms.amountIn) return no(`moved ${t.amount}, the order's amount_in is ${terms.amountIn}`, 'WRONG_AMOUNT');
    if (step.kind === 'deposit') {
      if (t.to !== accountOf(terms.depositTarget, terms.srcToken)) return no(`paid ${t.to}, not the vault ${terms.depositTarget}`);
      if (ctx.blockTime !== undefined && ctx.blockTime * 1000 > quote.retainedUntil.getTime()) {
        return no(
          `landed at ${new Date(ctx.blockTime * 1000).toISOString()}, after the quote's retention ended at ${quote.retainedUntil.toISOString()}`,
          'AFTER_RETENTION',
        );
      }
    } else {
      if (t.authority !== terms.depositTarget)
        return { ok: false, reason: `signed by ${t.authority}, not the vault ${terms.depositTarget}` };
      if (t.to !== accountOf(terms.refundAddress, terms.srcToken))
        return { ok: false, reason: `paid ${t.to}, not refund_address ${terms.refundAddress}` };
    }
    return { ok: true, type, amount: t.amount };
  }
  if (quote.dstChain !== ctx.chain)
    return { ok: false, reason: `a fill on ${ctx.chain}, but the quote's destination chain is ${quote.dstChain}` };
  const toRecipient = (token: string) =>
    step.transfers.filter((t) => t.mint === token && t.to === accountOf(terms.recipient, token) && ctx.fillers.has(t.authority));
  const paidSol = sum(toRecipient(SOL));
  let delivered: bigint;
  if (terms.dstToken === SOL) {
    if (paidSol < terms.minAmountOut + terms.gasDrop)
      return {
        ok: false,
        reason: `a filler paid the recipient ${paidSol} lamports, below min_amount_out + gas_drop ${terms.minAmountOut + terms.gasDrop}`,
      };
    delivered = paidSol - terms.gasDrop;
  } else {
    delivered = sum(toRecipient(terms.dstToken));
    if (delivered < terms.minAmountOut)
      return {
        ok: false,
        reason: `a filler paid the recipient ${delivered} of ${terms.dstToken}, below min_amount_out ${terms.minAmountOut}`,
      };
    if (paidSol < terms.gasDrop)
      return { ok: false, reason: `a filler paid a gas drop of ${paidSol} lamports, below gas_drop ${terms.gasDrop}` };
  }
  return { ok: true, type, amount: delivered };
}

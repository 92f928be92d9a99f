import type { OrderWire, Quote } from '@xchain/contracts';
import { depositTx } from '@xchain/evm-gasless';
import { orderFromWire } from '@xchain/order-codec';
import type { Address } from 'viem';
import { rfc3339 } from './quote-wire';

/**
 * A stored quote keeps its order once, in the `order` column, not a second time inside
 * `response`: the order is a quarter of the row, and PostgreSQL's cost per stored quote (JSON
 * parsing, compression, WAL) follows its size. Readers put it back with `storedResponse`. Rows written before this change still carry it
 * inside `response`; the column's copy is the same order, so either reads the same.
 *
 * Nor does it keep `deposit_tx.data`: that is `deposit(order)`'s calldata, the router's selector
 * and the order's ABI words, 1,482 characters of hex and more than half of what `response` held.
 * `storedResponse` encodes it again from the order column, as the quote-engine did when it
 * answered, which is cheaper than storing it.
 *
 * `retained_until` is left out too: the row's column holds it (rows stored before the quote
 * carried it get it from there as well). So are the fields that repeat the order or the row
 * (issue 45): `quote_hash` (the row's key), `amount_in`, `amount_out`, `min_amount_out`,
 * `slippage_bps` and `expires_at` (the order's, as the answer wrote them), each only when it is
 * exactly what `storedResponse` puts back; a row is then about a tenth smaller, which is what
 * brings a day of quotes to six rows a page.
 */
export function responseForStorage(quote: Quote): unknown {
  if ('cross_chain' in quote) return { cross_chain: contentForStorage(quote.cross_chain) };
  return { same_chain_swap: contentForStorage(quote.same_chain_swap) };
}

/** The quote as it was answered, from a stored row's `response`, `order`, `retained_until` and `quote_hash`. */
export function storedResponse(response: unknown, order: unknown, retainedUntil: Date, quoteHash: string): Quote {
  const stored = response as Record<'cross_chain' | 'same_chain_swap', Record<string, unknown> | undefined>;
  const columns = { order: order as OrderWire, retained_until: rfc3339(retainedUntil) };
  if (stored.cross_chain) return { cross_chain: answeredContent(stored.cross_chain, columns, quoteHash) } as Quote;
  return { same_chain_swap: answeredContent(stored.same_chain_swap!, columns, quoteHash) } as Quote;
}

type QuoteContent = {
  quote_hash: string;
  order: OrderWire;
  retained_until?: string;
  deposit_tx?: { to: string; data: string; value: string };
};

/** What an answer's fields that repeat the order or the row's key were, as it wrote them. */
function repeated(order: OrderWire, quoteHash: string): Record<string, unknown> {
  return {
    quote_hash: quoteHash,
    amount_in: order.amount_in,
    amount_out: order.amount_out,
    min_amount_out: order.min_amount_out,
    slippage_bps: Number(order.slippage_bps),
    expires_at: rfc3339(new Date(Number(order.expires_at) * 1000)),
  };
}

/** The stored field naming which repeats were left out: bit i for the i-th field of `repeated`. */
const LEFT_OUT = '~';

function contentForStorage({ order, retained_until: _retainedUntil, ...rest }: QuoteContent): unknown {
  const kept: Record<string, unknown> = { ...rest };
  let mask = 0;
  for (const [i, [key, value]] of Object.entries(repeated(order, rest.quote_hash)).entries())
    if (key in kept && JSON.stringify(kept[key]) === JSON.stringify(value)) {
      delete kept[key];
      mask |= 1 << i;
    }
  if (mask) kept[LEFT_OUT] = mask;
  if (!rest.deposit_tx) return kept;
  const { data: _data, ...call } = rest.deposit_tx;
  return { ...kept, deposit_tx: call };
}

function answeredContent(
  stored: Record<string, unknown>,
  columns: { order: OrderWire; retained_until: string },
  quoteHash: string,
): Record<string, unknown> {
  // Put back what was left out as a repeat (rows stored before that have no mask and every field).
  const { [LEFT_OUT]: leftOut, ...rest } = stored;
  const mask = typeof leftOut === 'number' ? leftOut : 0;
  const back: Record<string, unknown> = {};
  if (mask) for (const [i, [key, value]] of Object.entries(repeated(columns.order, quoteHash)).entries()) if (mask & (1 << i)) back[key] = value;
  stored = rest;
  const call = stored['deposit_tx'] as { to: string; data?: string; value: string } | undefined;
  // A row written before the calldata was left out still has it; it is the same bytes.
  if (!call || call.data !== undefined) return { ...back, ...stored, ...columns };
  const { data } = depositTx(orderFromWire(columns.order).order, call.to as Address);
  return { ...back, ...stored, deposit_tx: { to: call.to, data, value: call.value }, ...columns };
}

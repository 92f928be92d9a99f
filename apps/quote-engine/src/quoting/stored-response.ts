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
 * (issue 45): `quote_hash` (the row's key), `amount_in`, `amount_out`, `min_amount_out` and
 * `slippage_bps` (the order's, as the answer wrote them), each only when it is exactly what
 * `storedResponse` puts back; a row is then about a tenth smaller, which is what brings a day of
 * quotes to six rows a page.
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

/**
 * The answer's fields that repeat the order or the row's key, in a fixed order (bit i of the
 * stored mask is the i-th), each with what it was in the answer: plain strings and numbers, so the
 * comparison is `===`.
 */
const REPEATED = ['quote_hash', 'amount_in', 'amount_out', 'min_amount_out', 'slippage_bps'] as const;
type Repeated = (typeof REPEATED)[number];
const REPEATED_BIT: Record<string, number | undefined> = Object.fromEntries(REPEATED.map((k, i) => [k, i]));

function repeatedValue(key: Repeated, order: OrderWire, quoteHash: string): string | number {
  switch (key) {
    case 'quote_hash':
      return quoteHash;
    case 'slippage_bps':
      return Number(order.slippage_bps);
    default:
      return order[key];
  }
}

/** The stored field naming which repeats were left out: bit i for REPEATED[i]. */
const LEFT_OUT = '~';

/** One pass over the answer's fields: no copy to delete from, no serialisation to compare (GetQuote pays this per quote). */
function contentForStorage(content: QuoteContent): unknown {
  const kept: Record<string, unknown> = {};
  let mask = 0;
  for (const key in content) {
    if (key === 'order' || key === 'retained_until') continue;
    const value = (content as unknown as Record<string, unknown>)[key];
    const bit = REPEATED_BIT[key];
    if (bit !== undefined && value === repeatedValue(key as Repeated, content.order, content.quote_hash)) {
      mask |= 1 << bit;
      continue;
    }
    if (key === 'deposit_tx' && content.deposit_tx) {
      const { data: _data, ...call } = content.deposit_tx;
      kept[key] = call;
      continue;
    }
    kept[key] = value;
  }
  if (mask) kept[LEFT_OUT] = mask;
  return kept;
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
  if (mask) REPEATED.forEach((key, i) => mask & (1 << i) && (back[key] = repeatedValue(key, columns.order, quoteHash)));
  stored = rest;
  const call = stored['deposit_tx'] as { to: string; data?: string; value: string } | undefined;
  // A row written before the calldata was left out still has it; it is the same bytes.
  if (!call || call.data !== undefined) return { ...back, ...stored, ...columns };
  const { data } = depositTx(orderFromWire(columns.order).order, call.to as Address);
  return { ...back, ...stored, deposit_tx: { to: call.to, data, value: call.value }, ...columns };
}

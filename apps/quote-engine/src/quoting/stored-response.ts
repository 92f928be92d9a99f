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
 * carried it get it from there as well).
 */
export function responseForStorage(quote: Quote): unknown {
  if ('cross_chain' in quote) return { cross_chain: contentForStorage(quote.cross_chain) };
  return { same_chain_swap: contentForStorage(quote.same_chain_swap) };
}

/** The quote as it was answered, from a stored row's `response`, `order` and `retained_until` columns. */
export function storedResponse(response: unknown, order: unknown, retainedUntil: Date): Quote {
  const stored = response as Record<'cross_chain' | 'same_chain_swap', Record<string, unknown> | undefined>;
  const columns = { order: order as OrderWire, retained_until: rfc3339(retainedUntil) };
  if (stored.cross_chain) return { cross_chain: answeredContent(stored.cross_chain, columns) } as Quote;
  return { same_chain_swap: answeredContent(stored.same_chain_swap!, columns) } as Quote;
}

type QuoteContent = { order: OrderWire; retained_until?: string; deposit_tx?: { to: string; data: string; value: string } };

function contentForStorage({ order: _order, retained_until: _retainedUntil, ...rest }: QuoteContent): unknown {
  if (!rest.deposit_tx) return rest;
  const { data: _data, ...call } = rest.deposit_tx;
  return { ...rest, deposit_tx: call };
}

function answeredContent(stored: Record<string, unknown>, columns: { order: OrderWire; retained_until: string }): Record<string, unknown> {
  const call = stored['deposit_tx'] as { to: string; data?: string; value: string } | undefined;
  // A row written before the calldata was left out still has it; it is the same bytes.
  if (!call || call.data !== undefined) return { ...stored, ...columns };
  const { data } = depositTx(orderFromWire(columns.order).order, call.to as Address);
  return { ...stored, deposit_tx: { to: call.to, data, value: call.value }, ...columns };
}

import { Inject, Injectable } from '@nestjs/common';
import { DependencyOutage, type DependencyOutages, serviceDependency } from '@xchain/messaging';
import {
  GetGaslessOrderRpc,
  RpcError,
  type GaslessOrderView,
  type OrderEventType,
  type OrderStatus,
  type OrderStatusValue,
  type RefundReason,
} from '@xchain/contracts';
import { type Hex, fromBytes32 } from '@xchain/order-codec';
import type { Logger } from '@xchain/telemetry';
import { decodePageCursor, encodePageCursor, invalidCursor, pageSizeOf, token } from '@xchain/service-kit';
import { rfc3339 } from '../quoting/quote-wire';
import { orderAccounting } from './order-accounting';
import { EXPORT_PAGE_SIZE, exportRow } from './order-export';
import { partyAddressBytes32 } from './party-address';
import type { StoredOrder } from './order-records';
import { storedStatus, viewStatus } from './order-status';

export type { StoredOrder } from './order-records';

/** An order event as recorded (at most one per type). */
export interface RecordedOrderEvent {
  type: OrderEventType;
  chain: string;
  txHash: string;
  blockNumber: bigint | null;
  occurredAt: Date;
  /** Base units the step moved, as the chain showed them (absent on older events). */
  amount?: string | null;
  /** A fulfilment on an EVM router: where the tokens went (absent on older events and on Solana). */
  recipient?: string | null;
}

/** The settlement decided for a deposited order (D15), in the view's words. */
export interface RecordedSettlement {
  decision: 'fill' | 'refund';
  reason?: RefundReason;
}

/** A gasless relay that failed for good, as recorded from the relayer's status event (D18). */
export interface RecordedFailure {
  /** The stable reason code the relayer's error starts with. */
  reason: string;
  /** The relayer's error, whole. */
  message: string;
  at: Date;
}

/** The reason of a relay failure whose error carries no reason code of its own. */
export const RELAY_FAILED = 'RELAY_FAILED';

/** The stable reason code a relayer error starts with (`SIMULATION_REVERTED: …`), else RELAY_FAILED. */
export function failureReasonOf(error: string | undefined): string {
  const code = error?.match(/^([A-Z][A-Z0-9_]*)(:|$)/)?.[1];
  return code ?? RELAY_FAILED;
}

/** A stored quote with what was recorded of it. */
export interface OrderRecord {
  order: StoredOrder;
  events: RecordedOrderEvent[];
  settlement?: RecordedSettlement;
  /** The relay failure of a gasless order, once recorded (D18). */
  failure?: RecordedFailure;
}

/** Where a page of a partner's orders starts: after this quote, in (created_at, quote_hash) descending order. */
export interface OrderPosition {
  createdAt: Date;
  quoteHash: string;
}

/** The filters every order list takes: `chain` as source or destination, `status` as the view states it at `now`. */
export interface OrderPageQuery {
  chain?: string;
  /** The status, and the clock it is read by: a stored `quoted` order past `retained_until` is `expired`. */
  status?: { value: OrderStatusValue; now: Date };
  after?: OrderPosition;
  retainedAfter: Date;
  limit: number;
}

export interface OrderRecords {
  /** The stored quote, its recorded events and its settlement decision; undefined when there is no such quote. */
  find(quoteHash: string): Promise<OrderRecord | undefined>;
  /** Up to `limit` of a partner's quotes retained past `retainedAfter`, newest first, after `after`, filtered. */
  partnerPage(query: OrderPageQuery & { partnerId: string }): Promise<OrderRecord[]>;
}

/** The reads only ListOrders and the partner export need. */
export interface OrderListRecords {
  /** Like `partnerPage`, for the orders one party (bytes32 address) deposited, receives or is refunded. */
  addressPage(query: OrderPageQuery & { address: string }): Promise<OrderRecord[]>;
  /** Where the export of `partnerPage` resumes after `skip` more orders than `after`; undefined when no more follow. */
  partnerPositionAfter(query: OrderPageQuery & { partnerId: string; skip: number }): Promise<OrderPosition | undefined>;
}

/** The filters and page a list operation was asked for. */
export interface OrderListRequest {
  chain?: string | undefined;
  status?: OrderStatusValue | undefined;
  cursor?: string | undefined;
  page_size?: number | undefined;
}

/** Opaque to clients: `['o1', created_at ms, quote_hash]`. */
export function encodeOrderCursor(p: OrderPosition): string {
  return encodePageCursor('o1', [p.createdAt.getTime(), p.quoteHash]);
}

export function decodeOrderCursor(cursor: string): OrderPosition {
  const [at, quoteHash] = decodePageCursor('o1', cursor, 2);
  if (!Number.isSafeInteger(at) || typeof quoteHash !== 'string' || !/^0x[0-9a-f]{64}$/.test(quoteHash)) throw invalidCursor();
  return { createdAt: new Date(at as number), quoteHash };
}

/** The relayer's view of a gasless order: undefined when it was never submitted; throws when the relayer cannot answer. */
export interface GaslessLookup {
  get(quoteHash: string): Promise<GaslessOrderView | undefined>;
}

export interface OrderViewDeps {
  records: OrderRecords;
  /** ListOrders and the export (the repository in the service; views alone need none). */
  lists?: OrderListRecords;
  gasless: GaslessLookup;
  now: () => Date;
  /** How long past `retained_until` the view is still served (QUOTE_GRACE_SECS), so its `expired` can be read and pushed. */
  graceMs: number;
  /** The VM of a registry chain (how its bytes32 addresses read); undefined for an unknown chain. */
  vmOf: (chain: string) => 'evm' | 'svm' | undefined;
  /** Throws INVALID_ARGUMENT naming `field` when a list's `chain` filter names no registry chain (RegistryCache.knownChain). */
  assertChain: (chain: string, field: string) => void;
  log: Pick<Logger, 'info' | 'warn'>;
  /** The process's dependency outages: the relayer's is shared with settlement and the consumers (one warning per outage). */
  outages?: Pick<DependencyOutages, 'of'>;
}

export const ORDER_VIEW_DEPS = token<OrderViewDeps>('ORDER_VIEW_DEPS');

/**
 * The order view (D12): the terms of a stored quote, what the chains showed of it (deposit,
 * fulfilment, refund) and, for a gasless order, the relayer's state. The relayer is optional to
 * the view: when it cannot answer, the view is served without `gasless`. A quote never deposited
 * is `expired` once its retention ended (D16), and every view is served for `graceMs` after that.
 */
@Injectable()
export class OrderViewService {
  private readonly relayer: Pick<DependencyOutage, 'failed' | 'succeeded'>;

  constructor(@Inject(ORDER_VIEW_DEPS) private readonly deps: OrderViewDeps) {
    const name = serviceDependency(GetGaslessOrderRpc);
    this.relayer = deps.outages?.of(name) ?? new DependencyOutage(deps.log, name);
  }

  /**
   * `requireGasless`: a gasless order's view needs the relayer's answer (a push must not show a
   * view that merely lacks it while the relayer is down); throws UNAVAILABLE instead. `skipGasless`:
   * the view without the relayer's part (a quote the relayer never took).
   */
  async get(quoteHash: string, opts: { requireGasless?: boolean; skipGasless?: boolean } = {}): Promise<OrderStatus> {
    const now = this.deps.now().getTime();
    const found = await this.deps.records.find(quoteHash.toLowerCase());
    // Past the grace the quote is gone, even if the purge has not deleted it yet.
    if (!found || found.order.retainedUntil.getTime() + this.deps.graceMs < now)
      throw RpcError.notFound(`no retained quote ${quoteHash}`, 'QUOTE_NOT_FOUND');
    return this.view(found, now, opts.skipGasless ? 'skip' : (opts.requireGasless ?? false));
  }

  /**
   * A partner's orders (quoted with its API keys), newest first, each as its view; a page ends
   * with a cursor when more follow. Served while a view is (retention plus the grace).
   */
  async listForPartner(partnerId: string, query: OrderListRequest): Promise<{ orders: OrderStatus[]; next_cursor: string }> {
    return this.list(query, (q) => this.deps.records.partnerPage({ ...q, partnerId }));
  }

  /**
   * The orders an address deposited, receives or is refunded (ListOrders), newest first, each as
   * its view; `address` in either chain's format, read as the bytes32 the order holds.
   */
  async listForAddress(address: string, query: OrderListRequest): Promise<{ orders: OrderStatus[]; next_cursor: string }> {
    const bytes32 = partyAddressBytes32(address);
    if (!bytes32)
      throw RpcError.invalidArgument(
        [{ field: 'address', description: 'is not an EVM address, a Solana base58 key or a bytes32 hex' }],
        'INVALID_ADDRESS',
      );
    return this.list(query, (q) => this.lists().addressPage({ ...q, address: bytes32 }));
  }

  /**
   * One page of a partner's orders as accounting rows (PARTNER_ORDER_CSV_COLUMNS); asked with
   * `max_rows`, also where an export of that many rows resumes.
   */
  async exportForPartner(
    partnerId: string,
    query: OrderListRequest & { max_rows?: number | undefined },
  ): Promise<{ rows: string[][]; next_cursor: string; resume_cursor?: string }> {
    const now = this.deps.now();
    const base = this.pageQuery(query, now);
    const limit = Math.min(query.page_size ?? EXPORT_PAGE_SIZE, EXPORT_PAGE_SIZE);
    const records = await this.deps.records.partnerPage({ ...base, partnerId, limit: limit + 1 });
    const page = records.slice(0, limit);
    const rows = await Promise.all(
      // The rows carry no relay state: no call to the relayer per gasless order.
      page.map(async (r) => exportRow(await this.view(r, now.getTime(), 'skip'), r.order, (chain, b) => this.address(chain, b))),
    );
    const last = page.at(-1);
    const next_cursor = records.length > limit && last ? encodeOrderCursor(last.order) : '';
    if (!query.max_rows) return { rows, next_cursor };
    const resume = await this.lists().partnerPositionAfter({ ...base, partnerId, skip: query.max_rows - 1, limit: 1 });
    return { rows, next_cursor, resume_cursor: resume ? encodeOrderCursor(resume) : '' };
  }

  private lists(): OrderListRecords {
    if (!this.deps.lists) throw new Error('OrderViewDeps.lists is not provided');
    return this.deps.lists;
  }

  /** The filters of every list; an unknown chain is refused, not answered with an empty page. */
  private pageQuery(query: OrderListRequest, now: Date): Omit<OrderPageQuery, 'limit'> {
    if (query.chain) this.deps.assertChain(query.chain, 'chain');
    const after = query.cursor ? decodeOrderCursor(query.cursor) : undefined;
    return {
      ...(query.chain ? { chain: query.chain } : {}),
      ...(query.status ? { status: { value: query.status, now } } : {}),
      ...(after ? { after } : {}),
      retainedAfter: new Date(now.getTime() - this.deps.graceMs),
    };
  }

  private async list(
    query: OrderListRequest,
    read: (q: OrderPageQuery) => Promise<OrderRecord[]>,
  ): Promise<{ orders: OrderStatus[]; next_cursor: string }> {
    const now = this.deps.now();
    const limit = pageSizeOf(query.page_size);
    const rows = await read({ ...this.pageQuery(query, now), limit: limit + 1 });
    const page = rows.slice(0, limit);
    const orders = await Promise.all(page.map((r) => this.view(r, now.getTime(), false)));
    const last = page.at(-1);
    return { orders, next_cursor: rows.length > limit && last ? encodeOrderCursor(last.order) : '' };
  }

  /** `gaslessPart`: `skip` leaves the relayer's part out (the export); true fails without it; false adds it when the relayer answers. */
  private async view(found: OrderRecord, now: number, gaslessPart: boolean | 'skip'): Promise<OrderStatus> {
    const { order: stored, events, settlement } = found;
    const content = 'cross_chain' in stored.response ? stored.response.cross_chain : stored.response.same_chain_swap;
    const step = (type: OrderEventType) => {
      const e = events.find((x) => x.type === type);
      // block_number is required by the view; events from before it was carried show 0 (unknown).
      return e
        ? { chain: e.chain, tx_hash: e.txHash, block_number: (e.blockNumber ?? 0n).toString(), at: rfc3339(e.occurredAt) }
        : undefined;
    };
    const amountOf = (type: OrderEventType) => events.find((x) => x.type === type)?.amount ?? undefined;
    const deposit = step('deposited');
    const filled = step('fulfilled');
    const call = 'cross_chain' in stored.response ? stored.response.cross_chain.destination_call : undefined;
    const fulfillment = filled && {
      ...filled,
      ...(amountOf('fulfilled') ? { amount: amountOf('fulfilled')! } : {}),
      ...(call ? { destination_call: callOutcome(call.target, events.find((x) => x.type === 'fulfilled')?.recipient) } : {}),
    };
    const refunded = step('refunded');
    // A refund the system did not decide was sent by the operator's hand.
    const refund = refunded && {
      ...refunded,
      token: this.address(stored.srcChain, stored.order.src_token),
      ...(amountOf('refunded') ? { amount: amountOf('refunded')! } : {}),
      reason: settlement?.decision === 'refund' && settlement.reason ? settlement.reason : ('OPERATOR' as const),
    };
    const gasless = stored.gasless && gaslessPart !== 'skip' ? await this.relayerView(stored.quoteHash, gaslessPart) : undefined;
    // D18: a relay that failed for good, as recorded from the relayer's status event (so every read
    // and push agrees, the relayer up or not). What the chains show comes first: a deposit seen is never `failed`.
    const failure = found.failure;
    const status = viewStatus(storedStatus(new Set(events.map((e) => e.type)), Boolean(failure)), stored.retainedUntil, now);
    const received = status === 'fulfilled' ? fulfillment?.amount : undefined;
    const returned = status === 'refunded' ? refund?.amount : undefined;
    const accounting =
      received !== undefined
        ? orderAccounting(content.amount_in, content.fee_breakdown, { kind: 'fulfilled', received })
        : returned !== undefined
          ? orderAccounting(content.amount_in, content.fee_breakdown, { kind: 'refunded', refunded: returned })
          : undefined;
    return {
      quote_hash: stored.quoteHash,
      status,
      terminal: status === 'fulfilled' || status === 'refunded' || status === 'expired' || status === 'failed',
      src_chain: stored.srcChain,
      dst_chain: stored.dstChain,
      src_token: this.address(stored.srcChain, stored.order.src_token),
      dst_token: this.address(stored.dstChain, stored.order.dst_token),
      amount_in: content.amount_in,
      amount_out: content.amount_out,
      min_amount_out: content.min_amount_out,
      quoted_at: rfc3339(stored.createdAt),
      expires_at: rfc3339(stored.expiresAt),
      retained_until: rfc3339(stored.retainedUntil),
      ...(content.fulfill_eta_secs ? { fulfill_eta_secs: content.fulfill_eta_secs } : {}),
      ...(deposit ? { deposit } : {}),
      ...(fulfillment ? { fulfillment } : {}),
      ...(refund ? { refund } : {}),
      ...(settlement ? { settlement } : {}),
      ...(status === 'failed' && failure ? { failure: { reason: failure.reason, message: failure.message, at: rfc3339(failure.at) } } : {}),
      ...(gasless ? { gasless } : {}),
      ...(content.fee_breakdown ? { fee_breakdown: content.fee_breakdown } : {}),
      ...(accounting ? { accounting } : {}),
    };
  }

  /** The token as the request named it: the order holds it as bytes32 (EIP-55 on EVM chains, base58 on Solana). */
  private address(chain: string, bytes32: string): string {
    const vm = this.deps.vmOf(chain);
    if (!vm) throw RpcError.unavailable(`chain ${chain} is not in the registry`, 'UNKNOWN_CHAIN');
    return fromBytes32(vm, bytes32 as Hex);
  }

  /** Logs an outage once when it starts and once when it ends, not on every view served meanwhile. */
  private async relayerView(quoteHash: string, required: boolean): Promise<GaslessOrderView | undefined> {
    try {
      const view = await this.deps.gasless.get(quoteHash);
      this.relayer.succeeded();
      return view;
    } catch (err) {
      this.relayer.failed(err);
      if (required) throw RpcError.unavailable('the gasless relayer does not answer', 'RELAYER_UNAVAILABLE', 2);
      return undefined;
    }
  }
}

/**
 * Whether an order's destination call ran: the router's `Filled` names where the tokens went, the
 * target when its call succeeded, the recipient (the fallback, never the target) when it reverted.
 */
function callOutcome(target: string, recipient: string | null | undefined): { target: string; status: 'executed' | 'fell_back' } {
  return { target, status: recipient && recipient.toLowerCase() === target.toLowerCase() ? 'executed' : 'fell_back' };
}

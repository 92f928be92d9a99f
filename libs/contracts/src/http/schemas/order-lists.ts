import { z } from 'zod';
import { defineRpc } from '../../rpc';
import { ChainName, Uint32Input } from '../../wire';
import { FeeComponentSchema } from '../../quoting/quote-response';
import { OrderStatusSchema, OrderStatusValue } from './order-status';

/** Filters and page of ListOrders: `address` is required, so a keyless caller reads one party's orders, never the whole book. */
export const ListOrdersQuery = z.object({
  address: z.string().min(1).max(100).meta({
    description:
      'An EVM address (any case), a Solana base58 key, or the bytes32 hex an order holds: orders it deposited, receives (`recipient`) or is refunded to (`refund_address`).',
  }),
  chain: ChainName.optional().meta({ description: 'Only orders whose source or destination is this chain.' }),
  status: OrderStatusValue.optional().meta({ description: 'Only orders in this status (as the order view states it now).' }),
  cursor: z.string().optional().meta({ description: 'Opaque cursor from a previous page.' }),
  page_size: Uint32Input.optional().meta({ description: 'Orders per page (default 50, at most 200).' }),
});

export const ListOrdersResponse = z
  .object({ orders: z.array(OrderStatusSchema), next_cursor: z.string() })
  .meta({ id: 'ListOrdersResponse' });

/** The orders an address deposited, receives or is refunded, newest first, each as its order view; served by the quote-engine. */
export const ListOrdersRpc = defineRpc('order.v1.list_orders', ListOrdersQuery, ListOrdersResponse, { access: 'public' });

/** The fee components a quote states, each an export column `fee_<name>` (base units of the asset of its side). */
export const EXPORT_FEE_NAMES = FeeComponentSchema.shape.name.options;

/** The columns of the partner order export, in order; every amount in base units of its token. */
export const PARTNER_ORDER_CSV_COLUMNS: readonly string[] = [
  'quote_hash',
  'created_at',
  'status',
  'src_chain',
  'dst_chain',
  'src_token',
  'dst_token',
  'amount_in',
  'amount_out',
  'min_amount_out',
  'received',
  'refunded',
  'gas_drop',
  'gasless',
  'sponsor_fees',
  'sponsor_gas',
  ...EXPORT_FEE_NAMES.map((n) => `fee_${n}`),
  'fees_src_usd_micros',
  'fees_dst_usd_micros',
  'src_gas_native',
  'dst_gas_native',
  'fee_components',
  'referrer_payouts',
  'deposit_tx',
  'fulfillment_tx',
  'refund_tx',
  'refund_reason',
];

/** Filters of the CSV export: those of ListPartnerOrders; `cursor` resumes an export cut at its row limit. */
export const PartnerOrdersExportQuery = z.object({
  chain: ChainName.optional().meta({ description: 'Only orders whose source or destination is this chain.' }),
  status: OrderStatusValue.optional().meta({ description: 'Only orders in this status (as the order view states it now).' }),
  cursor: z.string().optional().meta({ description: 'Where to resume: the `x-next-cursor` header of an export cut at its row limit.' }),
});

/** One page of the export, as the gateway asks for it (it writes the CSV). */
export const PartnerOrdersExportRequest = PartnerOrdersExportQuery.extend({
  page_size: Uint32Input.optional(),
  /** On the first page: the export's row limit, for `resume_cursor`. */
  max_rows: Uint32Input.optional(),
});

export const PartnerOrdersExportPage = z
  .object({
    /** One array per order, aligned with PARTNER_ORDER_CSV_COLUMNS. */
    rows: z.array(z.array(z.string())),
    next_cursor: z.string(),
    /** With `max_rows`: where the export resumes when more than `max_rows` orders match; empty when they all fit. */
    resume_cursor: z.string().optional(),
  })
  .meta({ id: 'PartnerOrdersExportPage' });

/** The partner's orders as accounting rows, a page at a time; the gateway streams them as CSV. */
export const ExportPartnerOrdersRpc = defineRpc('order.v1.export_partner_orders', PartnerOrdersExportRequest, PartnerOrdersExportPage, {
  access: 'partner',
});

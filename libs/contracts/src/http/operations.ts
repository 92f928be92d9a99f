import { z } from 'zod';
import { ListChainsResponse } from '../registry/chain';
import { ListTokensResponse } from '../registry/token';
import { GetQuoteRequest, PreviewQuoteRequest } from '../quoting/quote-request';
import { QuotePreviewSchema, QuoteSchema } from '../quoting/quote-response';
import { GetQuoteRpc, PreviewQuoteRpc } from '../quoting/subjects';
import { ListChainsRpc, ListTokensRpc } from '../registry/subjects';
import { SubmitGaslessOrderRpc } from '../gasless/subjects';
import {
  BuildPartnerFundingRpc,
  BuildVoucherRedemptionRpc,
  CreatePartnerKeyRpc,
  DisablePartnerKeyRpc,
  GetPartnerFundingRpc,
  GetPartnerReferralsRpc,
  GetPartnerRpc,
  ListPartnerFundingEntriesRpc,
  ListPartnerVouchersRpc,
  RevokePartnerSessionRpc,
} from '../partners/subjects';
import { defineOperation, type HttpOperation } from './operation';
import { GaslessOrderResultSchema, SubmitGaslessOrderRequest } from './schemas/gasless';
import { GetOrderPathParams, GetOrderRpc, ListPartnerOrdersRpc, OrderStatusSchema, PartnerOrdersQuery, PartnerOrdersResponse } from './schemas/order-status';
import {
  ApiKeySchema,
  BuildPartnerFundingRequest,
  BuildVoucherRedemptionRequest,
  CreateKeyRequest,
  CreatedKeySchema,
  FundingEntriesQuery,
  FundingEntriesResponse,
  FundingTransactionSchema,
  IdPathParam,
  PartnerFundingSchema,
  PartnerSchema,
  ReferralGroupSchema,
  ReferralsQuery,
  VoucherSchema,
} from './schemas/partner';
import {
  CreatedWebhookSchema,
  DeletePartnerWebhookRpc,
  GetPartnerWebhookRpc,
  ListWebhookDeliveriesRpc,
  SetPartnerWebhookRpc,
  SetWebhookRequest,
  WebhookDeliveriesQuery,
  WebhookDeliveriesResponse,
  WebhookSchema,
} from '../partners/webhooks';

const EmptyObject = z.object({}).meta({ id: 'Empty' });

/** Every operation of the public interface (interface.md and decisions D8), in document order. */
export const HTTP_OPERATIONS = [
  defineOperation({
    operationId: 'ListTokens',
    rpc: ListTokensRpc,
    method: 'GET',
    path: '/v1/tokens',
    summary: 'Lists the tokens the service supports.',
    auth: 'none',
    tag: 'registry',
    response: ListTokensResponse,
    cacheable: true,
  }),
  defineOperation({
    operationId: 'GetChains',
    rpc: ListChainsRpc,
    method: 'GET',
    path: '/v1/chains',
    summary: 'Lists the chains, their limits and the contracts deposits go to.',
    auth: 'none',
    tag: 'registry',
    response: ListChainsResponse,
    cacheable: true,
  }),
  defineOperation({
    operationId: 'PreviewQuote',
    rpc: PreviewQuoteRpc,
    method: 'POST',
    path: '/v1/quote/preview',
    summary: 'Prices a trade without storing it or taking any address.',
    auth: 'optional_api_key',
    tag: 'quote',
    body: PreviewQuoteRequest,
    response: QuotePreviewSchema,
  }),
  defineOperation({
    operationId: 'GetQuote',
    rpc: GetQuoteRpc,
    method: 'POST',
    path: '/v1/quote',
    summary: 'Prices a trade, stores the bound order and returns its keccak hash.',
    auth: 'optional_api_key',
    tag: 'quote',
    body: GetQuoteRequest,
    response: QuoteSchema,
    points: 2,
  }),
  defineOperation({ operationId: 'SubmitGaslessOrder', rpc: SubmitGaslessOrderRpc, method: 'POST', path: '/v1/gasless/orders', summary: 'Relays a gasless deposit the user signed.', auth: 'optional_api_key', tag: 'gasless', points: 5, body: SubmitGaslessOrderRequest, response: GaslessOrderResultSchema }),
  defineOperation({ operationId: 'GetOrder', rpc: GetOrderRpc, method: 'GET', path: '/v1/orders/{quote_hash}', summary: "An order's lifecycle: quote, deposit, fulfilment or refund.", auth: 'none', tag: 'orders', pathParams: GetOrderPathParams, response: OrderStatusSchema }),
  defineOperation({
    operationId: 'StreamOrderEvents',
    rpc: GetOrderRpc,
    method: 'GET',
    path: '/v1/orders/{quote_hash}/events',
    summary: "An order's view pushed on every change (server-sent events).",
    description:
      'A `text/event-stream` (D13). Each event is `event: order` with the whole order view (the GetOrder shape) as `data` and an `id`; the first one is the view as it is now, then one per change (a step seen on a chain or withdrawn by a reorg, a relay status, expiry). Comment lines are heartbeats. Reconnect with `Last-Event-ID` set to the last id received: the current view is sent only if it changed since. A caller (API key, or client IP without one) may hold a bounded number of streams at once (429 `TOO_MANY_STREAMS` beyond), and a gateway replica holds a bounded number in all (503 `STREAMS_EXHAUSTED` with Retry-After beyond); a stream ends after a bounded time and the client reconnects.',
    auth: 'optional_api_key',
    tag: 'orders',
    pathParams: GetOrderPathParams,
    response: OrderStatusSchema,
    eventStream: true,
  }),
  defineOperation({ operationId: 'GetPartner', rpc: GetPartnerRpc, method: 'GET', path: '/v1/partner', summary: 'The partner account and its API keys.', auth: 'bearer', tag: 'partner', response: PartnerSchema }),
  defineOperation({ operationId: 'GetPartnerFunding', rpc: GetPartnerFundingRpc, method: 'GET', path: '/v1/partner/funding', summary: 'The gas sponsorship balance.', description: '`balance_usd_micros` is what is available: credits minus debits, open relay-gas holds and charges. `balances` lists, per funding token, what was credited in it (on-chain deposits and operator credits that named the token).', auth: 'bearer', tag: 'partner', response: PartnerFundingSchema }),
  defineOperation({ operationId: 'BuildPartnerFunding', rpc: BuildPartnerFundingRpc, method: 'POST', path: '/v1/partner/funding/tx', summary: 'Builds a transaction that tops up the funding balance.', description: 'Send `calldata` to `router_address` on `chain` with `value` (the amount for the native token, else 0 after approving the router for the token). When the router\'s `Funded` event carrying `funding_id` has enough confirmations, the token and amount it reports are credited, valued at the oracle price of that moment and rounded down to the micro.', auth: 'bearer', tag: 'partner', body: BuildPartnerFundingRequest, response: FundingTransactionSchema }),
  defineOperation({ operationId: 'ListPartnerVouchers', rpc: ListPartnerVouchersRpc, method: 'GET', path: '/v1/partner/vouchers', summary: 'Referral vouchers issued to the partner.', auth: 'bearer', tag: 'partner', response: z.object({ vouchers: z.array(VoucherSchema) }).meta({ id: 'ListPartnerVouchersResponse' }) }),
  defineOperation({ operationId: 'BuildVoucherRedemption', rpc: BuildVoucherRedemptionRpc, method: 'POST', path: '/v1/partner/vouchers/redemption', summary: 'Builds the transaction that redeems a voucher.', description: 'Solana voucher: `tx_base64` is an unsigned legacy transaction whose fee payer is `payer`, with a recent blockhash; the payer signs and sends it. EVM voucher: `tx_base64` is the base64 of the `redeem(voucher, signature)` calldata (the bytes of the voucher\'s `calldata`), to send to `router_address` with value 0 from `payer` or any account. A redeemed voucher answers FAILED_PRECONDITION.', points: 2, auth: 'bearer', tag: 'partner', body: BuildVoucherRedemptionRequest, response: z.object({ tx_base64: z.string() }).meta({ id: 'VoucherRedemption' }) }),
  defineOperation({ operationId: 'GetPartnerReferrals', rpc: GetPartnerReferralsRpc, method: 'GET', path: '/v1/partner/referrals', summary: 'Referral earnings grouped by referrer, chain and token.', description: 'Groups are listed by (referrer, chain, token). `page_size` defaults to 50; larger values are served as 200. Pass `next_cursor` as `cursor` for the next page; it is empty on the last page.', auth: 'bearer', tag: 'partner', query: ReferralsQuery, response: z.object({ groups: z.array(ReferralGroupSchema), next_cursor: z.string() }).meta({ id: 'GetPartnerReferralsResponse' }) }),
  defineOperation({ operationId: 'RevokePartnerSession', rpc: RevokePartnerSessionRpc, method: 'DELETE', path: '/v1/partner/sessions/{id}', summary: "Revokes one of the caller's sessions.", auth: 'bearer', tag: 'partner', pathParams: IdPathParam, response: EmptyObject }),
  defineOperation({ operationId: 'CreatePartnerKey', rpc: CreatePartnerKeyRpc, method: 'POST', path: '/v1/partner/keys', summary: 'Creates an API key; the secret is shown once.', auth: 'bearer', tag: 'partner', body: CreateKeyRequest, response: CreatedKeySchema }),
  defineOperation({ operationId: 'DisablePartnerKey', rpc: DisablePartnerKeyRpc, method: 'POST', path: '/v1/partner/keys/{id}/disable', summary: 'Disables an API key.', auth: 'bearer', tag: 'partner', pathParams: IdPathParam, response: ApiKeySchema }),
  defineOperation({ operationId: 'ListPartnerFundingEntries', rpc: ListPartnerFundingEntriesRpc, method: 'GET', path: '/v1/partner/funding/entries', summary: 'The funding ledger: credits, debits and relay-gas holds, newest first.', description: 'Every entry of the partner\'s funding ledger, newest first, with the available balance right after it. A credit from an on-chain deposit carries the `deposit` (transaction, token, amount in base units, the price it was valued at). `page_size` defaults to 50; larger values are served as 200. Pass `next_cursor` as `cursor` for the next page; it is empty on the last page.', auth: 'bearer', tag: 'partner', query: FundingEntriesQuery, response: FundingEntriesResponse }),
  defineOperation({ operationId: 'ListPartnerOrders', rpc: ListPartnerOrdersRpc, method: 'GET', path: '/v1/partner/orders', summary: "Orders quoted with the partner's API keys, newest first.", description: 'Each order as its view (the GetOrder shape), newest quote first, while it is retained (D12, D16). `chain` keeps the orders whose source or destination is that chain. `page_size` defaults to 50; larger values are served as 200. Pass `next_cursor` as `cursor` for the next page; it is empty on the last page.', auth: 'bearer', tag: 'partner', query: PartnerOrdersQuery, response: PartnerOrdersResponse }),
  defineOperation({ operationId: 'SetPartnerWebhook', rpc: SetPartnerWebhookRpc, method: 'PUT', path: '/v1/partner/webhook', summary: 'Sets the webhook endpoint; the signing secret is shown once.', description: 'One endpoint per partner receives an `order.updated` event (`{id, type, created_at, version, data}`, `data` being the order view) for each change of an order quoted with the partner\'s API keys. Each POST carries `x-xchain-event-id` and `x-xchain-signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. A 2xx within the timeout delivers it; anything else is retried with exponential backoff for 24 hours. Redirects are not followed. Deliver in any order: deduplicate by event id and order by `version`. A new PUT replaces the URL and the secret. The URL must be https, without credentials, at most 2048 characters.', auth: 'bearer', tag: 'partner', body: SetWebhookRequest, response: CreatedWebhookSchema }),
  defineOperation({ operationId: 'GetPartnerWebhook', rpc: GetPartnerWebhookRpc, method: 'GET', path: '/v1/partner/webhook', summary: 'The webhook endpoint (without its secret).', description: 'NOT_FOUND (`WEBHOOK_NOT_FOUND`) when none is set.', auth: 'bearer', tag: 'partner', response: WebhookSchema }),
  defineOperation({ operationId: 'DeletePartnerWebhook', rpc: DeletePartnerWebhookRpc, method: 'DELETE', path: '/v1/partner/webhook', summary: 'Removes the webhook endpoint.', description: 'No new deliveries are made; pending ones end `failed`. Removing none is fine.', auth: 'bearer', tag: 'partner', response: EmptyObject }),
  defineOperation({ operationId: 'ListPartnerWebhookDeliveries', rpc: ListWebhookDeliveriesRpc, method: 'GET', path: '/v1/partner/webhook/deliveries', summary: 'Recent webhook deliveries and their outcome, newest first.', description: '`page_size` defaults to 50; larger values are served as 200. Pass `next_cursor` as `cursor` for the next page; it is empty on the last page.', auth: 'bearer', tag: 'partner', query: WebhookDeliveriesQuery, response: WebhookDeliveriesResponse }),
] as const satisfies readonly HttpOperation[];

export { EmptyObject };

/** The table's own type: each operation with its schemas, so the typed client can be derived from it. */
export type HttpOperations = typeof HTTP_OPERATIONS;
/** The operationId of an operation of the table. */
export type HttpOperationId = HttpOperations[number]['operationId'];

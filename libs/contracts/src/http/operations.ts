import { z } from 'zod';
import { ListChainsResponse } from '../registry/chain';
import { ListTokensResponse } from '../registry/token';
import { GetQuoteRequest, PreviewQuoteRequest } from '../quoting/quote-request';
import { QuotePreviewSchema, QuoteSchema } from '../quoting/quote-response';
import type { HttpOperation } from './operation';
import { GaslessOrderResultSchema, SubmitGaslessOrderRequest } from './schemas/gasless';
import { GetOrderPathParams, OrderStatusSchema } from './schemas/order-status';
import {
  ApiKeySchema,
  BuildPartnerFundingRequest,
  BuildVoucherRedemptionRequest,
  CreateKeyRequest,
  CreatedKeySchema,
  FundingTransactionSchema,
  IdPathParam,
  PartnerFundingSchema,
  PartnerSchema,
  ReferralGroupSchema,
  ReferralsQuery,
  VoucherSchema,
} from './schemas/partner';

export const ListTokensOp: HttpOperation = {
  operationId: 'ListTokens',
  method: 'GET',
  path: '/v1/tokens',
  summary: 'Lists the tokens the service supports.',
  auth: 'none',
  tag: 'registry',
  response: ListTokensResponse,
  served: true,
  cacheable: true,
};

export const GetChainsOp: HttpOperation = {
  operationId: 'GetChains',
  method: 'GET',
  path: '/v1/chains',
  summary: 'Lists the chains, their limits and the contracts deposits go to.',
  auth: 'none',
  tag: 'registry',
  response: ListChainsResponse,
  served: true,
  cacheable: true,
};

const EmptyObject = z.object({}).meta({ id: 'Empty' });

export const PreviewQuoteOp: HttpOperation = {
  operationId: 'PreviewQuote',
  method: 'POST',
  path: '/v1/quote/preview',
  summary: 'Prices a trade without storing it or taking any address.',
  auth: 'optional_api_key',
  tag: 'quote',
  body: PreviewQuoteRequest,
  response: QuotePreviewSchema,
  served: true,
};

export const GetQuoteOp: HttpOperation = {
  operationId: 'GetQuote',
  method: 'POST',
  path: '/v1/quote',
  summary: 'Prices a trade, stores the bound order and returns its keccak hash.',
  auth: 'optional_api_key',
  tag: 'quote',
  body: GetQuoteRequest,
  response: QuoteSchema,
  served: true,
};

const later = (op: Omit<HttpOperation, 'served'>): HttpOperation => ({ ...op, served: false });

/** Every operation of the public interface (interface.md and decisions D8), in document order. */
export const HTTP_OPERATIONS: readonly HttpOperation[] = [
  ListTokensOp,
  GetChainsOp,
  PreviewQuoteOp,
  GetQuoteOp,
  later({ operationId: 'SubmitGaslessOrder', method: 'POST', path: '/v1/gasless/orders', summary: 'Relays a gasless deposit the user signed.', auth: 'optional_api_key', tag: 'gasless', body: SubmitGaslessOrderRequest, response: GaslessOrderResultSchema }),
  later({ operationId: 'GetOrder', method: 'GET', path: '/v1/orders/{quote_hash}', summary: "An order's lifecycle: quote, deposit, fulfilment or refund.", auth: 'none', tag: 'orders', pathParams: GetOrderPathParams, response: OrderStatusSchema }),
  later({ operationId: 'GetPartner', method: 'GET', path: '/v1/partner', summary: 'The partner account and its API keys.', auth: 'bearer', tag: 'partner', response: PartnerSchema }),
  later({ operationId: 'GetPartnerFunding', method: 'GET', path: '/v1/partner/funding', summary: 'The gas sponsorship balance.', auth: 'bearer', tag: 'partner', response: PartnerFundingSchema }),
  later({ operationId: 'BuildPartnerFunding', method: 'POST', path: '/v1/partner/funding/tx', summary: 'Builds a transaction that tops up the funding balance.', auth: 'bearer', tag: 'partner', body: BuildPartnerFundingRequest, response: FundingTransactionSchema }),
  later({ operationId: 'ListPartnerVouchers', method: 'GET', path: '/v1/partner/vouchers', summary: 'Referral vouchers issued to the partner.', auth: 'bearer', tag: 'partner', response: z.object({ vouchers: z.array(VoucherSchema) }).meta({ id: 'ListPartnerVouchersResponse' }) }),
  later({ operationId: 'BuildVoucherRedemption', method: 'POST', path: '/v1/partner/vouchers/redemption', summary: 'Builds the transaction that redeems a voucher.', auth: 'bearer', tag: 'partner', body: BuildVoucherRedemptionRequest, response: z.object({ tx_base64: z.string() }).meta({ id: 'VoucherRedemption' }) }),
  later({ operationId: 'GetPartnerReferrals', method: 'GET', path: '/v1/partner/referrals', summary: 'Referral earnings grouped by referrer, chain and token.', auth: 'bearer', tag: 'partner', query: ReferralsQuery, response: z.object({ groups: z.array(ReferralGroupSchema), next_cursor: z.string() }).meta({ id: 'GetPartnerReferralsResponse' }) }),
  later({ operationId: 'RevokePartnerSession', method: 'DELETE', path: '/v1/partner/sessions/{id}', summary: "Revokes one of the caller's sessions.", auth: 'bearer', tag: 'partner', pathParams: IdPathParam, response: EmptyObject }),
  later({ operationId: 'CreatePartnerKey', method: 'POST', path: '/v1/partner/keys', summary: 'Creates an API key; the secret is shown once.', auth: 'bearer', tag: 'partner', body: CreateKeyRequest, response: CreatedKeySchema }),
  later({ operationId: 'DisablePartnerKey', method: 'POST', path: '/v1/partner/keys/{id}/disable', summary: 'Disables an API key.', auth: 'bearer', tag: 'partner', pathParams: IdPathParam, response: ApiKeySchema }),
];

export { EmptyObject };

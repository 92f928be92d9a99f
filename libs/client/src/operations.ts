import { z } from 'zod';
import {
  ApiKeySchema,
  BuildPartnerFundingRequest,
  BuildVoucherRedemptionRequest,
  CreatedKeySchema,
  CreatedWebhookSchema,
  CreateKeyRequest,
  EmptyObject,
  FundingEntriesQuery,
  FundingEntriesResponse,
  FundingTransactionSchema,
  GaslessOrderResultSchema,
  GetOrderPathParams,
  GetQuoteRequest,
  IdPathParam,
  ListChainsResponse,
  ListTokensResponse,
  OrderStatusSchema,
  PartnerFundingSchema,
  PartnerSchema,
  PreviewQuoteRequest,
  QuotePreviewSchema,
  QuoteSchema,
  ReferralGroupSchema,
  ReferralsQuery,
  SetWebhookRequest,
  SubmitGaslessOrderRequest,
  VoucherSchema,
  WebhookDeliveriesQuery,
  WebhookDeliveriesResponse,
  WebhookSchema,
} from '@xchain/contracts';

/** The schemas of one operation the client's types are derived from. */
export interface ClientOperationSchemas {
  readonly body?: z.ZodType;
  readonly query?: z.ZodObject;
  readonly pathParams?: z.ZodObject;
  readonly response: z.ZodType;
}

/*
 * HTTP_OPERATIONS is typed `readonly HttpOperation[]`, which erases each operation's own schemas,
 * so the client keeps their static types here, keyed by operationId. Everything the client does at
 * run time (method, path, auth, the response validation) comes from HTTP_OPERATIONS itself, and
 * operations.spec.ts proves this map holds the same operations with the same schemas (the very
 * objects, or for the three responses the table declares inline, the same JSON Schema).
 */

const ListPartnerVouchersResponse = z.object({ vouchers: z.array(VoucherSchema) });
const VoucherRedemption = z.object({ tx_base64: z.string() });
const GetPartnerReferralsResponse = z.object({ groups: z.array(ReferralGroupSchema), next_cursor: z.string() });

export const CLIENT_OPERATIONS = {
  ListTokens: { response: ListTokensResponse },
  GetChains: { response: ListChainsResponse },
  PreviewQuote: { body: PreviewQuoteRequest, response: QuotePreviewSchema },
  GetQuote: { body: GetQuoteRequest, response: QuoteSchema },
  SubmitGaslessOrder: { body: SubmitGaslessOrderRequest, response: GaslessOrderResultSchema },
  GetOrder: { pathParams: GetOrderPathParams, response: OrderStatusSchema },
  GetPartner: { response: PartnerSchema },
  GetPartnerFunding: { response: PartnerFundingSchema },
  BuildPartnerFunding: { body: BuildPartnerFundingRequest, response: FundingTransactionSchema },
  ListPartnerVouchers: { response: ListPartnerVouchersResponse },
  BuildVoucherRedemption: { body: BuildVoucherRedemptionRequest, response: VoucherRedemption },
  GetPartnerReferrals: { query: ReferralsQuery, response: GetPartnerReferralsResponse },
  RevokePartnerSession: { pathParams: IdPathParam, response: EmptyObject },
  CreatePartnerKey: { body: CreateKeyRequest, response: CreatedKeySchema },
  DisablePartnerKey: { pathParams: IdPathParam, response: ApiKeySchema },
  ListPartnerFundingEntries: { query: FundingEntriesQuery, response: FundingEntriesResponse },
  SetPartnerWebhook: { body: SetWebhookRequest, response: CreatedWebhookSchema },
  GetPartnerWebhook: { response: WebhookSchema },
  DeletePartnerWebhook: { response: EmptyObject },
  ListPartnerWebhookDeliveries: { query: WebhookDeliveriesQuery, response: WebhookDeliveriesResponse },
} as const satisfies Record<string, ClientOperationSchemas>;

export type ClientOperations = typeof CLIENT_OPERATIONS;
export type OperationId = keyof ClientOperations;

/** Served operations the client has no request/response method for, and why. */
export const NOT_CLIENT_METHODS: Readonly<Record<string, string>> = {
  StreamOrderEvents: 'server-sent events, not one JSON answer: XchainClient.streamOrderEvents',
};

/** `GetQuote` → `getQuote`: the method name of an operation. */
export type MethodName<K extends string> = Uncapitalize<K>;
export const methodName = <K extends string>(operationId: K): MethodName<K> =>
  (operationId.charAt(0).toLowerCase() + operationId.slice(1)) as MethodName<K>;

import { HTTP_OPERATIONS, type HttpOperations } from '@xchain/contracts';

/**
 * The operations the client has a method for: every operation of HTTP_OPERATIONS that answers one
 * JSON value, typed by the table itself (its entries keep their own schemas), so a method cannot
 * drift from the route the gateway serves.
 */
type ClientOperation = Exclude<HttpOperations[number], { readonly eventStream: true } | { readonly csv: true }>;
export type ClientOperations = { readonly [O in ClientOperation as O['operationId']]: O };
export type OperationId = keyof ClientOperations;

/** Operations the client serves otherwise than by a request/response method, and how. */
export const NOT_CLIENT_METHODS: Readonly<Record<string, string>> = {
  StreamOrderEvents: 'server-sent events, not one JSON answer: XchainClient.streamOrderEvents',
  ExportPartnerOrders: 'a CSV document, not one JSON answer: XchainClient.exportPartnerOrders',
};

export const CLIENT_OPERATIONS = Object.fromEntries(
  HTTP_OPERATIONS.filter((op) => !('eventStream' in op && op.eventStream) && !('csv' in op && op.csv)).map((op) => [op.operationId, op]),
) as unknown as ClientOperations;

/** `GetQuote` → `getQuote`: the method name of an operation. */
export type MethodName<K extends string> = Uncapitalize<K>;
export const methodName = <K extends string>(operationId: K): MethodName<K> =>
  (operationId.charAt(0).toLowerCase() + operationId.slice(1)) as MethodName<K>;

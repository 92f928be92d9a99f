import { XchainApiError, XchainClient } from '@xchain/client';

export interface ErrorView {
  http: number;
  code: number;
  reason?: string;
  metadata?: Record<string, string>;
  fields: string[];
}

/** POSTs JSON; returns the status and parsed body. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** The parts of a google.rpc.Status a test asserts on, from a raw answer (for requests the typed client cannot make). */
export function errorView(status: number, body: unknown): ErrorView {
  const err = XchainApiError.fromBody('raw', status, body);
  if (!err) throw new Error(`HTTP ${status} without a google.rpc.Status body: ${JSON.stringify(body)}`);
  return apiErrorView(err);
}

/** The parts of an XchainApiError a test asserts on; anything else (a success, a network error) is rethrown. */
export function apiErrorView(err: unknown): ErrorView {
  if (!(err instanceof XchainApiError)) throw err;
  return {
    http: err.httpStatus,
    code: err.code,
    ...(err.reason !== undefined ? { reason: err.reason } : {}),
    ...(Object.keys(err.metadata).length > 0 ? { metadata: { ...err.metadata } } : {}),
    fields: err.fields,
  };
}

/** Awaits a client call that must fail and checks its error; a success fails the test with the value it got. */
export async function expectApiError(call: Promise<unknown>, want: Partial<ErrorView>): Promise<XchainApiError> {
  const outcome = await call.then(
    (value) => ({ value }),
    (err: unknown) => ({ err }),
  );
  if (!('err' in outcome))
    throw new Error(`expected an API error ${JSON.stringify(want)}, got a success: ${JSON.stringify(outcome.value)}`);
  expect(apiErrorView(outcome.err)).toMatchObject(want);
  return outcome.err as XchainApiError;
}

/** The cross-chain part of a quote; a same-chain answer fails the test with what it got. */
export function crossChainOf(q: Awaited<ReturnType<XchainClient['getQuote']>>) {
  if (!('cross_chain' in q)) throw new Error(`expected a cross-chain quote, got ${JSON.stringify(q)}`);
  return q.cross_chain;
}

/** A typed client of one stack's gateway (`auth` sets the API key or partner session it sends). */
export function gatewayClient(gatewayUrl: string, auth: { apiKey?: string; sessionToken?: string } = {}): XchainClient {
  return new XchainClient({ baseUrl: gatewayUrl, timeoutMs: 30_000, ...auth });
}

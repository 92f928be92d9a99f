import { XchainApiError, XchainClient, type ResultOf } from '@xchain/client';

export type OrderView = ResultOf<'GetOrder'>;
export type ChainInfo = ResultOf<'GetChains'>['chains'][number];
export type TokenInfo = ResultOf<'ListTokens'>['tokens'][number];

/** The gateway that served the page: the pages and the API share an origin (connect-src 'self'). */
export function apiClient(sessionToken?: string): XchainClient {
  return new XchainClient({ baseUrl: window.location.origin, ...(sessionToken ? { sessionToken } : {}) });
}

/** An API refusal's words for a person: its message, and its reason code when it has one. */
export function errorText(err: unknown): string {
  if (err instanceof XchainApiError) return err.reason ? `${err.message} (${err.reason})` : err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

export function isNotFound(err: unknown): boolean {
  return err instanceof XchainApiError && err.httpStatus === 404;
}

export function isUnauthenticated(err: unknown): boolean {
  return err instanceof XchainApiError && err.httpStatus === 401;
}

import { RpcError } from '@xchain/contracts';

/** How long a client is told to wait before retrying while a chain RPC does not answer (as for the database and the bus). */
export const CHAIN_RPC_RETRY_SECS = 2;

/**
 * Thrown by our own JSON-RPC clients (Solana over fetch) when the node did not answer: a timeout,
 * a refused or reset connection, an HTTP error status, a body that is not JSON-RPC. `url` is the
 * endpoint (only its host is ever logged: a provider's URL can carry its API key).
 */
export class ChainRpcUnavailableError extends Error {
  override name = 'ChainRpcUnavailableError';
  /** The registry's name of the chain, when the thrower knows it. */
  readonly chain: string | undefined;

  constructor(
    message: string,
    readonly url?: string,
    options: { cause?: unknown; chain?: string } = {},
  ) {
    super(message, { cause: options.cause });
    this.chain = options.chain;
  }
}

/**
 * viem's errors for "the node did not answer": no HTTP answer or a non-2xx one, past the transport's
 * timeout, a socket that closed; and the JSON-RPC errors by which a node says it is overloaded or
 * cannot serve now (-32005 limit exceeded, -32002 resource unavailable).
 */
const VIEM_UNREACHABLE = new Set([
  'HttpRequestError',
  'TimeoutError',
  'WebSocketRequestError',
  'SocketClosedError',
  'LimitExceededRpcError',
  'ResourceUnavailableRpcError',
]);
/** @solana/web3.js's JSON-RPC error codes for a node that cannot serve now (node unhealthy, behind, slot skipped or not yet available). */
const SOLANA_UNAVAILABLE_CODES = new Set([-32005, -32004, -32007, -32014, -32016]);

export interface ChainRpcFailure {
  /** The RPC's host (no path, no query: those may hold an API key), when the error tells. */
  host?: string;
  /** The whole endpoint, to probe it; never logged. */
  url?: string;
  /** The chain's name, when a ChainRpcUnavailableError on the way says it. */
  chain?: string;
  /** One short line: viem's short message, never its request body. */
  message: string;
}

/**
 * Whether `err` says a chain RPC could not be reached (rather than that it answered: a revert, a
 * refused transaction, a missing account), and which one. Looks through what the error wraps
 * (viem nests the transport's error several causes deep under the call's error).
 */
export function chainRpcFailure(err: unknown): ChainRpcFailure | undefined {
  if (err instanceof RpcError) return undefined;
  const seen = new Set<unknown>();
  let value: unknown = err;
  let chain: string | undefined;
  for (let depth = 0; depth < 10 && value !== null && typeof value === 'object' && !seen.has(value); depth++) {
    seen.add(value);
    const v = value as Record<string, unknown>;
    const name = typeof v['name'] === 'string' ? v['name'] : '';
    // viem's BaseError: a short message beside the long one, and the library's version.
    const isViem = typeof v['shortMessage'] === 'string' && typeof v['version'] === 'string';
    if (value instanceof ChainRpcUnavailableError || (isViem && VIEM_UNREACHABLE.has(name))) {
      chain ??= typeof v['chain'] === 'string' ? v['chain'] : undefined;
      const short = typeof v['shortMessage'] === 'string' ? v['shortMessage'] : typeof v['message'] === 'string' ? v['message'] : name;
      const status = typeof v['status'] === 'number' ? ` (HTTP ${v['status']})` : '';
      const url = typeof v['url'] === 'string' ? v['url'] : undefined;
      const host = url ? rpcHost(url) : undefined;
      return {
        ...(host ? { host, url } : {}),
        ...(chain ? { chain } : {}),
        message: `${name}: ${firstLine(short)}${status}`.slice(0, 300),
      };
    }
    if (name === 'SolanaJSONRPCError' && typeof v['code'] === 'number' && SOLANA_UNAVAILABLE_CODES.has(v['code'])) {
      return { ...(chain ? { chain } : {}), message: `${name}: ${firstLine(String(v['message']))}`.slice(0, 300) };
    }
    value = v['cause'];
  }
  return undefined;
}

/**
 * Awaits a call to `chain`'s RPC; a failure that says the RPC did not answer comes out as a
 * ChainRpcUnavailableError naming the chain (so the answer names it too), any other as it was.
 */
export async function onChain<T>(chain: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    const failure = chainRpcFailure(err);
    if (failure && !failure.chain) throw new ChainRpcUnavailableError(failure.message, failure.url, { cause: err, chain });
    throw err;
  }
}

export function isChainRpcUnavailable(err: unknown): boolean {
  return chainRpcFailure(err) !== undefined;
}

/** UNAVAILABLE / CHAIN_RPC_UNAVAILABLE with RetryInfo: what an operation answers when a chain RPC it needs does not. */
export function chainRpcUnavailable(chain?: string): RpcError {
  return RpcError.unavailable(
    `the ${chain ? `${chain} ` : ''}chain RPC did not answer; retry shortly`,
    'CHAIN_RPC_UNAVAILABLE',
    CHAIN_RPC_RETRY_SECS,
    chain ? { chain } : undefined,
  );
}

/** The host of an RPC URL (`127.0.0.1:8545`, `mainnet.example.com`). */
export function rpcHost(url: string): string | undefined {
  try {
    return new URL(url).host || undefined;
  } catch {
    return undefined;
  }
}

const firstLine = (text: string) => text.split('\n')[0]!.trim();

import { type PublicClient, createPublicClient, http } from 'viem';

export interface EvmClientOptions {
  /** Deadline of one HTTP request to the node. */
  timeoutMs: number;
  /** viem's own retries of a failed request; none by default: each caller's next pass or request is its retry. */
  retryCount?: number;
  /** JSON-RPC batching of the calls made within `wait` ms, up to `batchSize` in one request. */
  batch?: { batchSize: number; wait: number };
}

/** A viem public client on an EVM JSON-RPC endpoint over HTTP: the one way services read an EVM chain. */
export function evmPublicClient(url: string, opts: EvmClientOptions): PublicClient {
  return createPublicClient({
    transport: http(url, { timeout: opts.timeoutMs, retryCount: opts.retryCount ?? 0, ...(opts.batch ? { batch: opts.batch } : {}) }),
  }) as PublicClient;
}

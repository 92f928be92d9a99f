import { ChainRpcUnavailableError } from '@xchain/messaging';

/**
 * The Solana RPC did not answer (or answered nonsense): the caller retries, never concludes. A
 * chain RPC failure like any other, so a request it fails answers 503 CHAIN_RPC_UNAVAILABLE.
 */
export class SolanaRpcUnavailable extends ChainRpcUnavailableError {
  override name = 'SolanaRpcUnavailable';
  constructor(message: string, url?: string, cause?: unknown) {
    super(message, url, { chain: 'solana', cause });
  }
}

/** The node refused a call (a JSON-RPC error): for sendTransaction, the transaction itself was refused. */
export class SolanaRpcRefused extends Error {
  override name = 'SolanaRpcRefused';
  constructor(
    message: string,
    readonly code: number,
    /** The node's own words, without the method's name. */
    readonly reason = message,
  ) {
    super(message);
  }
}

export type SolanaCommitment = 'processed' | 'confirmed' | 'finalized';

/**
 * Solana JSON-RPC over plain HTTP, with a deadline on every call and no retry of its own (each
 * caller has its own next pass or next request). A node that does not answer, answers an HTTP
 * error or something that is not JSON is SolanaRpcUnavailable; a JSON-RPC error is SolanaRpcRefused.
 */
export class SolanaRpcClient {
  private id = 0;

  constructor(
    readonly url: string,
    readonly timeoutMs: number,
  ) {}

  /** One call; its `result` (undefined when the answer has none). */
  async call<T>(method: string, params: unknown[]): Promise<T | undefined> {
    let body: { result?: T; error?: { code?: number; message?: string } };
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      body = (await res.json()) as typeof body;
    } catch (err) {
      throw new SolanaRpcUnavailable(`${method}: ${err instanceof Error ? err.message : String(err)}`, this.url, err);
    }
    if (body.error)
      throw new SolanaRpcRefused(`${method}: ${body.error.message ?? 'error'}`, body.error.code ?? 0, body.error.message ?? '');
    return body.result;
  }

  /** The newest blockhash at `commitment`: what a transaction is signed over. */
  async latestBlockhash(commitment: SolanaCommitment = 'confirmed'): Promise<string> {
    const r = await this.call<{ value: { blockhash: string } }>('getLatestBlockhash', [{ commitment }]);
    const hash: unknown = r?.value?.blockhash;
    if (typeof hash !== 'string') throw new SolanaRpcUnavailable('getLatestBlockhash: unexpected answer', this.url);
    return hash;
  }
}

import { RpcError } from '@xchain/contracts';
import { ChainRpcUnavailableError } from '@xchain/messaging';

/**
 * The one Solana JSON-RPC call the partner-service needs: a recent blockhash for an unsigned
 * redemption transaction. A deadline on every call; any failure is a chain RPC failure (503
 * CHAIN_RPC_UNAVAILABLE from the RPC server, logged once per outage), never a hang.
 */
export class SolanaRpc {
  constructor(
    private readonly url: string | undefined,
    private readonly timeoutMs: number,
  ) {}

  async latestBlockhash(): Promise<string> {
    if (!this.url) throw RpcError.unavailable('no Solana RPC is configured (SOLANA_RPC_URL)', 'SOLANA_RPC_NOT_CONFIGURED', 30);
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLatestBlockhash', params: [{ commitment: 'finalized' }] }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const body = (await res.json()) as { result?: { value?: { blockhash?: unknown } } };
      const hash = body.result?.value?.blockhash;
      if (!res.ok || typeof hash !== 'string') throw new Error(`unexpected answer (HTTP ${res.status})`);
      return hash;
    } catch (err) {
      throw new ChainRpcUnavailableError(`getLatestBlockhash: ${err instanceof Error ? err.message : String(err)}`, this.url, { chain: 'solana', cause: err });
    }
  }
}

import { SolanaRpcClient } from '@xchain/chain-watch';
import { RpcError } from '@xchain/contracts';
import { ChainRpcUnavailableError } from '@xchain/messaging';

/**
 * The one Solana JSON-RPC call the partner-service needs: a recent blockhash for an unsigned
 * redemption transaction. A deadline on every call; any failure is a chain RPC failure (503
 * CHAIN_RPC_UNAVAILABLE from the RPC server, logged once per outage), never a hang.
 */
export class SolanaRpc {
  private readonly client: SolanaRpcClient | undefined;

  constructor(url: string | undefined, timeoutMs: number) {
    this.client = url ? new SolanaRpcClient(url, timeoutMs) : undefined;
  }

  async latestBlockhash(): Promise<string> {
    if (!this.client) throw RpcError.unavailable('no Solana RPC is configured (SOLANA_RPC_URL)', 'SOLANA_RPC_NOT_CONFIGURED', 30);
    try {
      return await this.client.latestBlockhash('finalized');
    } catch (err) {
      // A refusal too: all this service can do is answer that the chain could not serve it.
      throw new ChainRpcUnavailableError(err instanceof Error ? err.message : `getLatestBlockhash: ${String(err)}`, this.client.url, {
        chain: 'solana',
        cause: err,
      });
    }
  }
}

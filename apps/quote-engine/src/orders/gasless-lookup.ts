import { Code, GetGaslessOrderRpc, RpcError } from '@xchain/contracts';
import type { RpcClient } from '@xchain/messaging';
import type { GaslessLookup } from './order-view.service';

/** Short: the relay state is a garnish on the order view, which must not wait long for it. */
export const GASLESS_LOOKUP_TIMEOUT_MS = 500;

/** `gasless.v1.get` over NATS; NOT_FOUND (never submitted) is an answer, anything else a failure. */
export function relayerGaslessLookup(rpc: RpcClient, timeoutMs = GASLESS_LOOKUP_TIMEOUT_MS): GaslessLookup {
  return {
    async get(quoteHash) {
      try {
        return await rpc.call(GetGaslessOrderRpc, { quote_hash: quoteHash }, { timeoutMs });
      } catch (err) {
        if (err instanceof RpcError && err.status.code === Code.NOT_FOUND) return undefined;
        throw err;
      }
    },
  };
}

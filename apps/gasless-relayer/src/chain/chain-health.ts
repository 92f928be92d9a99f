import type { HealthCheck } from '@xchain/service-kit';
import type { RelayChains } from './relay-chains';

/** What is told of each wallet balance read (the balance metrics). */
export type BalanceObserver = (chain: string, wallet: string, balanceWei: bigint, floorWei: bigint) => void;

/**
 * Readiness: every chain's RPC answers, and every wallet holds at least its floor of native gas.
 * Each balance read goes to `observe` (relayer_wallet_balance_wei); the detail counts wallets only.
 */
export function chainHealth(chains: RelayChains, observe?: BalanceObserver): HealthCheck {
  return async () => {
    if (chains.all().length === 0) return { ok: true, detail: 'no chain configured (EVM_RPC_URLS is empty)' };
    const parts = await Promise.all(
      chains.all().map(async (c) => {
        try {
          const [block, ...balances] = await Promise.all([
            c.client.getBlockNumber({ cacheTime: 0 }),
            ...c.wallets.map((w) => c.client.getBalance({ address: w.address })),
          ]);
          c.wallets.forEach((w, i) => observe?.(c.name, w.address, balances[i]!, c.walletFloorWei));
          const low = c.wallets.filter((_, i) => balances[i]! < c.walletFloorWei).length;
          // No address and no balance (any local user can read /readyz): those are in the metrics.
          return {
            ok: low === 0,
            detail: `${c.name}: block ${block}; ${low === 0 ? `${c.wallets.length} wallets funded` : `${low} of ${c.wallets.length} wallets below the floor`}`,
          };
        } catch (err) {
          return { ok: false, detail: `${c.name}: RPC unreachable (${err instanceof Error ? err.message.split('\n')[0] : String(err)})` };
        }
      }),
    );
    return { ok: parts.every((p) => p.ok), detail: parts.map((p) => p.detail).join('; ') };
  };
}

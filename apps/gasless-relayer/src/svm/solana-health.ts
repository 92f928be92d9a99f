import type { HealthCheck } from '@xchain/service-kit';
import type { SolanaRpc } from './solana-rpc';

/** Readiness: the Solana RPC answers and the fee payer holds at least its floor (lamports). */
export function solanaHealth(rpc: SolanaRpc, feePayer: string, floorLamports: bigint): HealthCheck {
  return async () => {
    try {
      const balance = await rpc.balance(feePayer);
      const ok = balance >= floorLamports;
      return { ok, detail: `solana: fee payer ${feePayer} holds ${balance} lamports${ok ? '' : `, below the floor of ${floorLamports}`}` };
    } catch (err) {
      return { ok: false, detail: `solana: RPC unreachable (${err instanceof Error ? err.message : String(err)})` };
    }
  };
}

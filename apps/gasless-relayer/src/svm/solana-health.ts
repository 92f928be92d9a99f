import { type HealthCheck, token } from '@xchain/service-kit';
import type { SolanaRpc } from './solana-rpc';

/** The fee payer's readiness check where the relayer takes gasless Solana orders (an RPC and a fee payer), else null. */
export const SOLANA_HEALTH = token<HealthCheck | null>('SOLANA_HEALTH');

/**
 * Readiness: the Solana RPC answers and the fee payer holds at least its floor (lamports). The
 * detail names neither the account nor its balance (any local user can read `/readyz`): `observe`
 * hands them to the metrics (relayer_solana_fee_payer_balance_lamports).
 */
export function solanaHealth(
  rpc: SolanaRpc,
  feePayer: string,
  floorLamports: bigint,
  observe?: (feePayer: string, balanceLamports: bigint, floorLamports: bigint) => void,
): HealthCheck {
  return async () => {
    try {
      const balance = await rpc.balance(feePayer);
      observe?.(feePayer, balance, floorLamports);
      const ok = balance >= floorLamports;
      return { ok, detail: ok ? 'solana: fee payer funded' : 'solana: fee payer below its floor' };
    } catch (err) {
      return { ok: false, detail: `solana: RPC unreachable (${err instanceof Error ? err.message.split('\n')[0] : String(err)})` };
    }
  };
}

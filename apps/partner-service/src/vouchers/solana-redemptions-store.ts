import type { VouchersRepository } from './vouchers.repository';

export type SolanaRedemptionOutcome = 'redeemed' | 'duplicate' | 'unknown';

export interface SolanaRedemptionRecord {
  /** The `voucher_routers` key of the program (the voucher's `chain`). */
  chainName: string;
  /** base58 program id the redeem_voucher instruction went to. */
  programId: string;
  /** 0x bytes32 as decoded from the instruction. */
  voucherId: string;
  /** base58 transaction signature: kept as is (base58 is case-sensitive). */
  signature: string;
  /** The block's time; null when the node does not know it. */
  redeemedAt: Date | null;
}

/**
 * The Solana twin of VouchersService.markRedeemed, with the same rules: an id we never issued, or
 * a redemption through another chain's or another program's address, changes nothing; a voucher is
 * marked once (the `redeemed = false` guard makes a replay or a second reader a no-op). It differs
 * only in keeping the transaction signature's case, which the EVM path lowercases.
 */
export async function recordSolanaRedemption(
  vouchers: Pick<VouchersRepository, 'byId' | 'markRedeemed'>,
  r: SolanaRedemptionRecord,
): Promise<SolanaRedemptionOutcome> {
  const v = await vouchers.byId(r.voucherId.toLowerCase());
  if (!v || v.chain !== r.chainName || v.routerAddress !== r.programId) return 'unknown';
  if (v.redeemed) return 'duplicate';
  return (await vouchers.markRedeemed(v.id, r.signature, r.redeemedAt)) ? 'redeemed' : 'duplicate';
}

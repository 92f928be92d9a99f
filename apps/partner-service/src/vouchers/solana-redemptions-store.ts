import type { PrismaClient } from '@xchain/partner-service-db';

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
  db: Pick<PrismaClient, 'voucher'>,
  r: SolanaRedemptionRecord,
): Promise<SolanaRedemptionOutcome> {
  const v = await db.voucher.findUnique({ where: { id: r.voucherId.toLowerCase() } });
  if (!v || v.chain !== r.chainName || v.routerAddress !== r.programId) return 'unknown';
  if (v.redeemed) return 'duplicate';
  const done = await db.voucher.updateMany({
    where: { id: v.id, redeemed: false },
    data: { redeemed: true, redeemTx: r.signature, redeemedAt: r.redeemedAt },
  });
  return done.count === 1 ? 'redeemed' : 'duplicate';
}

import { base58Decode } from '@xchain/order-codec';
import { type VoucherStruct, decodeSolanaVoucherRedemptionData, isRedeemVoucherData } from '@xchain/partner-chain';
import type { SvmTransactionJson } from '@xchain/contracts';

/** One redeem_voucher instruction of a successful transaction, read from the chain. */
export interface SolanaVoucherRedemption {
  /** Top-level instruction index: with the signature, where the redemption sits. */
  index: number;
  voucher: VoucherStruct;
}

/** A redeem_voucher instruction that could not be read (its data is not the voucher layout). */
export interface UnreadableRedemption {
  index: number;
  reason: string;
}

/**
 * The vouchers a confirmed transaction (getTransaction, encoding json) redeemed with the voucher
 * program `programId`. A failed transaction redeemed nothing: the program's effects were rolled
 * back. Only top-level instructions count: the builder puts redeem_voucher at the top, and a
 * program that verifies its secp256k1 sibling through the instructions sysvar can only be called
 * there. Instructions to other programs, or with another discriminator, are not redemptions. A
 * transaction served without its status (meta) throws: the reader asks again rather than guess.
 */
export function readVoucherRedemptions(
  tx: SvmTransactionJson,
  programId: string,
): { redeemed: SolanaVoucherRedemption[]; unreadable: UnreadableRedemption[] } {
  const redeemed: SolanaVoucherRedemption[] = [];
  const unreadable: UnreadableRedemption[] = [];
  if (!tx.meta) throw new Error('the transaction was served without its status (meta)');
  if (tx.meta.err !== null) return { redeemed, unreadable };
  const keys = tx.transaction.message.accountKeys;
  tx.transaction.message.instructions.forEach((ix, index) => {
    if (keys[ix.programIdIndex] !== programId) return;
    let data: Uint8Array;
    try {
      data = base58Decode(ix.data);
    } catch {
      unreadable.push({ index, reason: 'instruction data is not base58' });
      return;
    }
    if (!isRedeemVoucherData(data)) return;
    try {
      redeemed.push({ index, voucher: decodeSolanaVoucherRedemptionData(data).voucher });
    } catch (err) {
      unreadable.push({ index, reason: err instanceof Error ? err.message : String(err) });
    }
  });
  return { redeemed, unreadable };
}

/**
 * The cursor name of one voucher program on one cluster. The genesis hash is in it because a
 * fresh local validator starts again at slot 0, below any position saved on the one before.
 */
export function solanaVoucherCursorName(chainName: string, programId: string, genesisHash: string): string {
  return `svm-vouchers:${chainName}:${programId}@${genesisHash}`;
}

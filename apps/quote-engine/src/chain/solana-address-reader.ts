/**
 * The cursor name of one watched address on one cluster: a new vault or filler starts a new
 * position, and so does a new cluster (a fresh local validator starts again at slot 0, below any
 * position saved on the one before).
 */
export function solanaCursorName(chainName: string, address: string, genesisHash: string): string {
  return `svm-steps:${chainName}:${address}@${genesisHash}`;
}

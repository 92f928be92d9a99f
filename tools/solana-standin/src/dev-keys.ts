import { Keypair } from '@solana/web3.js';

/**
 * Solana keys of the local stack. DEV ONLY: these seeds are published in this repository, so
 * anything they hold on a real cluster belongs to everyone. They exist so that `npm start` gives
 * the same accounts on every run.
 */

/** Seed of the dev filler: pays fills out on the stand-in; its address goes to SOLANA_FILLER_ACCOUNTS, its key to the relayer's SOLANA_FILLER_KEY. */
export const DEV_SOLANA_FILLER_SEED = 'b830b574fb8e30b8ac9bfe8cf713a338822202ff53126c46684c9cf5282a9445';

/** Seed of a dev wallet with SOL and every registry token, to try deposits by hand. */
export const DEV_SOLANA_USER_SEED = 'd50bc24fa8c53c94b39bbd14dc163db4fdee282117890443beeeda7895a7e9e7';

/**
 * Seed of the local vault (`deposit_target` of the dev registry): holds deposits, signs refunds
 * (the relayer's SOLANA_VAULT_KEY).
 * The committed registry names the operator's vault, whose key is not here; `npm start` seeds a
 * copy of the registry naming this one instead.
 */
export const DEV_SOLANA_VAULT_SEED = 'c0b931b29b20cb98b09624d490ec3a9d2088d051011d1502f78c280f2fcf811d';

/** Seed of the local gasless fee payer (`fee_payer` of the dev registry; SOLANA_FEE_PAYER_KEY of the relayer). */
export const DEV_SOLANA_FEE_PAYER_SEED = '4511bd3a8859425bba4140f3c403721cc8ba1830460d7c36894836665f6199fc';

export function devKeypair(seedHex: string): Keypair {
  return Keypair.fromSeed(Uint8Array.from(Buffer.from(seedHex, 'hex')));
}

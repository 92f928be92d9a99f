import { PublicKey } from '@solana/web3.js';

/**
 * The only programs an order step on Solana uses: all of them built into a validator (and into
 * litesvm), so the same transactions run on mainnet and on the local stand-in. No program of ours.
 */
export const SVM_PROGRAMS = {
  system: new PublicKey('11111111111111111111111111111111'),
  token: new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'),
  associatedToken: new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL'),
  /** SPL Memo v2 (the id of spl-memo 2.x and 3.x); takes no accounts here. */
  memo: new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
  /** Allowed in fills and refunds only (priority fees); never in a deposit. */
  computeBudget: new PublicKey('ComputeBudget111111111111111111111111111111'),
} as const;

/** The registry's native SOL "token" address: also the System program id, all zero bytes as bytes32. */
export const SOL_MINT_PLACEHOLDER = '11111111111111111111111111111111';

export type KeyLike = PublicKey | string;

export function toKey(key: KeyLike): PublicKey {
  return typeof key === 'string' ? new PublicKey(key) : key;
}

/**
 * The associated token account of `owner` for `mint` (classic SPL Token): the PDA of
 * [owner, token program, mint] under the associated-token program. Derived, never looked up.
 */
export function associatedTokenAccount(owner: KeyLike, mint: KeyLike): PublicKey {
  const [address] = PublicKey.findProgramAddressSync(
    [toKey(owner).toBuffer(), SVM_PROGRAMS.token.toBuffer(), toKey(mint).toBuffer()],
    SVM_PROGRAMS.associatedToken,
  );
  return address;
}

/** Where SPL deposits of `mint` go: the vault's associated token account (the operator creates it beforehand). */
export function vaultTokenAccount(vault: KeyLike, mint: KeyLike): PublicKey {
  return associatedTokenAccount(vault, mint);
}

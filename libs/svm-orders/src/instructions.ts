import { type PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { SVM_PROGRAMS, associatedTokenAccount } from './programs';

/**
 * The three instructions an order step is made of, encoded by hand (no @solana/spl-token): the
 * layouts are small, fixed and part of each program's public ABI.
 */

const U64_MAX = (1n << 64n) - 1n;

/** SPL Token `TransferChecked`: tag 12, amount u64 LE, decimals u8. */
export const TOKEN_TRANSFER_CHECKED = 12;
/** System program `Transfer`: u32 LE tag 2, lamports u64 LE. */
export const SYSTEM_TRANSFER = 2;

function u64(amount: bigint, what: string): Uint8Array {
  if (amount < 0n || amount > U64_MAX) throw new Error(`${what} ${amount} does not fit in a u64`);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, amount, true);
  return out;
}

export function readU64(data: Uint8Array, offset: number): bigint {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true);
}

export function solTransferInstruction(from: PublicKey, to: PublicKey, lamports: bigint): TransactionInstruction {
  u64(lamports, 'lamports'); // the same range check as SPL amounts
  return SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports });
}

export interface TransferCheckedArgs {
  source: PublicKey;
  mint: PublicKey;
  destination: PublicKey;
  authority: PublicKey;
  amount: bigint;
  decimals: number;
}

/** Accounts: source (w), mint, destination (w), authority (signer): the single-owner form. */
export function transferCheckedInstruction(a: TransferCheckedArgs): TransactionInstruction {
  if (!Number.isInteger(a.decimals) || a.decimals < 0 || a.decimals > 255) throw new Error(`decimals ${a.decimals} is not a u8`);
  const data = new Uint8Array(10);
  data[0] = TOKEN_TRANSFER_CHECKED;
  data.set(u64(a.amount, 'amount'), 1);
  data[9] = a.decimals;
  return new TransactionInstruction({
    programId: SVM_PROGRAMS.token,
    keys: [
      { pubkey: a.source, isSigner: false, isWritable: true },
      { pubkey: a.mint, isSigner: false, isWritable: false },
      { pubkey: a.destination, isSigner: false, isWritable: true },
      { pubkey: a.authority, isSigner: true, isWritable: false },
    ],
    data: Buffer.from(data),
  });
}

/** A memo with no signer accounts: the memo program then only checks the text is UTF-8. */
export function memoInstruction(text: string): TransactionInstruction {
  return new TransactionInstruction({ programId: SVM_PROGRAMS.memo, keys: [], data: Buffer.from(text, 'utf8') });
}

/**
 * Associated-token-program `CreateIdempotent` (tag 1): opens `owner`'s account for `mint`, paid by
 * `payer`, and does nothing when it exists. Accounts: payer (s, w), account (w), owner, mint,
 * System program, Token program.
 */
export function createAssociatedTokenAccountInstruction(payer: PublicKey, owner: PublicKey, mint: PublicKey): TransactionInstruction {
  return new TransactionInstruction({
    programId: SVM_PROGRAMS.associatedToken,
    keys: [
      { pubkey: payer, isSigner: true, isWritable: true },
      { pubkey: associatedTokenAccount(owner, mint), isSigner: false, isWritable: true },
      { pubkey: owner, isSigner: false, isWritable: false },
      { pubkey: mint, isSigner: false, isWritable: false },
      { pubkey: SVM_PROGRAMS.system, isSigner: false, isWritable: false },
      { pubkey: SVM_PROGRAMS.token, isSigner: false, isWritable: false },
    ],
    data: Buffer.from([1]),
  });
}

import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { SVM_PROGRAMS } from '@xchain/svm-orders';

/**
 * The SPL Token account layouts the stand-in reads (balances, decimals) and the one it writes (a
 * mint at a fixed address, which no transaction can create without the mint's private key).
 */
export const MINT_SIZE = 82;
export const TOKEN_ACCOUNT_SIZE = 165;

const view = (data: Uint8Array) => new DataView(data.buffer, data.byteOffset, data.byteLength);

/** An initialised mint with a mint authority, no freeze authority. */
export function encodeMint(authority: PublicKey, decimals: number, supply = 0n): Uint8Array {
  const data = new Uint8Array(MINT_SIZE);
  const v = view(data);
  v.setUint32(0, 1, true); // COption::Some
  data.set(authority.toBytes(), 4);
  v.setBigUint64(36, supply, true);
  data[44] = decimals;
  data[45] = 1; // is_initialized
  return data;
}

export function decodeMint(data: Uint8Array): { decimals: number; supply: bigint } | undefined {
  if (data.length !== MINT_SIZE || data[45] !== 1) return undefined;
  return { decimals: data[44]!, supply: view(data).getBigUint64(36, true) };
}

export interface TokenAccountData {
  mint: PublicKey;
  owner: PublicKey;
  amount: bigint;
}

/** A token account (Initialized or Frozen), or undefined for any other data. */
export function decodeTokenAccount(data: Uint8Array): TokenAccountData | undefined {
  if (data.length !== TOKEN_ACCOUNT_SIZE || data[108] === 0) return undefined;
  return {
    mint: new PublicKey(data.subarray(0, 32)),
    owner: new PublicKey(data.subarray(32, 64)),
    amount: view(data).getBigUint64(64, true),
  };
}

/** SPL Token `MintTo` (tag 7): accounts mint (w), destination (w), authority (s). */
export function mintToInstruction(mint: PublicKey, destination: PublicKey, authority: PublicKey, amount: bigint): TransactionInstruction {
  const data = new Uint8Array(9);
  data[0] = 7;
  view(data).setBigUint64(1, amount, true);
  return new TransactionInstruction({
    programId: SVM_PROGRAMS.token,
    keys: [
      { pubkey: mint, isSigner: false, isWritable: true },
      { pubkey: destination, isSigner: false, isWritable: true },
      { pubkey: authority, isSigner: true, isWritable: false },
    ],
    data: Buffer.from(data),
  });
}

/** `amount` in whole units as a decimal string (`uiAmountString`), by integer arithmetic only. */
export function uiAmountString(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const s = amount.toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, -decimals);
  const frac = s.slice(-decimals).replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole;
}

import { Keypair, PublicKey } from '@solana/web3.js';
import { base58Decode } from '@xchain/order-codec';

/**
 * SOLANA_FEE_PAYER_KEY (and SOLANA_FILLER_KEY, SOLANA_VAULT_KEY): base58 of the 64-byte secret key
 * (seed ‖ public key, what wallets export), or the JSON byte array a `solana-keygen` file holds.
 * Empty → no key (that part of Solana is not served).
 * The public half is checked against the seed, so a corrupted key fails at start, not at the
 * first order. Errors never repeat the key.
 */
export function parseFeePayerKey(text: string): Keypair | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  let bytes: Uint8Array;
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      throw new Error('is not a JSON byte array');
    }
    if (!Array.isArray(parsed) || !parsed.every((b) => Number.isInteger(b) && b >= 0 && b <= 255))
      throw new Error('is not a JSON array of bytes');
    bytes = Uint8Array.from(parsed as number[]);
  } else {
    try {
      bytes = base58Decode(trimmed);
    } catch {
      throw new Error('is neither base58 nor a JSON byte array');
    }
  }
  if (bytes.length !== 64) throw new Error(`must be a 64-byte Solana secret key (got ${bytes.length} bytes)`);
  try {
    return Keypair.fromSecretKey(bytes);
  } catch {
    throw new Error('is not a valid Solana secret key (its public half does not match its seed)');
  }
}

/**
 * SOLANA_TREASURY: a base58 public key (a wallet, not a token account): where claims pay filled
 * orders' deposits (D15). Empty → none (Solana claims are refused until it is set).
 */
export function parseSolanaPublicKey(text: string): PublicKey | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  let bytes: Uint8Array;
  try {
    bytes = base58Decode(trimmed);
  } catch {
    throw new Error('is not base58');
  }
  if (bytes.length !== 32) throw new Error(`must be a 32-byte Solana public key (got ${bytes.length} bytes)`);
  return new PublicKey(bytes);
}

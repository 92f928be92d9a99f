import { createPrivateKey, createPublicKey, sign as edSign, verify as edVerify } from 'node:crypto';
import { type Keypair, Message, type PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { base58Decode, base58Encode } from '@xchain/order-codec';
import { refuse } from './submit-errors';

/** A legacy transaction as it arrived, decoded without re-serialising anything. */
export interface DecodedTx {
  /** The wire bytes. */
  bytes: Uint8Array;
  /** Where the signature of signer `i` starts: `sigStart + 64 * i`. */
  sigStart: number;
  /** One per required signer, in the order of the message's account keys. */
  signatures: Uint8Array[];
  /** The bytes every signature is over. */
  messageBytes: Uint8Array;
  message: Message;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MAX_TX_BYTES = 1232; // a Solana packet: no valid transaction is longer

/**
 * Decodes svm.tx_base64: a legacy transaction only (a versioned one, message prefix bit 0x80, is
 * refused on its own). The message must decode and encode back to the very same bytes, so what
 * the checks read is exactly what the signatures cover and what will be sent.
 */
export function decodeTransaction(base64: string): DecodedTx {
  if (!BASE64.test(base64)) throw refuse.transaction('is not base64');
  const bytes = Uint8Array.from(Buffer.from(base64, 'base64'));
  if (bytes.length === 0 || bytes.length > MAX_TX_BYTES)
    throw refuse.transaction(`is ${bytes.length} bytes; a Solana transaction is 1 to ${MAX_TX_BYTES}`);
  const { value: count, size } = shortVec(bytes, 0);
  const sigStart = size;
  const messageStart = sigStart + 64 * count;
  if (count === 0 || messageStart >= bytes.length) throw refuse.transaction('has no signatures or no message');
  const messageBytes = bytes.slice(messageStart);
  if ((messageBytes[0]! & 0x80) !== 0) throw refuse.versionedTransaction();
  let message: Message;
  try {
    message = Message.from(Buffer.from(messageBytes));
  } catch {
    throw refuse.transaction('its message does not decode');
  }
  if (!Buffer.from(message.serialize()).equals(Buffer.from(messageBytes)))
    throw refuse.transaction('its message does not decode to the same bytes (trailing or malformed data)');
  if (message.header.numRequiredSignatures !== count)
    throw refuse.transaction(`carries ${count} signatures for ${message.header.numRequiredSignatures} signers`);
  const signatures = Array.from({ length: count }, (_, i) => bytes.slice(sigStart + 64 * i, sigStart + 64 * (i + 1)));
  return { bytes, sigStart, signatures, messageBytes, message };
}

/** The fee payer is the first account key, the first signer. */
export function feePayerOf(tx: DecodedTx): PublicKey {
  return tx.message.accountKeys[0]!;
}

/** The fee payer account pays the fees and nothing else: no instruction names it, as an account or as the program. */
export function checkFeePayerUnused(tx: DecodedTx): void {
  tx.message.instructions.forEach((ix, i) => {
    if (ix.programIdIndex === 0 || ix.accounts.includes(0)) throw refuse.feePayerInInstruction(i, feePayerOf(tx).toBase58());
  });
}

/** Every signer but the fee payer has signed, and each signature verifies over the message (ed25519). */
export function checkSignatures(tx: DecodedTx): void {
  for (let i = 1; i < tx.signatures.length; i++) {
    const signer = tx.message.accountKeys[i]!;
    const sig = tx.signatures[i]!;
    if (sig.every((b) => b === 0)) throw refuse.missingSignature(signer.toBase58());
    if (!verifyEd25519(signer.toBytes(), tx.messageBytes, sig)) throw refuse.svmSignature(signer.toBase58());
  }
}

/**
 * The instructions are exactly `expected`: same count, and each the same program, the same account
 * list in order and the same data; the account table holds only the fee payer and these accounts,
 * each with the signer and writable flags the expected instructions give it (none more, none less).
 * The table's order is free, so a wallet that compiles the same instructions its own way passes.
 */
export function checkInstructions(tx: DecodedTx, expected: readonly TransactionInstruction[]): void {
  const { message } = tx;
  const keys = message.accountKeys.map((k) => k.toBase58());
  if (message.instructions.length !== expected.length)
    throw refuse.instructions(`${message.instructions.length} instructions; the deposit is ${expected.length}`);
  message.instructions.forEach((ix, i) => {
    const want = expected[i]!;
    const program = keys[ix.programIdIndex];
    if (program !== want.programId.toBase58())
      throw refuse.instructions(`instruction ${i} calls ${program}, not ${want.programId.toBase58()}`);
    const accounts = ix.accounts.map((a) => keys[a]);
    const wanted = want.keys.map((k) => k.pubkey.toBase58());
    if (accounts.length !== wanted.length || accounts.some((a, j) => a !== wanted[j])) {
      const j = accounts.findIndex((a, n) => a !== wanted[n]);
      throw refuse.instructions(
        j < 0
          ? `instruction ${i} has ${accounts.length} accounts, not ${wanted.length}`
          : `instruction ${i} account ${j} is ${accounts[j]}, not ${wanted[j]}`,
      );
    }
    if (!Buffer.from(base58Decode(ix.data)).equals(Buffer.from(want.data))) throw refuse.instructions(`instruction ${i} data differs`);
  });
  const flags = new Map<string, { signer: boolean; writable: boolean }>([[keys[0]!, { signer: true, writable: true }]]);
  const add = (key: string, signer: boolean, writable: boolean) => {
    const f = flags.get(key) ?? { signer: false, writable: false };
    flags.set(key, { signer: f.signer || signer, writable: f.writable || writable });
  };
  for (const ix of expected) {
    add(ix.programId.toBase58(), false, false);
    for (const k of ix.keys) add(k.pubkey.toBase58(), k.isSigner, k.isWritable);
  }
  if (new Set(keys).size !== keys.length) throw refuse.instructions('an account is listed twice');
  keys.forEach((key, i) => {
    const want = flags.get(key);
    if (!want) throw refuse.instructions(`account ${key} is not part of the deposit`);
    if (message.isAccountSigner(i) !== want.signer || message.isAccountWritable(i) !== want.writable) {
      throw refuse.instructions(
        `account ${key} is ${flagText(message.isAccountSigner(i), message.isAccountWritable(i))}; the deposit makes it ${flagText(want.signer, want.writable)}`,
      );
    }
  });
  if (flags.size !== keys.length) throw refuse.instructions('an account of the deposit is missing');
}

/**
 * The fee payer's signature over the message, put in its slot of the very bytes that arrived.
 * Ed25519 is deterministic: the same transaction always gets the same signature, which is its id.
 */
export function coSign(tx: DecodedTx, feePayer: Keypair): { base64: string; signature: string } {
  const sig = signEd25519(feePayer.secretKey.slice(0, 32), tx.messageBytes);
  const out = Uint8Array.from(tx.bytes);
  out.set(sig, tx.sigStart);
  return { base64: Buffer.from(out).toString('base64'), signature: base58Encode(sig) };
}

/** The transaction id (the fee payer's signature) and the blockhash of a stored, co-signed transaction. */
export function storedTxFacts(base64: string): { signature: string; blockhash: string } {
  const tx = decodeTransaction(base64);
  return { signature: base58Encode(tx.signatures[0]!), blockhash: tx.message.recentBlockhash };
}

function flagText(signer: boolean, writable: boolean): string {
  return `${signer ? 'a signer' : 'not a signer'} and ${writable ? 'writable' : 'read-only'}`;
}

/** Solana's compact-u16: 7 bits per byte, at most 3 bytes. */
function shortVec(bytes: Uint8Array, at: number): { value: number; size: number } {
  let value = 0;
  for (let size = 0; size < 3; size++) {
    const b = bytes[at + size];
    if (b === undefined) throw refuse.transaction('is truncated');
    value |= (b & 0x7f) << (7 * size);
    if ((b & 0x80) === 0) return { value, size: size + 1 };
  }
  throw refuse.transaction('has a malformed signature count');
}

// Ed25519 keys as DER for node:crypto: the fixed prefixes of an SPKI public key and a PKCS#8 seed.
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
    return edVerify(null, message, key, signature);
  } catch {
    return false;
  }
}

function signEd25519(seed: Uint8Array, message: Uint8Array): Uint8Array {
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return Uint8Array.from(edSign(null, message, key));
}

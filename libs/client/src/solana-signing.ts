/**
 * Signing the legacy Solana transaction a gasless quote serves (`svm.tx_base64`) with the signer a
 * wallet team already has, without making @solana/web3.js a dependency of the client: the wire
 * format is read here (signature slots, then the message whose first account keys are the signers).
 */

/** A @solana/web3.js `Keypair`, or anything holding the 64-byte ed25519 secret key (seed, then public key). */
export interface SolanaKeypairSigner {
  readonly secretKey: Uint8Array;
}

/** A transaction class of @solana/web3.js (`Transaction`): decodes the quote's bytes into what a wallet signs. */
export interface SolanaTransactionCodec<T> {
  from(bytes: Uint8Array): T;
}

/**
 * A wallet (a wallet adapter, Phantom's provider, …) that signs a transaction object; with the
 * `Transaction` class that decodes the served bytes into one and serializes it back.
 */
export interface SolanaWalletSigner<T extends SerializableTransaction = SerializableTransaction> {
  signTransaction(tx: T): Promise<T>;
  readonly Transaction: SolanaTransactionCodec<T>;
}

export interface SerializableTransaction {
  serialize(options: { requireAllSignatures: boolean; verifySignatures: boolean }): Uint8Array;
}

/** Any signer at all: takes the unsigned transaction (base64) and returns it signed (base64). */
export type SolanaSignFunction = (txBase64: string) => Promise<string>;

export type SolanaSigner = SolanaKeypairSigner | SolanaWalletSigner | SolanaSignFunction;

/**
 * The served transaction signed by `signer` in its own slot only (the relayer's fee-payer slot
 * stays empty): what SubmitGaslessOrder's `svm.tx_base64` takes.
 */
export async function signSolanaTransaction(txBase64: string, signer: SolanaSigner): Promise<string> {
  if (typeof signer === 'function') return signer(txBase64);
  if ('signTransaction' in signer) {
    const signed = await signer.signTransaction(signer.Transaction.from(fromBase64(txBase64)));
    return toBase64(signed.serialize({ requireAllSignatures: false, verifySignatures: false }));
  }
  return toBase64(await signWithKeypair(fromBase64(txBase64), signer.secretKey));
}

async function signWithKeypair(tx: Uint8Array, secretKey: Uint8Array): Promise<Uint8Array> {
  if (secretKey.length !== 64) throw new TypeError('a Solana secret key is 64 bytes (seed, then public key)');
  const publicKey = secretKey.subarray(32);
  const [slots, sigStart] = compactU16(tx, 0);
  const message = tx.subarray(sigStart + slots * 64);
  // A versioned message starts with 0x80 | version; a legacy one with its header.
  const header = message[0] !== undefined && message[0] & 0x80 ? 1 : 0;
  const required = message[header];
  if (required === undefined || required > slots) throw new TypeError('not a Solana transaction: its message header is missing');
  const [keys, keyStart] = compactU16(message, header + 3);
  for (let i = 0; i < Math.min(required, keys); i++) {
    const key = message.subarray(keyStart + i * 32, keyStart + (i + 1) * 32);
    if (!equal(key, publicKey)) continue;
    const signed = tx.slice();
    signed.set(await ed25519Sign(secretKey, message), sigStart + i * 64);
    return signed;
  }
  throw new TypeError('the key is not one of the transaction signers (is it the quote refund_address?)');
}

/** Ed25519 through WebCrypto: Node 20+ and current browsers have it; no Node import. */
async function ed25519Sign(secretKey: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new TypeError('signing with a Solana keypair needs WebCrypto (crypto.subtle); pass a signing function instead');
  const jwk = { kty: 'OKP', crv: 'Ed25519', d: base64Url(secretKey.subarray(0, 32)), x: base64Url(secretKey.subarray(32)) };
  const key = await subtle.importKey('jwk', jwk, { name: 'Ed25519' }, false, ['sign']);
  return new Uint8Array(await subtle.sign({ name: 'Ed25519' }, key, new Uint8Array(message)));
}

/** Solana's compact-u16 length prefix at `at`: its value and where what follows it starts. */
function compactU16(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const b = bytes[at + i];
    if (b === undefined) throw new TypeError('not a Solana transaction: it ends inside a length');
    value |= (b & 0x7f) << (7 * i);
    if (!(b & 0x80)) return [value, at + i + 1];
  }
  throw new TypeError('not a Solana transaction: a length is longer than three bytes');
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function fromBase64(s: string): Uint8Array {
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
}

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function base64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

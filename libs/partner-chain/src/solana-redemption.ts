import { PublicKey, SYSVAR_INSTRUCTIONS_PUBKEY, Secp256k1Program, Transaction, TransactionInstruction } from '@solana/web3.js';
import { type Address, type Hex, bytesToHex, hexToBytes, isAddress, isHex, sha256, size, stringToBytes } from 'viem';
import { type VoucherStruct, assertVoucher, voucherSigningPreimage } from './voucher';

const MAX_U64 = (1n << 64n) - 1n;

/** First 8 bytes of sha256("global:redeem_voucher"): the Anchor-style instruction discriminator. */
export const REDEEM_VOUCHER_DISCRIMINATOR: Uint8Array = hexToBytes(sha256(stringToBytes('global:redeem_voucher'))).slice(0, 8);

/** discriminator 8 + id 32 + chainId 8 + router 32 + token 32 + referrer 32 + amount 8 + signature 65. */
export const REDEEM_VOUCHER_DATA_LENGTH = 8 + 32 + 8 + 32 + 32 + 32 + 8 + 65;

export interface SolanaVoucherRedemptionInput {
  /** base58 */
  programId: string;
  /** base58; fee payer and the transaction's only signer. */
  payer: string;
  /** base58; the account paid. */
  referrer: string;
  voucher: VoucherStruct;
  /** 65 bytes r‖s‖v, as signVoucher returns it. */
  signature: Hex;
  /** The operator address that signed the voucher (the secp256k1 instruction checks it). */
  signer: Address;
  /** base58 */
  recentBlockhash: string;
}

function publicKey(name: string, value: string): PublicKey {
  const invalid = () => new Error(`${name} ${JSON.stringify(value)} is not a valid base58 Solana public key`);
  // PublicKey also takes numbers and byte arrays; only a base58 string is accepted here.
  if (typeof value !== 'string') throw invalid();
  let key: PublicKey;
  try {
    key = new PublicKey(value);
  } catch {
    throw invalid();
  }
  // Only the canonical base58 spelling of the 32 bytes.
  if (key.toBase58() !== value) throw invalid();
  return key;
}

function writeU64(view: DataView, offset: number, name: string, value: bigint): void {
  if (value < 0n || value > MAX_U64)
    throw new Error(`voucher ${name} ${value} does not fit in a u64 (Solana amounts and chain ids are u64)`);
  view.setBigUint64(offset, value, true);
}

/** The instruction data of redeem_voucher; layout in the README. */
export function encodeSolanaVoucherRedemptionData(voucher: VoucherStruct, signature: Hex): Uint8Array {
  assertVoucher(voucher);
  if (!isHex(signature, { strict: true }) || size(signature) !== 65)
    throw new Error(`voucher signature must be 65 bytes (r‖s‖v), got ${signature}`);
  const data = new Uint8Array(REDEEM_VOUCHER_DATA_LENGTH);
  const view = new DataView(data.buffer);
  let offset = 0;
  const put = (bytes: Uint8Array) => {
    data.set(bytes, offset);
    offset += bytes.length;
  };
  const putU64 = (name: string, value: bigint) => {
    writeU64(view, offset, name, value);
    offset += 8;
  };
  put(REDEEM_VOUCHER_DISCRIMINATOR);
  put(hexToBytes(voucher.id));
  putU64('chainId', voucher.chainId);
  put(hexToBytes(voucher.router));
  put(hexToBytes(voucher.token));
  put(hexToBytes(voucher.referrer));
  putU64('amount', voucher.amount);
  put(hexToBytes(signature));
  return data;
}

/** Whether instruction data starts with the redeem_voucher discriminator (whatever follows). */
export function isRedeemVoucherData(data: Uint8Array): boolean {
  return data.length >= REDEEM_VOUCHER_DISCRIMINATOR.length && REDEEM_VOUCHER_DISCRIMINATOR.every((b, i) => data[i] === b);
}

/**
 * The voucher and signature carried by redeem_voucher instruction data: the inverse of
 * encodeSolanaVoucherRedemptionData, for reading redemptions back from the chain. Throws on another
 * discriminator or another length, so a look-alike instruction is never read as a redemption.
 */
export function decodeSolanaVoucherRedemptionData(data: Uint8Array): { voucher: VoucherStruct; signature: Hex } {
  if (!isRedeemVoucherData(data)) throw new Error('instruction data does not start with the redeem_voucher discriminator');
  if (data.length !== REDEEM_VOUCHER_DATA_LENGTH)
    throw new Error(`redeem_voucher data must be ${REDEEM_VOUCHER_DATA_LENGTH} bytes, got ${data.length}`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let offset = REDEEM_VOUCHER_DISCRIMINATOR.length;
  const take = (n: number): Hex => bytesToHex(data.subarray(offset, (offset += n)));
  const takeU64 = (): bigint => {
    const value = view.getBigUint64(offset, true);
    offset += 8;
    return value;
  };
  const id = take(32);
  const chainId = takeU64();
  const router = take(32);
  const token = take(32);
  const referrer = take(32);
  const amount = takeU64();
  const signature = take(65);
  return { voucher: { id, chainId, router, token, referrer, amount }, signature };
}

/**
 * An unsigned legacy transaction, base64, redeeming a voucher with the Solana voucher program. Fee
 * payer `payer`; two instructions:
 *  0. Solana's native secp256k1 program verifies the operator's EIP-712 signature: its message is
 *     the voucher's signing preimage (keccak256 of it is the EIP-712 digest) and its eth address
 *     the operator's. The transaction fails here if the signature does not match.
 *  1. redeem_voucher to `programId` with accounts payer (signer, writable), referrer (writable),
 *     the instructions sysvar (read-only), through which the program checks that instruction 0
 *     verified this very voucher for its configured operator address.
 * The payer's wallet signs and sends it.
 */
export function buildSolanaVoucherRedemption(input: SolanaVoucherRedemptionInput): string {
  const programId = publicKey('programId', input.programId);
  const payer = publicKey('payer', input.payer);
  const referrer = publicKey('referrer', input.referrer);
  publicKey('recentBlockhash', input.recentBlockhash);
  if (!isAddress(input.signer, { strict: false })) throw new Error(`signer ${JSON.stringify(input.signer)} is not an EVM address`);
  const data = encodeSolanaVoucherRedemptionData(input.voucher, input.signature);
  const sig = hexToBytes(input.signature);
  const verify = Secp256k1Program.createInstructionWithEthAddress({
    ethAddress: input.signer,
    message: voucherSigningPreimage(input.voucher),
    signature: sig.slice(0, 64),
    recoveryId: sig[64]! >= 27 ? sig[64]! - 27 : sig[64]!,
  });
  const redeem = new TransactionInstruction({
    programId,
    keys: [
      { pubkey: payer, isSigner: true, isWritable: true },
      { pubkey: referrer, isSigner: false, isWritable: true },
      { pubkey: SYSVAR_INSTRUCTIONS_PUBKEY, isSigner: false, isWritable: false },
    ],
    data: Buffer.from(data),
  });
  const tx = new Transaction({ feePayer: payer, recentBlockhash: input.recentBlockhash }).add(verify, redeem);
  return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
}

import { createHash } from 'node:crypto';
import { Keypair, PublicKey, SYSVAR_INSTRUCTIONS_PUBKEY, Secp256k1Program, Transaction } from '@solana/web3.js';
import { type Hex, bytesToHex, getAddress, keccak256, recoverAddress } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import {
  REDEEM_VOUCHER_DATA_LENGTH,
  buildSolanaVoucherRedemption,
  decodeSolanaVoucherRedemptionData,
  encodeSolanaVoucherRedemptionData,
  isRedeemVoucherData,
} from './solana-redemption';
import { type VoucherStruct, signVoucher, voucherDigest } from './voucher';

const seeded = (n: number) => Keypair.fromSeed(new Uint8Array(32).fill(n)).publicKey;
const PAYER = seeded(7);
const REFERRER = seeded(8);
const PROGRAM = seeded(9);
const BLOCKHASH = seeded(10).toBase58();
const USDC_MINT = new PublicKey('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
const SIGNER_KEY: Hex = `0x${'11'.repeat(32)}`;
const SIGNER = privateKeyToAddress(SIGNER_KEY);

const voucher: VoucherStruct = {
  id: `0x${'c3'.repeat(32)}`,
  chainId: 900n,
  router: bytesToHex(PROGRAM.toBytes()),
  token: bytesToHex(USDC_MINT.toBytes()),
  referrer: bytesToHex(REFERRER.toBytes()),
  amount: 2_500_000n,
};

let signature: Hex;
beforeAll(async () => {
  signature = await signVoucher(voucher, SIGNER_KEY);
});

const build = (overrides: Partial<Parameters<typeof buildSolanaVoucherRedemption>[0]> = {}) =>
  buildSolanaVoucherRedemption({
    programId: PROGRAM.toBase58(),
    payer: PAYER.toBase58(),
    referrer: REFERRER.toBase58(),
    voucher,
    signature,
    signer: SIGNER,
    recentBlockhash: BLOCKHASH,
    ...overrides,
  });

/** The instruction data read back field by field, per the layout in the README. */
function parseData(data: Buffer) {
  let at = 0;
  const take = (n: number) => data.subarray(at, (at += n));
  const hex = (n: number) => bytesToHex(take(n));
  const u64 = () => take(8).readBigUInt64LE(0);
  const parsed = {
    discriminator: take(8).toString('hex'),
    id: hex(32),
    chainId: u64(),
    router: hex(32),
    token: hex(32),
    referrer: hex(32),
    amount: u64(),
    signature: hex(65),
  };
  return { ...parsed, rest: data.length - at };
}

describe('buildSolanaVoucherRedemption', () => {
  it('builds an unsigned legacy transaction paid by the payer: a secp256k1 check, then redeem_voucher', () => {
    const b64 = build();
    expect(Buffer.from(b64, 'base64').toString('base64')).toBe(b64);
    const tx = Transaction.from(Buffer.from(b64, 'base64'));
    expect(tx.feePayer?.toBase58()).toBe(PAYER.toBase58());
    expect(tx.recentBlockhash).toBe(BLOCKHASH);
    expect(tx.signatures).toHaveLength(1);
    expect(tx.signatures[0]!.publicKey.toBase58()).toBe(PAYER.toBase58());
    expect(tx.signatures[0]!.signature).toBeNull();
    expect(tx.instructions).toHaveLength(2);
    expect(tx.instructions[0]!.programId.toBase58()).toBe(Secp256k1Program.programId.toBase58());
    const ix = tx.instructions[1];
    expect(ix!.programId.toBase58()).toBe(PROGRAM.toBase58());
    expect(ix!.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable }))).toEqual([
      { pubkey: PAYER.toBase58(), isSigner: true, isWritable: true },
      { pubkey: REFERRER.toBase58(), isSigner: false, isWritable: true },
      { pubkey: SYSVAR_INSTRUCTIONS_PUBKEY.toBase58(), isSigner: false, isWritable: false },
    ]);
  });

  it('carries the discriminator, the voucher fields little-endian and the 65-byte signature', () => {
    const tx = Transaction.from(Buffer.from(build(), 'base64'));
    const parsed = parseData(tx.instructions[1]!.data);
    const expectedDiscriminator = createHash('sha256').update('global:redeem_voucher').digest().subarray(0, 8).toString('hex');
    expect(parsed).toEqual({
      discriminator: expectedDiscriminator,
      id: voucher.id,
      chainId: voucher.chainId,
      router: voucher.router,
      token: voucher.token,
      referrer: voucher.referrer,
      amount: voucher.amount,
      signature,
      rest: 0,
    });
    expect(tx.instructions[1]!.data).toHaveLength(8 + 32 + 8 + 32 * 3 + 8 + 65);
  });

  it('takes amounts up to 2^64-1 and refuses 2^64 and above (SPL amounts are u64)', () => {
    const max = (1n << 64n) - 1n;
    const tx = Transaction.from(Buffer.from(build({ voucher: { ...voucher, amount: max } }), 'base64'));
    expect(parseData(tx.instructions[1]!.data).amount).toBe(max);
    expect(() => build({ voucher: { ...voucher, amount: 1n << 64n } })).toThrow(/amount .* u64/);
    expect(() => build({ voucher: { ...voucher, amount: 1n << 100n } })).toThrow(/u64/);
    expect(() => build({ voucher: { ...voucher, chainId: 1n << 64n } })).toThrow(/chainId .* u64/);
  });

  it('refuses keys that are not base58 32-byte public keys, naming the field', () => {
    expect(() => build({ programId: 'not-a-key' })).toThrow(/programId .*not a valid base58 Solana public key/);
    expect(() => build({ payer: '0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl' })).toThrow(/payer .*not a valid base58/);
    expect(() => build({ referrer: '1111' })).toThrow(/referrer .*not a valid base58/);
    expect(() => build({ referrer: '' })).toThrow(/referrer .*not a valid base58/);
    expect(() => build({ recentBlockhash: 'xyz!' })).toThrow(/recentBlockhash .*not a valid base58/);
  });

  it("lets Solana's secp256k1 program verify the operator's EIP-712 signature over this voucher", () => {
    const data = Transaction.from(Buffer.from(build(), 'base64')).instructions[0]!.data;
    // one signature; offsets, then eth address (20), signature (64), recovery id (1), message
    expect(data[0]).toBe(1);
    const offsets = { sig: data.readUInt16LE(1), eth: data.readUInt16LE(4), msg: data.readUInt16LE(7), msgLen: data.readUInt16LE(9) };
    const eth = getAddress(bytesToHex(data.subarray(offsets.eth, offsets.eth + 20)));
    const sig = data.subarray(offsets.sig, offsets.sig + 64);
    const recovery = data[offsets.sig + 64]!;
    const message = data.subarray(offsets.msg, offsets.msg + offsets.msgLen);
    expect(eth).toBe(SIGNER);
    // keccak256(message) is the EIP-712 digest, and the signature over it recovers the operator
    expect(keccak256(message)).toBe(voucherDigest(voucher));
    const recovered = recoverAddress({
      hash: keccak256(message),
      signature: { r: bytesToHex(sig.subarray(0, 32)), s: bytesToHex(sig.subarray(32)), yParity: recovery },
    });
    return expect(recovered).resolves.toBe(SIGNER);
  });

  it('refuses a signature that is not 65 bytes', () => {
    expect(() => build({ signature: `0x${'00'.repeat(64)}` })).toThrow(/65 bytes/);
  });
});

describe('decodeSolanaVoucherRedemptionData', () => {
  it('reads back exactly what the encoder wrote, including u64 extremes', () => {
    const cases: VoucherStruct[] = [
      voucher,
      { ...voucher, amount: (1n << 64n) - 1n, chainId: 0n },
      { ...voucher, amount: 1n, chainId: (1n << 64n) - 1n, id: `0x${'00'.repeat(31)}01` },
    ];
    for (const v of cases)
      expect(decodeSolanaVoucherRedemptionData(encodeSolanaVoucherRedemptionData(v, signature))).toEqual({ voucher: v, signature });
  });

  it('reads the data of the instruction the builder puts in the transaction', () => {
    const tx = Transaction.from(Buffer.from(build(), 'base64'));
    expect(decodeSolanaVoucherRedemptionData(tx.instructions[1]!.data)).toEqual({ voucher, signature });
  });

  it('reads data that sits at an offset inside a larger buffer', () => {
    const data = encodeSolanaVoucherRedemptionData(voucher, signature);
    const padded = new Uint8Array(data.length + 5);
    padded.set(data, 3);
    expect(decodeSolanaVoucherRedemptionData(padded.subarray(3, 3 + data.length))).toEqual({ voucher, signature });
  });

  it('refuses another discriminator and a wrong length', () => {
    const data = encodeSolanaVoucherRedemptionData(voucher, signature);
    const other = Uint8Array.from(data);
    other[0] = other[0]! ^ 0xff;
    expect(isRedeemVoucherData(data)).toBe(true);
    expect(isRedeemVoucherData(other)).toBe(false);
    expect(isRedeemVoucherData(data.subarray(0, 7))).toBe(false);
    expect(() => decodeSolanaVoucherRedemptionData(other)).toThrow(/discriminator/);
    expect(() => decodeSolanaVoucherRedemptionData(data.subarray(0, REDEEM_VOUCHER_DATA_LENGTH - 1))).toThrow(
      new RegExp(`${REDEEM_VOUCHER_DATA_LENGTH} bytes, got ${REDEEM_VOUCHER_DATA_LENGTH - 1}`),
    );
    const longer = new Uint8Array(REDEEM_VOUCHER_DATA_LENGTH + 1);
    longer.set(data);
    expect(() => decodeSolanaVoucherRedemptionData(longer)).toThrow(/bytes, got/);
  });
});

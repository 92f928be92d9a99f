import { createHash } from 'node:crypto';
import { Keypair, PublicKey, SYSVAR_INSTRUCTIONS_PUBKEY, Transaction } from '@solana/web3.js';
import { type Hex, bytesToHex } from 'viem';
import { buildSolanaVoucherRedemption } from './solana-redemption';
import { type VoucherStruct, signVoucher } from './voucher';

const seeded = (n: number) => Keypair.fromSeed(new Uint8Array(32).fill(n)).publicKey;
const PAYER = seeded(7);
const REFERRER = seeded(8);
const PROGRAM = seeded(9);
const BLOCKHASH = seeded(10).toBase58();
const USDC_MINT = new PublicKey('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
const SIGNER_KEY: Hex = `0x${'11'.repeat(32)}`;

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
  it('builds an unsigned legacy transaction paid by the payer with one redeem_voucher instruction', () => {
    const b64 = build();
    expect(Buffer.from(b64, 'base64').toString('base64')).toBe(b64);
    const tx = Transaction.from(Buffer.from(b64, 'base64'));
    expect(tx.feePayer?.toBase58()).toBe(PAYER.toBase58());
    expect(tx.recentBlockhash).toBe(BLOCKHASH);
    expect(tx.signatures).toHaveLength(1);
    expect(tx.signatures[0]!.publicKey.toBase58()).toBe(PAYER.toBase58());
    expect(tx.signatures[0]!.signature).toBeNull();
    expect(tx.instructions).toHaveLength(1);
    const [ix] = tx.instructions;
    expect(ix!.programId.toBase58()).toBe(PROGRAM.toBase58());
    expect(ix!.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable }))).toEqual([
      { pubkey: PAYER.toBase58(), isSigner: true, isWritable: true },
      { pubkey: REFERRER.toBase58(), isSigner: false, isWritable: true },
      { pubkey: SYSVAR_INSTRUCTIONS_PUBKEY.toBase58(), isSigner: false, isWritable: false },
    ]);
  });

  it('carries the discriminator, the voucher fields little-endian and the 65-byte signature', () => {
    const tx = Transaction.from(Buffer.from(build(), 'base64'));
    const parsed = parseData(tx.instructions[0]!.data);
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
    expect(tx.instructions[0]!.data).toHaveLength(8 + 32 + 8 + 32 * 3 + 8 + 65);
  });

  it('takes amounts up to 2^64-1 and refuses 2^64 and above (SPL amounts are u64)', () => {
    const max = (1n << 64n) - 1n;
    const tx = Transaction.from(Buffer.from(build({ voucher: { ...voucher, amount: max } }), 'base64'));
    expect(parseData(tx.instructions[0]!.data).amount).toBe(max);
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

  it('refuses a signature that is not 65 bytes', () => {
    expect(() => build({ signature: `0x${'00'.repeat(64)}` })).toThrow(/65 bytes/);
  });
});

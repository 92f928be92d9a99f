import { createHash } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { base58Encode } from '@xchain/order-codec';
import { type VoucherStruct, encodeSolanaVoucherRedemptionData, signVoucher } from '@xchain/partner-chain';
import type { SvmTransactionJson } from '@xchain/contracts';
import { type Hex, bytesToHex } from 'viem';
import { readVoucherRedemptions } from './solana-redemptions';

const key = (n: number) => Keypair.fromSeed(new Uint8Array(32).fill(n)).publicKey;
const PROGRAM = key(9).toBase58();
const OTHER_PROGRAM = key(11).toBase58();
const voucher = (n: number): VoucherStruct => ({
  id: `0x${n.toString(16).padStart(2, '0').repeat(32)}`,
  chainId: 900n,
  router: bytesToHex(key(9).toBytes()),
  token: bytesToHex(key(12).toBytes()),
  referrer: bytesToHex(key(8).toBytes()),
  amount: 1_000_000n + BigInt(n),
});

let signature: Hex;
beforeAll(async () => {
  signature = await signVoucher(voucher(1), `0x${'11'.repeat(32)}`);
});

const data = (v: VoucherStruct) => base58Encode(encodeSolanaVoucherRedemptionData(v, signature));

/** keys: payer, referrer, PROGRAM, OTHER_PROGRAM, sysvar. */
function tx(instructions: { program: string; data: string }[], err: unknown = null): SvmTransactionJson {
  const accountKeys = [key(7).toBase58(), key(8).toBase58(), PROGRAM, OTHER_PROGRAM, 'Sysvar1nstructions1111111111111111111111111'];
  return {
    slot: 42,
    blockTime: 1_790_000_000,
    meta: { err },
    transaction: {
      signatures: ['1'.repeat(64)],
      message: {
        accountKeys,
        instructions: instructions.map((i) => ({ programIdIndex: accountKeys.indexOf(i.program), accounts: [0, 1, 4], data: i.data })),
      },
    },
  };
}

describe('readVoucherRedemptions', () => {
  it('reads each redeem_voucher instruction to the voucher program, with its index', () => {
    const out = readVoucherRedemptions(
      tx([
        { program: OTHER_PROGRAM, data: data(voucher(3)) },
        { program: PROGRAM, data: data(voucher(1)) },
        { program: PROGRAM, data: data(voucher(2)) },
      ]),
      PROGRAM,
    );
    expect(out).toEqual({
      redeemed: [
        { index: 1, voucher: voucher(1) },
        { index: 2, voucher: voucher(2) },
      ],
      unreadable: [],
    });
  });

  it('reads nothing from a failed transaction', () => {
    expect(
      readVoucherRedemptions(tx([{ program: PROGRAM, data: data(voucher(1)) }], { InstructionError: [1, { Custom: 6000 }] }), PROGRAM),
    ).toEqual({ redeemed: [], unreadable: [] });
  });

  it('reads nothing from another program, even with the same data', () => {
    expect(readVoucherRedemptions(tx([{ program: OTHER_PROGRAM, data: data(voucher(1)) }]), PROGRAM).redeemed).toEqual([]);
  });

  it('reads nothing from an instruction with another discriminator', () => {
    const bytes = encodeSolanaVoucherRedemptionData(voucher(1), signature);
    bytes.set(createHash('sha256').update('global:cancel_voucher').digest().subarray(0, 8), 0);
    expect(readVoucherRedemptions(tx([{ program: PROGRAM, data: base58Encode(bytes) }]), PROGRAM)).toEqual({
      redeemed: [],
      unreadable: [],
    });
  });

  it('reports, and does not read, a redeem_voucher instruction of the wrong length', () => {
    const short = base58Encode(encodeSolanaVoucherRedemptionData(voucher(1), signature).subarray(0, 100));
    expect(readVoucherRedemptions(tx([{ program: PROGRAM, data: short }]), PROGRAM)).toEqual({
      redeemed: [],
      unreadable: [{ index: 0, reason: expect.stringMatching(/got 100/) }],
    });
  });

  it('asks again rather than guess when the transaction comes without its status', () => {
    expect(() => readVoucherRedemptions({ ...tx([{ program: PROGRAM, data: data(voucher(1)) }]), meta: null }, PROGRAM)).toThrow(
      /without its status/,
    );
  });
});

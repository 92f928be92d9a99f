import { type Hex, concat, decodeFunctionData, encodeAbiParameters, keccak256, pad, stringToBytes, toFunctionSelector } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  REFERRAL_VOUCHER_ROUTER_ABI,
  type VoucherStruct,
  encodeVoucherRedemption,
  recoverVoucherSigner,
  signVoucher,
  voucherDigest,
} from './voucher';

const SIGNER_KEY: Hex = `0x${'11'.repeat(32)}`;
const SIGNER = privateKeyToAccount(SIGNER_KEY).address;

const voucher: VoucherStruct = {
  id: `0x${'01'.repeat(32)}`,
  chainId: 8453n,
  router: pad('0x2222222222222222222222222222222222222222'),
  token: pad('0x833589fcd6e678d80b0a6e0ac0a4e6c43f9a7e3c'),
  referrer: pad('0x3333333333333333333333333333333333333333'),
  amount: 1_500_000n,
};

/** EIP-712 written out by hand: a domain of name and version only. */
function digestByHand(v: VoucherStruct): Hex {
  const domainType = keccak256(stringToBytes('EIP712Domain(string name,string version)'));
  const domainSeparator = keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }],
      [domainType, keccak256(stringToBytes('XchainReferralVouchers')), keccak256(stringToBytes('1'))],
    ),
  );
  const voucherType = keccak256(
    stringToBytes('Voucher(bytes32 id,uint256 chainId,bytes32 router,bytes32 token,bytes32 referrer,uint256 amount)'),
  );
  const structHash = keccak256(
    encodeAbiParameters(
      [
        { type: 'bytes32' },
        { type: 'bytes32' },
        { type: 'uint256' },
        { type: 'bytes32' },
        { type: 'bytes32' },
        { type: 'bytes32' },
        { type: 'uint256' },
      ],
      [voucherType, v.id, v.chainId, v.router, v.token, v.referrer, v.amount],
    ),
  );
  return keccak256(concat(['0x1901', domainSeparator, structHash]));
}

describe('referral vouchers', () => {
  it('hashes with the name/version-only domain and the Voucher struct', () => {
    expect(voucherDigest(voucher)).toBe(digestByHand(voucher));
    expect(voucherDigest({ ...voucher, chainId: 1n })).not.toBe(voucherDigest(voucher));
  });

  it('recovers the signer from a signed voucher, and another address once any field changes', async () => {
    const signature = await signVoucher(voucher, SIGNER_KEY);
    expect(signature).toMatch(/^0x[0-9a-f]{130}$/);
    expect(await recoverVoucherSigner(voucher, signature)).toBe(SIGNER);
    const changed: VoucherStruct[] = [
      { ...voucher, id: `0x${'02'.repeat(32)}` },
      { ...voucher, chainId: 10n },
      { ...voucher, router: pad('0x4444444444444444444444444444444444444444') },
      { ...voucher, token: `0x${'00'.repeat(32)}` },
      { ...voucher, referrer: pad('0x5555555555555555555555555555555555555555') },
      { ...voucher, amount: voucher.amount + 1n },
    ];
    for (const v of changed) expect(await recoverVoucherSigner(v, signature)).not.toBe(SIGNER);
  });

  it('refuses a voucher with a field that does not fit the struct', async () => {
    expect(() => voucherDigest({ ...voucher, router: '0x2222222222222222222222222222222222222222' })).toThrow(/router .* 32-byte/);
    expect(() => voucherDigest({ ...voucher, amount: -1n })).toThrow(/amount/);
    await expect(signVoucher({ ...voucher, amount: 1n << 256n }, SIGNER_KEY)).rejects.toThrow(/uint256/);
  });

  it('encodes redeem(voucher, signature) calldata that decodes back', async () => {
    const signature = await signVoucher(voucher, SIGNER_KEY);
    const calldata = encodeVoucherRedemption(voucher, signature);
    expect(calldata.slice(0, 10)).toBe(toFunctionSelector('redeem((bytes32,uint256,bytes32,bytes32,bytes32,uint256),bytes)'));
    const decoded = decodeFunctionData({ abi: REFERRAL_VOUCHER_ROUTER_ABI, data: calldata });
    expect(decoded.functionName).toBe('redeem');
    expect(decoded.args).toEqual([voucher, signature]);
  });
});

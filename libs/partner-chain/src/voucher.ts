import {
  type Address,
  type Hex,
  concat,
  encodeFunctionData,
  hashDomain,
  hashStruct,
  hashTypedData,
  hexToBytes,
  isHex,
  recoverTypedDataAddress,
  size,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/**
 * A referral voucher, field for field the `Voucher` struct of contracts/src/IReferralVoucherRouter.sol.
 * Every address is a bytes32 so EVM and Solana vouchers share the struct: an EVM address is
 * left-padded with zeros, a Solana key is its 32 bytes.
 */
export type VoucherStruct = {
  /** bytes32, unique per voucher; the router refuses a second redemption. */
  id: Hex;
  chainId: bigint;
  /** bytes32: the router (EVM) or program (Solana) that pays out. */
  router: Hex;
  /** bytes32: the token paid out. */
  token: Hex;
  /** bytes32: who is paid. */
  referrer: Hex;
  amount: bigint;
};

/** No chainId or verifyingContract: both are inside the struct, so one domain covers Solana too. */
export const VOUCHER_EIP712_DOMAIN = { name: 'XchainReferralVouchers', version: '1' } as const;

export const VOUCHER_EIP712_TYPES = {
  Voucher: [
    { name: 'id', type: 'bytes32' },
    { name: 'chainId', type: 'uint256' },
    { name: 'router', type: 'bytes32' },
    { name: 'token', type: 'bytes32' },
    { name: 'referrer', type: 'bytes32' },
    { name: 'amount', type: 'uint256' },
  ],
} as const;

const VOUCHER_COMPONENTS = VOUCHER_EIP712_TYPES.Voucher;

/** The ABI of contracts/src/IReferralVoucherRouter.sol, item for item. */
export const REFERRAL_VOUCHER_ROUTER_ABI = [
  {
    type: 'event',
    name: 'VoucherRedeemed',
    anonymous: false,
    inputs: [
      { name: 'id', type: 'bytes32', indexed: true },
      { name: 'referrer', type: 'bytes32', indexed: true },
      { name: 'token', type: 'bytes32', indexed: false },
      { name: 'amount', type: 'uint256', indexed: false },
    ],
  },
  {
    type: 'function',
    name: 'redeem',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'voucher', type: 'tuple', components: VOUCHER_COMPONENTS },
      { name: 'signature', type: 'bytes' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'redeemed',
    stateMutability: 'view',
    inputs: [{ name: 'id', type: 'bytes32' }],
    outputs: [{ name: '', type: 'bool' }],
  },
] as const;

const MAX_UINT256 = (1n << 256n) - 1n;

function checkBytes32(name: string, value: Hex): void {
  if (!isHex(value, { strict: true }) || size(value) !== 32) throw new Error(`voucher ${name} ${value} is not a 32-byte hex value`);
}

function checkUint256(name: string, value: bigint): void {
  if (value < 0n || value > MAX_UINT256) throw new Error(`voucher ${name} ${value} does not fit in a uint256`);
}

/** Throws a plain Error naming the first field that does not fit the struct. */
export function assertVoucher(v: VoucherStruct): void {
  checkBytes32('id', v.id);
  checkUint256('chainId', v.chainId);
  checkBytes32('router', v.router);
  checkBytes32('token', v.token);
  checkBytes32('referrer', v.referrer);
  checkUint256('amount', v.amount);
}

function typedData(v: VoucherStruct) {
  assertVoucher(v);
  return {
    domain: VOUCHER_EIP712_DOMAIN,
    types: VOUCHER_EIP712_TYPES,
    primaryType: 'Voucher',
    message: { id: v.id, chainId: v.chainId, router: v.router, token: v.token, referrer: v.referrer, amount: v.amount },
  } as const;
}

/** The EIP-712 digest a voucher signature signs. */
export function voucherDigest(v: VoucherStruct): Hex {
  return hashTypedData(typedData(v));
}

/**
 * The 66 bytes whose keccak256 is the digest: 0x1901 ‖ domain separator ‖ struct hash. Solana's
 * secp256k1 program hashes its message with keccak256, so this is the message it verifies.
 */
export function voucherSigningPreimage(v: VoucherStruct): Uint8Array {
  const t = typedData(v);
  const domain = hashDomain({
    domain: t.domain,
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
      ],
      ...t.types,
    },
  });
  const struct = hashStruct({ data: t.message, primaryType: 'Voucher', types: t.types });
  return hexToBytes(concat(['0x1901', domain, struct]));
}

/** A 65-byte r‖s‖v EIP-712 signature over the voucher (v is 27 or 28). */
export async function signVoucher(v: VoucherStruct, privateKey: Hex): Promise<Hex> {
  return privateKeyToAccount(privateKey).signTypedData(typedData(v));
}

export async function recoverVoucherSigner(v: VoucherStruct, signature: Hex): Promise<Address> {
  return recoverTypedDataAddress({ ...typedData(v), signature });
}

/** Calldata of `redeem(voucher, signature)`; the transaction goes to the router with value 0. */
export function encodeVoucherRedemption(v: VoucherStruct, signature: Hex): Hex {
  assertVoucher(v);
  if (!isHex(signature, { strict: true })) throw new Error(`voucher signature ${signature} is not hex`);
  return encodeFunctionData({ abi: REFERRAL_VOUCHER_ROUTER_ABI, functionName: 'redeem', args: [{ ...v }, signature] });
}

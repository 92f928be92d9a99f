import { type Hex, encodeAbiParameters, getAddress, keccak256, toHex } from 'viem';
import { base58Decode, base58Encode } from './base58';
import { encodeOrder } from './order-abi';
import { keccak256Hex } from './keccak';

export type AddressVm = 'evm' | 'svm';

export interface OrderReferrer {
  account: Hex; // bytes32
  bps: number;
}

/** The published Order struct (contracts/src/XchainOrder.sol), field for field. */
export interface Order {
  version: number;
  salt: Hex;
  srcChainId: bigint;
  dstChainId: bigint;
  srcToken: Hex;
  dstToken: Hex;
  amountIn: bigint;
  amountOut: bigint;
  minAmountOut: bigint;
  recipient: Hex;
  refundAddress: Hex;
  gasDrop: bigint;
  tradeType: number;
  slippageBps: number;
  srcSlippageBps: number;
  dstGasNative: bigint;
  sponsorGas: bigint;
  gasless: boolean;
  sponsorFees: boolean;
  referrersHash: Hex;
  issuedAt: bigint;
  expiresAt: bigint;
  depositTarget: Hex;
}

/** The ABI tuple of Order, in struct order. */
export const ORDER_ABI_COMPONENTS = [
  { name: 'version', type: 'uint8' },
  { name: 'salt', type: 'bytes32' },
  { name: 'srcChainId', type: 'uint64' },
  { name: 'dstChainId', type: 'uint64' },
  { name: 'srcToken', type: 'bytes32' },
  { name: 'dstToken', type: 'bytes32' },
  { name: 'amountIn', type: 'uint256' },
  { name: 'amountOut', type: 'uint256' },
  { name: 'minAmountOut', type: 'uint256' },
  { name: 'recipient', type: 'bytes32' },
  { name: 'refundAddress', type: 'bytes32' },
  { name: 'gasDrop', type: 'uint256' },
  { name: 'tradeType', type: 'uint8' },
  { name: 'slippageBps', type: 'uint16' },
  { name: 'srcSlippageBps', type: 'uint16' },
  { name: 'dstGasNative', type: 'uint256' },
  { name: 'sponsorGas', type: 'uint256' },
  { name: 'gasless', type: 'bool' },
  { name: 'sponsorFees', type: 'bool' },
  { name: 'referrersHash', type: 'bytes32' },
  { name: 'issuedAt', type: 'uint64' },
  { name: 'expiresAt', type: 'uint64' },
  { name: 'depositTarget', type: 'bytes32' },
] as const;

const REFERRERS_ARRAY = [
  {
    type: 'tuple[]',
    components: [
      { name: 'account', type: 'bytes32' },
      { name: 'bps', type: 'uint16' },
    ],
  },
] as const;

export const ZERO_BYTES32: Hex = `0x${'0'.repeat(64)}`;

/**
 * keccak256(abi.encode(order)): the quote hash. Encoded by order-abi.ts and hashed by
 * keccak256Hex (WebAssembly: GetQuote hashes every order, see keccak.ts) instead of viem;
 * order-abi.spec.ts checks the result against viem's keccak256(encodeAbiParameters(...)).
 * `encoded`: the order's encoding when the caller needs it too (a quote's deposit calldata).
 */
export function hashOrder(order: Order, encoded: Uint8Array = encodeOrder(order)): Hex {
  return `0x${keccak256Hex(encoded)}`;
}

export function hashReferrers(referrers: readonly OrderReferrer[]): Hex {
  return referrers.length === 0
    ? ZERO_BYTES32
    : keccak256(encodeAbiParameters(REFERRERS_ARRAY, [referrers.map((r) => ({ account: r.account, bps: r.bps }))]));
}

/** viem's isAddress without its checksum check, and without the LRU cache it keeps (a Map delete and set per call). */
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** An EVM address in any case: `0x` and 40 hex digits (viem's `isAddress` with `strict: false`). */
export function isEvmAddress(address: string): boolean {
  return EVM_ADDRESS.test(address);
}

/** The 40 ASCII bytes of the lowercase hex, reused (the hash is synchronous). */
const hexText = new Uint8Array(40);

/**
 * EIP-55 form of an EVM address (any case in): each letter of the lowercase hex is upper-cased
 * where the keccak256 of that lowercase hex text has a nibble of 8 or more. The same result as
 * viem's `getAddress`, which hashes with a JavaScript Keccak behind an LRU cache; this uses the
 * WebAssembly one (`keccak256Hex`), cheaper per address. The last few thousand answers are kept
 * (a wallet quotes from the same addresses again and again; a full table is emptied).
 */
export function checksumEvmAddress(address: string): string {
  let cased = checksummed.get(address);
  if (cased === undefined) {
    if (checksummed.size >= CHECKSUMS_KEPT) checksummed.clear();
    cased = checksumOf(address);
    checksummed.set(address, cased);
  }
  return cased;
}

const CHECKSUMS_KEPT = 4096;
const checksummed = new Map<string, string>();

function checksumOf(address: string): string {
  const lower = address.slice(2).toLowerCase();
  for (let i = 0; i < 40; i++) hexText[i] = lower.charCodeAt(i);
  const hash = keccak256Hex(hexText);
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = lower[i]!;
    out += c > '9' && hash.charCodeAt(i) >= 56 /* '8' */ ? c.toUpperCase() : c;
  }
  return out;
}

/** An address as bytes32: EVM left-padded (any case accepted), Solana's 32 key bytes. */
export function toBytes32(vm: AddressVm, address: string): Hex {
  if (vm === 'evm') {
    if (!EVM_ADDRESS.test(address)) throw new Error(`${address} is not an EVM address`);
    return `0x${'0'.repeat(24)}${address.slice(2).toLowerCase()}`;
  }
  const bytes = base58Decode(address);
  if (bytes.length !== 32) throw new Error(`${address} is not a 32-byte Solana key`);
  return toHex(bytes);
}

export function fromBytes32(vm: AddressVm, value: Hex): string {
  if (vm === 'evm') return getAddress(`0x${value.slice(26)}`);
  const hex = value.slice(2);
  return base58Encode(Uint8Array.from(hex.match(/../g)!.map((b) => parseInt(b, 16))));
}

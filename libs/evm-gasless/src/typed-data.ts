import { ORDER_ABI_COMPONENTS, type Order, encodeOrder, keccak256Hex } from '@xchain/order-codec';
import { type Address, type Hex, concatBytes, getAddress, hexToBigInt, hexToBytes, keccak256, maxUint256, toHex } from 'viem';

/** The canonical Permit2, at the same address on every chain. */
export const PERMIT2_ADDRESS: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3';

/** EIP-712 field list of the witness: the published Order struct, field for field. */
export const ORDER_EIP712_FIELDS = ORDER_ABI_COMPONENTS.map((c) => ({ name: c.name, type: c.type }));

/** `Order(uint8 version,bytes32 salt,…)`: the witness struct's EIP-712 type. */
export const ORDER_EIP712_TYPE = `Order(${ORDER_EIP712_FIELDS.map((f) => `${f.type} ${f.name}`).join(',')})`;
export const TOKEN_PERMISSIONS_TYPE = 'TokenPermissions(address token,uint256 amount)';
/**
 * The `witnessTypeString` handed to Permit2's permitWitnessTransferFrom: the tail of
 * `PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,`
 * followed by the referenced structs sorted by name (Order, TokenPermissions).
 */
export const WITNESS_TYPE_STRING = `Order witness)${ORDER_EIP712_TYPE}${TOKEN_PERMISSIONS_TYPE}`;
export const ORDER_TYPEHASH = keccak256(toHex(ORDER_EIP712_TYPE));

const ORDER_TYPEHASH_BYTES = hexToBytes(ORDER_TYPEHASH);

/**
 * The witness Permit2 checks: the EIP-712 struct hash of the order, keccak256(typehash ‖
 * abi.encode(order)); every field is static, so the order's words are order-abi.ts's encoding.
 */
export function orderWitnessHash(order: Order): Hex {
  return `0x${keccak256Hex(concatBytes([ORDER_TYPEHASH_BYTES, encodeOrder(order)]))}`;
}

const DOMAIN_TYPE_PERMIT2 = [
  { name: 'name', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
];

/** JSON form of an order witness: integers as decimal strings, booleans as booleans, bytes32 as hex. */
export type OrderWitness = Record<string, string | boolean>;

export function orderWitness(order: Order): OrderWitness {
  const out: OrderWitness = {};
  for (const { name } of ORDER_ABI_COMPONENTS) {
    const v = order[name];
    out[name] = typeof v === 'boolean' || typeof v === 'string' ? v : String(v);
  }
  return out;
}

export interface Permit2TypedData {
  domain: { name: 'Permit2'; chainId: number; verifyingContract: Address };
  types: Record<string, { name: string; type: string }[]>;
  primaryType: 'PermitWitnessTransferFrom';
  message: {
    permitted: { token: Address; amount: string };
    spender: Address;
    nonce: string;
    deadline: string;
    witness: OrderWitness;
  };
}

export interface Permit2Input {
  order: Order;
  /** The gasless executor: the only spender the signature authorizes. */
  spender: Address;
  nonce: bigint;
  deadline: bigint;
}

/**
 * The exact EIP-712 typed data a gasless EVM quote asks its user to sign (D11): a Permit2
 * PermitWitnessTransferFrom of `amountIn` of the source token to the executor, with the order
 * itself as witness. JSON-safe (integers as decimal strings), and accepted as is by
 * `eth_signTypedData_v4` and viem's `signTypedData`.
 */
export function permit2TypedData({ order, spender, nonce, deadline }: Permit2Input): Permit2TypedData {
  return {
    domain: { name: 'Permit2', chainId: Number(order.srcChainId), verifyingContract: PERMIT2_ADDRESS },
    types: {
      EIP712Domain: DOMAIN_TYPE_PERMIT2,
      PermitWitnessTransferFrom: [
        { name: 'permitted', type: 'TokenPermissions' },
        { name: 'spender', type: 'address' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
        { name: 'witness', type: 'Order' },
      ],
      Order: ORDER_EIP712_FIELDS,
      TokenPermissions: [
        { name: 'token', type: 'address' },
        { name: 'amount', type: 'uint256' },
      ],
    },
    primaryType: 'PermitWitnessTransferFrom',
    message: {
      permitted: { token: tokenOf(order), amount: order.amountIn.toString() },
      spender: getAddress(spender),
      nonce: nonce.toString(),
      deadline: deadline.toString(),
      witness: orderWitness(order),
    },
  };
}

export interface Erc2612TypedData {
  domain: { name: string; version: string; chainId: number; verifyingContract: Address };
  types: Record<string, { name: string; type: string }[]>;
  primaryType: 'Permit';
  message: { owner: Address; spender: Address; value: string; nonce: string; deadline: string };
}

export interface Erc2612Input {
  chainId: bigint;
  token: Address;
  /** The token's EIP-712 domain name and version (EIP-5267 `eip712Domain()`, or `name()`/`version()`). */
  name: string;
  version: string;
  owner: Address;
  /** The token's `nonces(owner)`. */
  nonce: bigint;
  deadline: bigint;
}

/**
 * What every EIP-2612 permit to Permit2 approves: the maximum, not one order's `amountIn`. Two
 * quotes of one wallet, signed before either is relayed, carry permits on the same token nonce;
 * only the first relayed can be used, and the allowance it leaves must cover the second too.
 * The executor calls `permit` with this value (GaslessExecutor.PERMIT_VALUE), so it is signed over.
 */
export const ERC2612_PERMIT_VALUE = maxUint256;

/**
 * EIP-2612 permit of the source token to the canonical Permit2 (D11), as a wallet signs it: of
 * ERC2612_PERMIT_VALUE, so one signature serves this order and the wallet's later ones.
 */
export function erc2612TypedData(p: Erc2612Input): Erc2612TypedData {
  return {
    domain: { name: p.name, version: p.version, chainId: Number(p.chainId), verifyingContract: getAddress(p.token) },
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'Permit',
    message: {
      owner: getAddress(p.owner),
      spender: PERMIT2_ADDRESS,
      value: ERC2612_PERMIT_VALUE.toString(),
      nonce: p.nonce.toString(),
      deadline: p.deadline.toString(),
    },
  };
}

/** The source token of an EVM order as an address (the zero address is the native asset). */
export function tokenOf(order: Order): Address {
  return getAddress(`0x${order.srcToken.slice(26)}`);
}

/** Permit2 nonces are unordered: word `nonce >> 8` of the owner's bitmap, bit `nonce & 0xff`. */
export function permit2NonceSlot(nonce: bigint): { wordPos: bigint; bit: bigint } {
  return { wordPos: nonce >> 8n, bit: 1n << (nonce & 0xffn) };
}

/** A 256-bit Permit2 nonce from 32 random bytes (the caller supplies the randomness). */
export function permit2NonceFrom(random: Hex): bigint {
  return hexToBigInt(random);
}

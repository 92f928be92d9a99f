import { type Order, ZERO_BYTES32, encodeOrder, orderWordsHex } from '@xchain/order-codec';
import { type Address, type Hex, encodeFunctionData, getAbiItem, getAddress, toFunctionSelector, zeroAddress } from 'viem';
import { ERC20_PERMIT_ABI, GASLESS_EXECUTOR_ABI, XCHAIN_ROUTER_ABI } from './abi';

/**
 * What the router takes for an order: `amountIn`, less the relay gas of a gasless order whose
 * user pays it (the executor pays that part to the fee recipient). Mirrors XchainRouter.depositAmount.
 */
export function depositAmount(order: Order): bigint {
  return order.gasless && !order.sponsorFees ? order.amountIn - order.sponsorGas : order.amountIn;
}

/** The relay fee the executor pays the operator's fee recipient out of `amountIn`. */
export function relayFee(order: Order): bigint {
  return order.gasless && !order.sponsorFees ? order.sponsorGas : 0n;
}

/** A transaction to a router: where, what and how much of the native asset goes with it. */
export interface DepositTx {
  to: Address;
  data: Hex;
  value: bigint;
}

/** The same shape for any router call (fill, cancel, refund, claim). */
export type RouterTx = DepositTx;

/**
 * `deposit(Order)`, `refund(Order)` and `cancel(Order)` take the order alone, a static tuple encoded in place, so
 * their calldata is the selector and the order's words (order-abi.ts, faster than viem's generic
 * encoder on the quote path; the spec checks both against encodeFunctionData).
 */
const DEPOSIT_SELECTOR = toFunctionSelector(getAbiItem({ abi: XCHAIN_ROUTER_ABI, name: 'deposit' }));
const REFUND_SELECTOR = toFunctionSelector(getAbiItem({ abi: XCHAIN_ROUTER_ABI, name: 'refund' }));
const CANCEL_SELECTOR = toFunctionSelector(getAbiItem({ abi: XCHAIN_ROUTER_ABI, name: 'cancel' }));

/**
 * The last second (unix, inclusive) at which the router takes a deposit or a fill of an order:
 * `issuedAt + retention`. Mirrors XchainRouter.retainedUntil; `retentionSecs` is the router's
 * `retention`, equal to the quote-engine's QUOTE_RETENTION_SECS.
 */
export function retainedUntil(order: Order, retentionSecs: bigint | number): bigint {
  return order.issuedAt + BigInt(retentionSecs);
}

/**
 * The router call a wallet sends to deposit for an order itself (not gasless). `encoded`: the
 * order's encoding when the caller already made it (GetQuote hashed the order with it).
 */
export function depositTx(order: Order, router: Address, encoded: Uint8Array = encodeOrder(order)): DepositTx {
  return {
    to: router,
    data: `${DEPOSIT_SELECTOR}${orderWordsHex(encoded)}`,
    // The native asset is the zero address (lower-case bytes32, as every order holds it).
    value: order.srcToken === ZERO_BYTES32 ? depositAmount(order) : 0n,
  };
}

/** The destination token of an order for an EVM chain as an address (the zero address is the native asset). */
export function dstTokenOf(order: Order): Address {
  return getAddress(`0x${order.dstToken.slice(26)}`);
}

/**
 * The destination router call a filler sends to deliver an order: `amount` (at least
 * `minAmountOut`) of the destination token and `gasDrop` of the native asset to the recipient.
 * For a native destination the value carries both; for an ERC-20 it carries the gas drop and the
 * router pulls `amount` from the filler, who must have approved the router first.
 */
export function fillTx(order: Order, amount: bigint, router: Address): RouterTx {
  return {
    to: router,
    data: encodeFunctionData({ abi: XCHAIN_ROUTER_ABI, functionName: 'fill', args: [order, amount] }),
    value: dstTokenOf(order) === zeroAddress ? amount + order.gasDrop : order.gasDrop,
  };
}

/** The source router call its refunder sends to return an unfilled order's deposit to `refundAddress`. */
export function refundTx(order: Order, router: Address): RouterTx {
  return {
    to: router,
    data: `${REFUND_SELECTOR}${orderWordsHex(encodeOrder(order))}`,
    value: 0n,
  };
}

/**
 * The destination router call its refunder sends so an order can no longer be filled there, before
 * refunding it on the source chain. Cancelling twice is harmless (no second event).
 */
export function cancelTx(order: Order, router: Address): RouterTx {
  return {
    to: router,
    data: `${CANCEL_SELECTOR}${orderWordsHex(encodeOrder(order))}`,
    value: 0n,
  };
}

/**
 * The source router call its settler sends to move delivered orders' deposits to the treasury, in
 * one batch: one order the router refuses reverts all of them.
 */
export function claimTx(orders: readonly Order[], router: Address): RouterTx {
  return {
    to: router,
    data: encodeFunctionData({ abi: XCHAIN_ROUTER_ABI, functionName: 'claim', args: [orders] }),
    value: 0n,
  };
}

/** ERC-20 `approve(spender, amount)` calldata. */
export function approveCalldata(spender: Address, amount: bigint): Hex {
  return encodeFunctionData({ abi: ERC20_PERMIT_ABI, functionName: 'approve', args: [spender, amount] });
}

export interface ExecuteInput {
  order: Order;
  owner: Address;
  nonce: bigint;
  deadline: bigint;
  signature: Hex;
  /** EIP-2612 permit signature (65 bytes), or `0x` for none. */
  permitSignature: Hex;
}

/** The executor call the relayer sends for a gasless order. */
export function executeCalldata(p: ExecuteInput): Hex {
  return encodeFunctionData({
    abi: GASLESS_EXECUTOR_ABI,
    functionName: 'execute',
    args: [p.order, p.owner, p.nonce, p.deadline, p.signature, p.permitSignature],
  });
}

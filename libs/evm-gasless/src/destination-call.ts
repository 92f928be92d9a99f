import type { Order } from '@xchain/order-codec';
import { type Address, type Hex, decodeErrorResult, encodeAbiParameters, encodeFunctionData, keccak256, zeroAddress } from 'viem';
import { XCHAIN_CALL_PROXY_ABI, XCHAIN_ROUTER_ABI } from './abi';
import { type RouterTx, dstTokenOf } from './calls';

/** A call the router runs on the destination with the delivered tokens (XchainRouter.DestinationCall). */
export interface DestinationCall {
  target: Address;
  gasLimit: bigint;
  data: Hex;
}

/** keccak256(abi.encode(target, gasLimit, data)): what the order's salt commits to. */
export function destinationCallHash(call: DestinationCall): Hex {
  return keccak256(
    encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }, { type: 'bytes' }], [call.target, call.gasLimit, call.data]),
  );
}

/**
 * The salt of an order that carries a destination call: keccak256(abi.encode(callSalt, callHash)).
 * The router checks it, so the quote hash (which covers the salt) covers the call; `callSalt` is
 * random per quote, as a plain order's salt is.
 */
export function destinationCallSalt(callSalt: Hex, call: DestinationCall): Hex {
  return keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'bytes32' }], [callSalt, destinationCallHash(call)]));
}

/**
 * `fillWithCall(order, amount, call, callSalt)`: the fill of an order with a destination call. Value
 * as for `fill`: the gas drop, plus `amount` for a native destination.
 */
export function fillWithCallTx(order: Order, amount: bigint, call: DestinationCall, callSalt: Hex, router: Address): RouterTx {
  return {
    to: router,
    data: encodeFunctionData({ abi: XCHAIN_ROUTER_ABI, functionName: 'fillWithCall', args: [order, amount, call, callSalt] }),
    value: dstTokenOf(order) === zeroAddress ? amount + order.gasDrop : order.gasDrop,
  };
}

/**
 * Why a destination call reverted, from `fillWithCall`'s `reason` (the proxy's `CallReverted`
 * with the target's revert data): an `Error(string)` message, a custom error's selector, or the
 * raw bytes; "no revert data" when the target gave none (out of gas, a bare revert).
 */
export function destinationCallRevertReason(reason: Hex): string {
  let inner: Hex = reason;
  try {
    const proxy = decodeErrorResult({ abi: XCHAIN_CALL_PROXY_ABI, data: reason });
    if (proxy.errorName === 'CallReverted') inner = proxy.args[0];
    else return proxy.errorName;
  } catch {
    // not the proxy's error: the token transfer to the target failed; read it as it is
  }
  if (inner === '0x') return 'no revert data';
  try {
    const std = decodeErrorResult({ abi: STANDARD_ERRORS, data: inner });
    return std.errorName === 'Error' ? String(std.args[0]) : `panic ${String(std.args[0])}`;
  } catch {
    return inner.length <= 10 ? `custom error ${inner}` : `custom error ${inner.slice(0, 10)} (${inner})`;
  }
}

const STANDARD_ERRORS = [
  { type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] },
  { type: 'error', name: 'Panic', inputs: [{ name: 'code', type: 'uint256' }] },
] as const;

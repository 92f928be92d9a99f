import { type DestinationCallView, type OrderWire, SVM_NATIVE_ADDRESS, type SendOperatorTxRequest } from '@xchain/contracts';
import { cancelTx, claimTx, dstTokenOf, fillTx, fillWithCallTx, refundTx, type RouterTx } from '@xchain/evm-gasless';
import { type Order, orderFromWire } from '@xchain/order-codec';
import { SOL, claimBatchKey, svmOrderTerms } from '@xchain/svm-orders';
import { type Hex, getAddress, isAddress } from 'viem';
import type { ChainInfo, RegistryCache } from '../registry/registry-cache';
import type { SettlementStep } from './settlement.repository';

import { tokenKey } from '../registry/addresses';

export type OperatorCall = SendOperatorTxRequest['call'];

export { tokenKey } from '../registry/addresses';

/** The destination token of an order, as `tokenKey` gives it. */
export function dstTokenKey(vm: 'evm' | 'svm', order: Order, wire: OrderWire): string {
  if (vm === 'evm') return tokenKey('evm', dstTokenOf(order));
  const mint = svmOrderTerms(wire).dstToken;
  return mint === SOL ? SVM_NATIVE_ADDRESS : mint;
}

const evm = (tx: RouterTx): OperatorCall => ({ vm: 'evm', to: tx.to, data: tx.data, value: tx.value.toString() });

/**
 * The operator transaction of a settlement step (D15): the fill and the cancel on the destination,
 * the refund on the source. On EVM chains a router call (the refund to the router the order names,
 * the others to the registry's router of the chain); on Solana the order itself, which the relayer
 * turns into the transfers and memo the watcher accepts. Undefined: the chain has no router listed
 * (or, for a cancel, is not EVM: Solana has no router to record one). An order quoted with a
 * destination call is filled with `fillWithCall`, which runs it (or falls back to the recipient).
 */
export function operatorCall(
  step: SettlementStep,
  wire: OrderWire,
  chain: ChainInfo,
  registry: Pick<RegistryCache, 'token'>,
  destinationCall?: DestinationCallView,
): OperatorCall | undefined {
  const order = orderFromWire(wire).order;
  if (chain.vm === 'svm') {
    if (step === 'cancel') return undefined;
    const terms = svmOrderTerms(wire);
    const mint = step === 'fill' ? terms.dstToken : terms.srcToken;
    const decimals = mint === SOL ? undefined : registry.token(chain, mint)?.decimals;
    return {
      vm: 'svm',
      order: wire,
      ...(step === 'fill' ? { amount: order.amountOut.toString() } : {}),
      ...(decimals !== undefined ? { mint_decimals: decimals } : {}),
    };
  }
  if (step === 'refund') return evm(refundTx(order, getAddress(`0x${order.depositTarget.slice(26)}`)));
  if (!isAddress(chain.depositTarget, { strict: false })) return undefined;
  const router = getAddress(chain.depositTarget);
  if (step === 'fill' && destinationCall) {
    const call = {
      target: getAddress(destinationCall.target),
      gasLimit: BigInt(destinationCall.gas_limit),
      data: destinationCall.calldata as Hex,
    };
    return evm(fillWithCallTx(order, order.amountOut, call, destinationCall.call_salt as Hex, router));
  }
  return evm(step === 'fill' ? fillTx(order, order.amountOut, router) : cancelTx(order, router));
}

/**
 * A batch claim of filled orders' deposits to the treasury (D15), from their source chain: on EVM the
 * router's `claim` (the router the first order names; its treasury is the router's); on Solana the
 * orders themselves, which the relayer turns into one transfer of their deposits from the vault to
 * its treasury (a Solana batch holds one source token: see `formClaimBatches`).
 */
export function claimCall(wires: OrderWire[], chain: ChainInfo, registry: Pick<RegistryCache, 'token'>): OperatorCall {
  if (chain.vm === 'svm') {
    const mint = svmOrderTerms(wires[0]!).srcToken;
    const decimals = mint === SOL ? undefined : registry.token(chain, mint)?.decimals;
    return { vm: 'svm', claim: { orders: wires, ...(decimals !== undefined ? { mint_decimals: decimals } : {}) } };
  }
  const orders = wires.map((w) => orderFromWire(w).order);
  return evm(claimTx(orders, getAddress(`0x${orders[0]!.depositTarget.slice(26)}`)));
}

/** A claim batch's id (its operator transaction's key): keccak256 of its quote hashes, sorted (`claimBatchKey`, which the relayer checks). */
export const claimBatchId = (sorted: string[]): string => claimBatchKey(sorted);

import {
  type Erc2612TypedData,
  type Permit2TypedData,
  depositAmount,
  depositTx,
  erc2612TypedData,
  permit2TypedData,
} from '@xchain/evm-gasless';
import { type Order, checksumEvmAddress, fromBytes32 } from '@xchain/order-codec';
import type { Address } from 'viem';
import type { ChainInfo, TokenInfo } from '../registry/registry-cache';
import type { TokenPermit } from './permit-reader';

export interface EvmDepositInput {
  order: Order;
  /** The order's ABI encoding (encodeOrder), made once for its hash and its deposit calldata. */
  encoded?: Uint8Array;
  /** The source chain. */
  chain: ChainInfo;
  /** The source token. */
  token: TokenInfo;
  /** Permit2 nonce of a gasless quote: a random word per quote (D11). */
  permit2Nonce: bigint;
  /** The source token's permit state for the refund address, when it could be read. */
  tokenPermit?: TokenPermit;
}

/** What the wallet signs (gasless) or sends (not gasless) for a quote from an EVM chain. */
export interface EvmDepositFields {
  permit2?: Permit2TypedData;
  erc2612?: Erc2612TypedData;
  deposit_tx?: { to: string; data: string; value: string };
  approval?: { token: string; spender: string; amount: string };
}

/** A registry address (router, executor, token) in checksum case: `checksumEvmAddress` keeps the few there are. */
function registryAddress(address: string): Address {
  return checksumEvmAddress(address) as Address;
}

/**
 * A gasless order is pulled by the executor through Permit2 (D5, D11), so its user signs typed
 * data and sends nothing; any other order is deposited by the user's own call to the router.
 * The deadline of both permits is the quote's expiry: a signature outlives the quote by nothing.
 */
export function evmDepositFields({ order, encoded, chain, token, permit2Nonce, tokenPermit }: EvmDepositInput): EvmDepositFields {
  if (chain.vm !== 'evm') return {};
  if (order.gasless) {
    if (!chain.gaslessExecutor) return {};
    const permit2 = permit2TypedData({
      order,
      spender: registryAddress(chain.gaslessExecutor),
      nonce: permit2Nonce,
      deadline: order.expiresAt,
    });
    if (!token.permit || token.isNative || !tokenPermit) return { permit2 };
    const erc2612 = erc2612TypedData({
      chainId: order.srcChainId,
      token: registryAddress(token.address),
      name: tokenPermit.name,
      version: tokenPermit.version,
      // The refund address is the wallet that holds the tokens and signs: Permit2's owner too.
      owner: fromBytes32('evm', order.refundAddress) as Address,
      nonce: tokenPermit.nonce,
      deadline: order.expiresAt,
    });
    return { permit2, erc2612 };
  }
  const router = registryAddress(chain.depositTarget);
  const tx = depositTx(order, router, encoded);
  const deposit_tx = { to: tx.to, data: tx.data, value: tx.value.toString() };
  if (token.isNative) return { deposit_tx };
  return { deposit_tx, approval: { token: registryAddress(token.address), spender: router, amount: depositAmount(order).toString() } };
}

import { PublicKey, Transaction } from '@solana/web3.js';
import type { OrderWire } from '@xchain/order-codec';
import type { Logger } from '@xchain/telemetry';
import { depositInstructions, svmOrderTerms } from '@xchain/svm-orders';
import type { ChainInfo, TokenInfo } from '../registry/registry-cache';
import type { BlockhashSource } from './svm-blockhash';

export interface SvmDepositInput {
  /** The quote's order on the wire (what `order` in the response holds), referrers included. */
  order: OrderWire;
  gasless: boolean;
  /** The source chain. */
  chain: ChainInfo;
  /** The source token. */
  token: TokenInfo;
  /** A recent blockhash of the cluster; without one there is nothing to sign yet. */
  blockhash: string | undefined;
}

/** What the wallet signs for a gasless quote from Solana (D6). */
export interface SvmDepositFields {
  svm?: { tx_base64: string };
}

/**
 * The deposit of a gasless quote from Solana as an unsigned legacy transaction: the chain's
 * `fee_payer` pays the fees, the refund address (the user's wallet) owns the funds and signs the
 * transfer, and the instructions are exactly the order's deposit (`depositInstructions`), which
 * is what the relayer rebuilds and compares byte for byte before it co-signs. Its blockhash bounds
 * it: the user has until that blockhash expires (about a minute) to sign and submit.
 */
export function svmDepositFields({ order, gasless, chain, token, blockhash }: SvmDepositInput): SvmDepositFields {
  if (chain.vm !== 'svm' || !gasless || !chain.feePayer || !blockhash) return {};
  const owner = svmOrderTerms(order).refundAddress;
  const instructions = depositInstructions({
    order,
    owner,
    vault: chain.depositTarget,
    ...(token.isNative ? {} : { mintDecimals: token.decimals }),
  });
  const tx = new Transaction({ feePayer: new PublicKey(chain.feePayer), recentBlockhash: blockhash }).add(...instructions);
  return { svm: { tx_base64: tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64') } };
}

/**
 * svmDepositFields with the blockhash asked of `source` only when the quote needs one. The
 * transaction is a convenience (a wallet can build it from the quote): a failure to build it is
 * logged and costs the field, never the quote.
 */
export async function svmDepositFieldsFrom(
  source: BlockhashSource | undefined,
  input: Omit<SvmDepositInput, 'blockhash'>,
  log: Pick<Logger, 'warn'>,
): Promise<SvmDepositFields> {
  if (input.chain.vm !== 'svm' || !input.gasless || !input.chain.feePayer || !source) return {};
  const blockhash = await source.recent();
  try {
    return svmDepositFields({ ...input, blockhash });
  } catch (err) {
    log.warn(
      { chain: input.chain.name, token: input.token.address, err: err instanceof Error ? err.message : String(err) },
      'Solana deposit transaction not built; quote without svm',
    );
    return {};
  }
}

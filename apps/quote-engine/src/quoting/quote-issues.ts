import type { QuoteIssue } from '@xchain/contracts';

/** A chain that could not be read in time (or has no RPC configured): why, for the issue's reason. */
export interface Unreadable {
  unreadable: string;
}

/** What the source chain says about the wallet that deposits or signs (the refund address). */
export interface SourceState {
  /** Its balance of the source token (native or token). */
  balance: bigint;
  /** Its allowance of the source token to the spender that pulls it (Permit2 or the router); absent for the native asset. */
  allowance?: bigint;
  /** Its native balance and the chain's gas price: only for a deposit it sends itself (not gasless, EVM). */
  native?: bigint;
  gasPrice?: bigint;
}

/** Everything the issue rules look at; no I/O behind it. */
export interface ExecutabilityFacts {
  srcChain: string;
  srcVm: 'evm' | 'svm';
  srcSymbol: string;
  srcNativeSymbol: string;
  srcIsNative: boolean;
  gasless: boolean;
  amountIn: bigint;
  /** The quote carries an `erc2612` permit to Permit2: a short Permit2 allowance is no obstacle. */
  permitOffered: boolean;
  /** Gas units a deposit through the router is estimated at. */
  depositGas: bigint;
  source: SourceState | Unreadable;
  dstChain: string;
  dstNativeSymbol: string;
  gasDrop: bigint;
  /** Whether the recipient takes a plain native transfer of the gas drop; absent when not checked (no gas drop, not EVM). */
  recipient?: { receives: boolean } | Unreadable;
}

const unreadable = (x: object): x is Unreadable => 'unreadable' in x;

function chainUnavailable(chain: string, why: string): QuoteIssue {
  return {
    code: 'CHAIN_UNAVAILABLE',
    chain,
    reason: `the checks on ${chain} could not be made: ${why}`,
    fix: 'ask for a new quote in a moment to have them made; the quote itself stands',
  };
}

/**
 * The rules, in a fixed order (source balance, allowance, native gas, then the destination):
 * every one that holds is reported, each with what would fix it. The figures are base units.
 */
export function issuesOf(f: ExecutabilityFacts): QuoteIssue[] {
  const issues: QuoteIssue[] = [];
  const src = f.source;
  if (unreadable(src)) {
    issues.push(chainUnavailable(f.srcChain, src.unreadable));
  } else {
    if (src.balance < f.amountIn) {
      issues.push({
        code: 'BALANCE_SHORT',
        chain: f.srcChain,
        reason: `the wallet holds ${src.balance} base units of ${f.srcSymbol}, less than the ${f.amountIn} the deposit takes`,
        fix: `fund the wallet with ${f.amountIn - src.balance} more base units of ${f.srcSymbol}`,
        needed: f.amountIn.toString(),
        have: src.balance.toString(),
      });
    }
    if (src.allowance !== undefined && src.allowance < f.amountIn && f.srcVm === 'evm' && !f.srcIsNative) {
      if (f.gasless && !f.permitOffered) {
        issues.push({
          code: 'PERMIT2_ALLOWANCE_SHORT',
          chain: f.srcChain,
          reason: `the wallet allows Permit2 ${src.allowance} base units of ${f.srcSymbol} and ${f.srcSymbol} offers no EIP-2612 permit here`,
          fix: `approve Permit2 for at least ${f.amountIn} base units of ${f.srcSymbol}`,
          needed: f.amountIn.toString(),
          have: src.allowance.toString(),
        });
      } else if (!f.gasless) {
        issues.push({
          code: 'ROUTER_ALLOWANCE_SHORT',
          chain: f.srcChain,
          reason: `the wallet allows the router ${src.allowance} base units of ${f.srcSymbol}, less than the deposit pulls`,
          fix: `approve the router (the quote's approval) for at least ${f.amountIn} base units of ${f.srcSymbol}`,
          needed: f.amountIn.toString(),
          have: src.allowance.toString(),
        });
      }
    }
    if (!f.gasless && src.native !== undefined && src.gasPrice !== undefined) {
      const needed = f.depositGas * src.gasPrice + (f.srcIsNative ? f.amountIn : 0n);
      if (src.native < needed) {
        issues.push({
          code: 'NATIVE_GAS_SHORT',
          chain: f.srcChain,
          reason: `the wallet holds ${src.native} base units of ${f.srcNativeSymbol}, less than the deposit's estimated gas (${f.depositGas} gas at ${src.gasPrice})${f.srcIsNative ? ' plus its value' : ''}`,
          fix: `fund the wallet with ${needed - src.native} more base units of ${f.srcNativeSymbol}`,
          needed: needed.toString(),
          have: src.native.toString(),
        });
      }
    }
  }
  const recipient = f.recipient;
  if (recipient && unreadable(recipient)) {
    // One issue per chain: a same-chain swap whose source checks failed already says so.
    if (!(f.dstChain === f.srcChain && unreadable(src))) issues.push(chainUnavailable(f.dstChain, recipient.unreadable));
  } else if (recipient && !recipient.receives) {
    issues.push({
      code: 'GAS_DROP_RECIPIENT_CANNOT_RECEIVE',
      chain: f.dstChain,
      reason: `the recipient is a contract that refuses a plain transfer of ${f.gasDrop} base units of ${f.dstNativeSymbol}, so the fill would revert`,
      fix: 'ask for the quote without a gas drop, or with a recipient that accepts the native asset',
      needed: f.gasDrop.toString(),
    });
  }
  return issues;
}

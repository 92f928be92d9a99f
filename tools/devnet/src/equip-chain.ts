import { ANVIL_DEV_KEY, type CompiledContract, deployContract, installPermit2 } from '@xchain/chain-tools';
import { PERMIT2_ADDRESS } from '@xchain/evm-gasless';
import type { Address } from 'viem';
import type { ChainPlan } from './devnet-plan';

export interface ChainRoles {
  /** Receives the gasless executor's fees. */
  feeRecipient: Address;
  /** The only signer the voucher router accepts. */
  voucherSigner: Address;
  /** The only caller the router lets refund (an immutable of its code). */
  refunder: Address;
}

/**
 * Seconds after an order's expiry during which the local routers still take a fill (their
 * `fillWindow`): a cross-chain order can be refunded only after it, plus the router's margin.
 */
export const DEV_FILL_WINDOW_SECS = 3600;

/**
 * Puts our contracts and the registry's tokens at their registry addresses on a fresh anvil:
 * each is deployed from anvil's first dev key and its runtime code copied to the address, which
 * is why every contract placed here keeps its configuration in immutables, never in storage.
 * Returns how many contracts it placed (Permit2 included).
 */
export async function equipChain(rpcUrl: string, plan: ChainPlan, contracts: Record<string, CompiledContract>, roles: ChainRoles): Promise<number> {
  const place = async (name: string, at: Address, args: unknown[] = []) => {
    const contract = contracts[name];
    if (!contract) throw new Error(`contract ${name} is not among the compiled contracts`);
    await deployContract({ rpcUrl, deployerKey: ANVIL_DEV_KEY, contract, args, at });
  };
  await installPermit2(rpcUrl);
  let placed = 1;
  await place('XchainRouter', plan.depositTarget, [roles.refunder, DEV_FILL_WINDOW_SECS]);
  placed++;
  if (plan.gaslessExecutor) {
    await place('GaslessExecutor', plan.gaslessExecutor, [PERMIT2_ADDRESS, plan.depositTarget, roles.feeRecipient]);
    placed++;
  }
  for (const token of plan.tokens) {
    if (token.permitVersion !== undefined) await place('DevPermitToken', token.address, [token.name, token.symbol, token.decimals, token.permitVersion]);
    else await place('DevToken', token.address, [token.name, token.symbol, token.decimals]);
    placed++;
  }
  if (plan.fundingRouter) {
    await place('FundingRouterHarness', plan.fundingRouter);
    placed++;
  }
  if (plan.voucherRouter) {
    await place('VoucherRouterHarness', plan.voucherRouter, [roles.voucherSigner]);
    placed++;
  }
  return placed;
}

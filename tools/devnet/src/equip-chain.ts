import { CCTP_V2_MESSAGE_TRANSMITTER, CCTP_V2_TOKEN_MESSENGER, cctpDomainOf } from '@xchain/cctp';
import { ANVIL_DEV_KEY, type CompiledContract, deployContract, installPermit2 } from '@xchain/chain-tools';
import { PERMIT2_ADDRESS } from '@xchain/evm-gasless';
import type { Address } from 'viem';
import type { ChainPlan } from './devnet-plan';

export interface ChainRoles {
  /** Receives the gasless executor's fees. */
  feeRecipient: Address;
  /** The only signer the voucher router accepts. */
  voucherSigner: Address;
  /** The only caller the router lets cancel and refund (an immutable of its code). */
  refunder: Address;
  /** The only caller the router lets claim deposits for the treasury. */
  settler: Address;
  /** Where the router's claims send deposits. */
  treasury: Address;
  /** The one attester the CCTP MessageTransmitterV2 stand-in accepts. */
  cctpAttester: Address;
  /** Receives the CCTP TokenMessengerV2 stand-in's Fast Transfer fees. */
  cctpFeeRecipient: Address;
}

/**
 * The local routers' `retention`: seconds after an order's `issuedAt` during which they take its
 * deposit and fill. The quote-engine's default QUOTE_RETENTION_SECS (7 days), which it must equal.
 */
export const DEV_RETENTION_SECS = 604_800;

/**
 * Puts our contracts and the registry's tokens at their registry addresses on a fresh anvil, and
 * on a chain CCTP serves the CCTP V2 stand-ins at Circle's mainnet addresses (cctpPlan):
 * each is deployed from anvil's first dev key and its runtime code copied to the address, which
 * is why every contract placed here keeps its configuration in immutables, never in storage.
 * Returns how many contracts it placed (Permit2 included).
 */
export async function equipChain(
  rpcUrl: string,
  plan: ChainPlan,
  contracts: Record<string, CompiledContract>,
  roles: ChainRoles,
  retentionSecs = DEV_RETENTION_SECS,
): Promise<number> {
  const place = async (name: string, at: Address, args: unknown[] = []) => {
    const contract = contracts[name];
    if (!contract) throw new Error(`contract ${name} is not among the compiled contracts`);
    await deployContract({ rpcUrl, deployerKey: ANVIL_DEV_KEY, contract, args, at });
  };
  await installPermit2(rpcUrl);
  let placed = 1;
  await place('XchainRouter', plan.depositTarget, [roles.refunder, roles.settler, roles.treasury, retentionSecs]);
  placed++;
  if (plan.gaslessExecutor) {
    await place('GaslessExecutor', plan.gaslessExecutor, [PERMIT2_ADDRESS, plan.depositTarget, roles.feeRecipient]);
    placed++;
  }
  for (const token of plan.tokens) {
    if (token.permitVersion !== undefined)
      await place('DevPermitToken', token.address, [token.name, token.symbol, token.decimals, token.permitVersion]);
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
  const cctp = cctpPlan(plan);
  if (cctp) {
    await place('CctpMessageTransmitterV2Standin', CCTP_V2_MESSAGE_TRANSMITTER, [cctp.domain, roles.cctpAttester]);
    await place('CctpTokenMessengerV2Standin', CCTP_V2_TOKEN_MESSENGER, [CCTP_V2_MESSAGE_TRANSMITTER, cctp.usdc, roles.cctpFeeRecipient]);
    placed += 2;
  }
  return placed;
}

/**
 * Circle's CCTP V2 on a local chain: its domain and the dev USDC the TokenMessengerV2 stand-in
 * burns and mints, or undefined for a chain CCTP does not serve (or without USDC in the registry).
 * The stand-ins sit at the mainnet addresses, as Circle's contracts do on every EVM chain.
 */
export function cctpPlan(plan: ChainPlan): { domain: number; usdc: Address } | undefined {
  const domain = cctpDomainOf(plan.name);
  const usdc = plan.tokens.find((t) => t.symbol === 'USDC')?.address;
  return domain !== undefined && usdc ? { domain, usdc } : undefined;
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@xchain/stack';
import { type Address, getAddress, zeroAddress } from 'viem';
import { z } from 'zod';

/** What one local chain carries, read from the registry and the partners file. */
export interface ChainPlan {
  name: string;
  chainId: number;
  nativeDecimals: number;
  depositTarget: Address;
  gaslessExecutor?: Address;
  tokens: TokenPlan[];
  fundingRouter?: Address;
  voucherRouter?: Address;
}

export interface TokenPlan {
  symbol: string;
  address: Address;
  decimals: number;
  /** The ERC-20 `name()`; with `permit`, also the EIP-712 domain name. */
  name: string;
  /** EIP-712 domain version for tokens with EIP-2612 permit; absent: a plain ERC-20. */
  permitVersion?: string;
}

export const DEFAULT_REGISTRY_FILE = join(ROOT, 'config/registry.json');
export const DEFAULT_PARTNERS_FILE = join(ROOT, 'config/partners.json');

// Wallets sign USDC permits under Circle's real domain; every other dev token signs under its
// symbol and OpenZeppelin's default version, which the quote-engine reads back from the chain.
const KNOWN_DOMAINS: Record<string, { name: string; version: string }> = {
  USDC: { name: 'USD Coin', version: '2' },
};

const Registry = z.object({
  chains: z.array(
    z.object({
      chain: z.string(),
      chain_id: z.string(),
      vm: z.string(),
      native_decimals: z.number().int(),
      deposit_target: z.string(),
      gasless_executor: z.string().optional(),
    }),
  ),
  tokens: z.array(
    z.object({
      chain: z.string(),
      address: z.string(),
      symbol: z.string(),
      decimals: z.number().int().min(0).max(255),
      permit: z.boolean(),
    }),
  ),
});

const Partners = z.object({
  funding: z.object({ chain: z.string(), router_address: z.string() }).optional(),
  voucher_routers: z.record(z.string(), z.string()).optional(),
});

/** The plan of each named chain, in the order given; throws on a chain that is unknown or not EVM. */
export function planDevnet(chains: readonly string[], registryJson: unknown, partnersJson: unknown): ChainPlan[] {
  const registry = Registry.parse(registryJson);
  const partners = Partners.parse(partnersJson);
  return chains.map((name) => {
    const chain = registry.chains.find((c) => c.chain === name);
    if (!chain) throw new Error(`${name} is not a chain of the registry (${registry.chains.map((c) => c.chain).join(', ')})`);
    if (chain.vm !== 'evm') throw new Error(`${name} is not an EVM chain: the devnet runs anvil only`);
    const tokens = registry.tokens
      .filter((t) => t.chain === name && getAddress(t.address) !== zeroAddress)
      .map((t): TokenPlan => {
        const known = KNOWN_DOMAINS[t.symbol];
        const token: TokenPlan = { symbol: t.symbol, address: getAddress(t.address), decimals: t.decimals, name: known?.name ?? t.symbol };
        if (t.permit) token.permitVersion = known?.version ?? '1';
        return token;
      });
    const plan: ChainPlan = {
      name,
      chainId: Number(chain.chain_id),
      nativeDecimals: chain.native_decimals,
      depositTarget: getAddress(chain.deposit_target),
      tokens,
    };
    if (chain.gasless_executor) plan.gaslessExecutor = getAddress(chain.gasless_executor);
    if (partners.funding?.chain === name) plan.fundingRouter = getAddress(partners.funding.router_address);
    const voucher = partners.voucher_routers?.[name];
    if (voucher) plan.voucherRouter = getAddress(voucher);
    return plan;
  });
}

/** `planDevnet` over the files (default: config/registry.json and config/partners.json). */
export function readDevnetPlan(
  chains: readonly string[],
  registryFile = DEFAULT_REGISTRY_FILE,
  partnersFile = DEFAULT_PARTNERS_FILE,
): ChainPlan[] {
  const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as unknown;
  return planDevnet(chains, read(registryFile), read(partnersFile));
}

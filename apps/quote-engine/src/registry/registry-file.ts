import { AmountString, ChainName, TokenTier, Uint64String } from '@xchain/contracts';
import { getAddress, isAddress } from 'viem';
import { z } from 'zod';

const BASE58_KEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** The operator's registry file (config/registry.json): what the seed writes into the database. */
export const RegistryFileSchema = z.object({
  chains: z
    .array(
      z.object({
        chain: ChainName,
        chain_id: Uint64String,
        vm: z.enum(['evm', 'svm']),
        native_symbol: z.string().min(1),
        native_decimals: z.number().int().min(0).max(36),
        enabled: z.boolean(),
        gasless: z.boolean(),
        max_gas_drop: AmountString,
        deposit_target: z.string().min(1),
        gasless_executor: z.string().optional(),
        fee_payer: z.string().optional(),
        default_fulfill_eta_secs: Uint64String.optional(),
      }),
    )
    .min(1),
  tokens: z.array(
    z.object({
      chain: ChainName,
      address: z.string().min(1),
      symbol: z.string().min(1),
      decimals: z.number().int().min(0).max(36),
      tier: TokenTier,
      logo_url: z.string().url(),
      permit: z.boolean(),
      coingecko_id: z.string().optional(),
      pyth_feed_id: z.string().regex(/^(0x)?[0-9a-f]{64}$/).optional(),
    }),
  ),
});
export type RegistryFile = z.output<typeof RegistryFileSchema>;

/** EIP-55 on EVM chains, base58 as given on Solana; throws on a malformed address. */
export function normaliseAddress(vm: 'evm' | 'svm', address: string, where: string): string {
  if (vm === 'evm') {
    if (!isAddress(address, { strict: false })) throw new Error(`${where}: ${address} is not an EVM address`);
    return getAddress(address);
  }
  if (!BASE58_KEY.test(address)) throw new Error(`${where}: ${address} is not a base58 Solana key`);
  return address;
}

/** Validates cross references (token → chain, duplicates) and normalises every address. */
export function parseRegistryFile(json: unknown): RegistryFile {
  const file = RegistryFileSchema.parse(json);
  const vmOf = new Map<string, 'evm' | 'svm'>();
  for (const c of file.chains) {
    if (vmOf.has(c.chain)) throw new Error(`chain ${c.chain} is listed twice`);
    vmOf.set(c.chain, c.vm);
    c.deposit_target = normaliseAddress(c.vm, c.deposit_target, `${c.chain}.deposit_target`);
    if (c.gasless_executor) c.gasless_executor = normaliseAddress(c.vm, c.gasless_executor, `${c.chain}.gasless_executor`);
    if (c.fee_payer) c.fee_payer = normaliseAddress('svm', c.fee_payer, `${c.chain}.fee_payer`);
    if (c.gasless && c.vm === 'evm' && !c.gasless_executor) throw new Error(`${c.chain}: gasless needs gasless_executor`);
    if (c.gasless && c.vm === 'svm' && !c.fee_payer) throw new Error(`${c.chain}: gasless needs fee_payer`);
  }
  const seen = new Set<string>();
  for (const t of file.tokens) {
    const vm = vmOf.get(t.chain);
    if (!vm) throw new Error(`token ${t.symbol} names unknown chain ${t.chain}`);
    t.address = normaliseAddress(vm, t.address, `${t.chain}.${t.symbol}`);
    const key = `${t.chain}:${t.address}`;
    if (seen.has(key)) throw new Error(`token ${key} is listed twice`);
    seen.add(key);
  }
  return file;
}

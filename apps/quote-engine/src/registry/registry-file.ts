import { AmountString, ChainName, TokenTier, Uint64String } from '@xchain/contracts';
import { normaliseAddress } from './addresses';
import { z } from 'zod';

/** An https (or, for a local explorer, http) URL template holding `{tx}` once. */
const ExplorerTxUrl = z
  .string()
  .max(300)
  .regex(/^https?:\/\/[^\s{}]+\{tx\}[^\s{}]*$/, 'an http(s) URL with {tx} where the transaction hash goes');

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
        /** The block explorer's page of a transaction, `{tx}` standing for its hash (shown by the order explorer). */
        explorer_tx_url: ExplorerTxUrl.optional(),
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
      pyth_feed_id: z
        .string()
        .regex(/^(0x)?[0-9a-f]{64}$/)
        .optional(),
    }),
  ),
});
export type RegistryFile = z.output<typeof RegistryFileSchema>;

/** EIP-55 on EVM chains, base58 32-byte keys on Solana; throws on a malformed address. */
function normaliseOrThrow(vm: 'evm' | 'svm', address: string, where: string): string {
  const normalised = normaliseAddress(vm, address);
  if (!normalised) throw new Error(`${where}: ${address} is not ${vm === 'evm' ? 'an EVM address' : 'a base58 Solana key'}`);
  return normalised;
}

/** Validates cross references (token → chain, duplicates) and normalises every address. */
export function parseRegistryFile(json: unknown): RegistryFile {
  const file = RegistryFileSchema.parse(json);
  const vmOf = new Map<string, 'evm' | 'svm'>();
  for (const c of file.chains) {
    if (vmOf.has(c.chain)) throw new Error(`chain ${c.chain} is listed twice`);
    vmOf.set(c.chain, c.vm);
    c.deposit_target = normaliseOrThrow(c.vm, c.deposit_target, `${c.chain}.deposit_target`);
    if (c.gasless_executor) c.gasless_executor = normaliseOrThrow(c.vm, c.gasless_executor, `${c.chain}.gasless_executor`);
    if (c.fee_payer) c.fee_payer = normaliseOrThrow('svm', c.fee_payer, `${c.chain}.fee_payer`);
    if (c.gasless && c.vm === 'evm' && !c.gasless_executor) throw new Error(`${c.chain}: gasless needs gasless_executor`);
    if (c.gasless && c.vm === 'svm' && !c.fee_payer) throw new Error(`${c.chain}: gasless needs fee_payer`);
  }
  const seen = new Set<string>();
  for (const t of file.tokens) {
    const vm = vmOf.get(t.chain);
    if (!vm) throw new Error(`token ${t.symbol} names unknown chain ${t.chain}`);
    t.address = normaliseOrThrow(vm, t.address, `${t.chain}.${t.symbol}`);
    const key = `${t.chain}:${t.address}`;
    if (seen.has(key)) throw new Error(`token ${key} is listed twice`);
    seen.add(key);
  }
  return file;
}

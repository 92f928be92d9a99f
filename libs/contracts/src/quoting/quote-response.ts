import { z } from 'zod';
import { AmountString, Rfc3339, Uint64String } from '../wire';

const UsdMicros = z.string().regex(/^(0|[1-9][0-9]*)$/).meta({ description: 'USD value in micros (1 USD = 1000000).' });

export const FeeComponentSchema = z
  .object({
    name: z.enum(['protocol_fee', 'swap_fee', 'dst_gas', 'gas_drop', 'referrer_fee', 'sponsor_gas', 'keyless_spread']).meta({
      description:
        '`protocol_fee` (our fee), `swap_fee` (swap pools), `dst_gas` (destination fulfilment gas), `gas_drop` (native delivered on the destination), `referrer_fee` (the referrers\' bps), `sponsor_gas` (source relay gas of a gasless quote), `keyless_spread` (extra spread without an API key).',
    }),
    side: z.enum(['src', 'dst']).meta({ description: 'Chain whose asset the fee is charged in: `src` (source token) or `dst` (destination token or native).' }),
    usd_micros: UsdMicros,
    native: AmountString.meta({ description: 'The fee in base units of the asset it is charged in.' }),
  })
  .meta({ id: 'FeeComponent' });

export const FeeBreakdownSchema = z
  .object({
    components: z.array(FeeComponentSchema),
    src_total_usd_micros: UsdMicros,
    dst_total_usd_micros: UsdMicros,
    src_gas_native: AmountString.meta({ description: 'Source-chain gas priced into the quote (relay gas of a gasless quote), native base units.' }),
    dst_gas_native: AmountString.meta({ description: 'Destination fulfilment gas priced into the quote, native base units.' }),
  })
  .meta({ id: 'FeeBreakdown' });
export type FeeBreakdown = z.infer<typeof FeeBreakdownSchema>;

const eta = {
  fulfill_eta_secs: Uint64String.optional().meta({
    description: 'Median seconds from deposit to fulfilment over recent orders on this chain pair and route type; else the chain default; absent without either.',
  }),
  fulfill_eta_samples: Uint64String.optional().meta({ description: 'Orders behind `fulfill_eta_secs` ("0" when it is the configured default).' }),
  fulfill_eta_p90_secs: Uint64String.optional().meta({ description: '90th percentile of the same samples.' }),
};

const priced = {
  amount_in: AmountString,
  amount_out: AmountString.meta({ description: 'Expected output, net of every fee.' }),
  min_amount_out: AmountString.meta({ description: 'Guaranteed floor: a fulfilment delivering less does not land.' }),
  amount_in_usd_micros: UsdMicros.optional(),
  amount_out_usd_micros: UsdMicros.optional(),
  slippage_bps: z.number().int().min(0).meta({ description: 'Slippage actually applied.' }),
  fee_breakdown: FeeBreakdownSchema,
  ...eta,
};

export const QuotePreviewSchema = z
  .object({ ...priced, same_chain_swap: z.boolean() })
  .meta({ id: 'QuotePreview' });
export type QuotePreview = z.infer<typeof QuotePreviewSchema>;

const quoteContent = {
  quote_hash: z.string().regex(/^0x[0-9a-f]{64}$/).meta({ description: 'keccak256(abi.encode(Order)) of the stored order.' }),
  ...priced,
  deposit_target: z.string().meta({ description: 'Contract to send the deposit to (EVM router) or program id (Solana).' }),
  order: z.record(z.string(), z.unknown()).meta({
    description: 'The full bound parameter set: every field of the published Order struct (contracts/src/OrderLib.sol), so the hash can be recomputed.',
  }),
  expires_at: Rfc3339.meta({ description: '30 minutes after issue. Informational: the stored quote is honoured while retained.' }),
};

export const SameChainQuoteSchema = z.object(quoteContent).meta({ id: 'SameChainSwapQuote' });
export const CrossChainQuoteSchema = z
  .object({
    ...quoteContent,
    gasless: z.boolean().optional().meta({ description: 'Priced for gasless submission through SubmitGaslessOrder.' }),
    gasless_executor: z.string().optional().meta({ description: 'EVM contract the relayed deposit executes against; the Permit2 spender.' }),
    fee_payer: z.string().optional().meta({ description: 'Solana account that must pay the fees of the gasless transaction.' }),
  })
  .meta({ id: 'CrossChainQuote' });

export const QuoteSchema = z
  .union([z.object({ cross_chain: CrossChainQuoteSchema }).strict(), z.object({ same_chain_swap: SameChainQuoteSchema }).strict()])
  .meta({ id: 'Quote', description: 'One of `cross_chain` or `same_chain_swap`.' });
export type Quote = z.infer<typeof QuoteSchema>;

/** A stored quote as other services fetch it by hash (the gasless relayer, order status). */
export const StoredQuoteSchema = z.object({
  quote_hash: z.string(),
  quote: QuoteSchema,
  created_at: Rfc3339,
  retained_until: Rfc3339,
  caller_kind: z.string(),
  api_key_id: z.string().optional(),
  partner_id: z.string().optional(),
});
export type StoredQuote = z.infer<typeof StoredQuoteSchema>;

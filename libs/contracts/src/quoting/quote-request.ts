import { z } from 'zod';
import { AmountString, ChainName, EvmAddress, Uint32Input } from '../wire';
import { TradeType } from './trade-type';

export const ReferrerInput = z.object({
  address: z.string().min(1).meta({ description: 'Referrer address on the source chain (it is paid there).' }),
  bps: Uint32Input.meta({ description: 'Basis points of the input value paid to this referrer.' }),
});

/** `""` (or absent) means no gas drop. */
const GasDrop = z
  .union([z.literal(''), AmountString])
  .optional()
  .transform((v) => (v === undefined || v === '' ? '' : v))
  .meta({ description: 'Native asset to deliver on the destination, base units; empty string for none.' });

const common = {
  src_chain: ChainName,
  dst_chain: ChainName,
  src_token: z.string().min(1).meta({ description: 'Source token address; the zero address is the native asset on EVM chains.' }),
  dst_token: z.string().min(1).meta({ description: 'Destination token address.' }),
  trade_type: TradeType,
  amount: AmountString.meta({
    description: 'Exact input: source base units. Expected/exact output: desired output in destination base units.',
  }),
  gas_drop: GasDrop,
  slippage_bps: Uint32Input.optional().meta({ description: 'Floor for the destination swap leg; a tier is chosen when omitted.' }),
  src_slippage_bps: Uint32Input.optional().meta({ description: 'Floor for the source swap leg.' }),
  referrers: z.array(ReferrerInput).optional(),
  gasless: z.boolean().optional().meta({ description: 'Price for gasless submission (relay gas priced in as `sponsor_gas`).' }),
  sponsor_fees: z
    .boolean()
    .optional()
    .meta({ description: 'With `gasless`: charge relay gas to the partner funding balance. Needs the API key of a funded partner.' }),
  // Price impact (issue 39 §1).
  max_price_impact_bps: Uint32Input.optional().meta({
    description:
      'Refuse (400 PRICE_IMPACT_TOO_HIGH) rather than quote when the price impact (`price_impact_bps` of the answer) would exceed this many basis points.',
  }),
};

/** Calldata of a destination call, at most this many bytes. */
export const MAX_DESTINATION_CALLDATA_BYTES = 10_000;

// --- destination calls (issue 39 §4) ---
export const DestinationCallInput = z
  .object({
    target: EvmAddress.meta({ description: 'Contract on the destination chain that receives the tokens and is called.' }),
    calldata: z
      .string()
      .regex(/^0x(?:[0-9a-fA-F]{2})*$/, 'must be 0x hex bytes')
      .max(2 + 2 * MAX_DESTINATION_CALLDATA_BYTES, `must be at most ${MAX_DESTINATION_CALLDATA_BYTES} bytes`)
      .meta({ description: 'Calldata of the call, 0x hex.' }),
    gas_limit: Uint32Input.meta({
      description: "Gas the call gets, exactly; priced into the quote. At most the operator's limit (DESTINATION_CALL_MAX_GAS).",
    }),
    fallback_recipient: z.string().min(1).optional().meta({
      description:
        'Where the tokens go when the call reverts at fill time. Must equal `recipient` when given (`recipient` is the fallback).',
    }),
  })
  .meta({
    id: 'DestinationCallInput',
    description:
      'A call to run on an EVM destination with the delivered tokens: the router sends them to `target` and calls it with `calldata` and exactly `gas_limit` gas, atomically; when the call reverts, the tokens go to `recipient` and the order is fulfilled all the same. Cross-chain quotes to an EVM chain only.',
  });
export type DestinationCallInput = z.output<typeof DestinationCallInput>;

const destinationCall = {
  destination_call: DestinationCallInput.optional(),
};

export const PreviewDestinationCallInput = DestinationCallInput.pick({ target: true, gas_limit: true }).meta({
  id: 'PreviewDestinationCallInput',
  description:
    "Prices a destination call's gas (`gas_limit` × the destination's gas price, in `dst_gas`) without checking or simulating the call; GetQuote does both.",
});

const previewDestinationCall = {
  destination_call: PreviewDestinationCallInput.optional(),
};
// --- end destination calls ---

/** PreviewQuote: prices without binding anything; takes no recipient or refund address. */
export const PreviewQuoteRequest = z.object({ ...common, ...previewDestinationCall }).meta({ id: 'PreviewQuoteRequest' });
export type PreviewQuoteRequest = z.output<typeof PreviewQuoteRequest>;

/** GetQuote: prices, binds and stores the order. */
export const GetQuoteRequest = z
  .object({
    ...common,
    recipient: z.string().min(1).meta({ description: "Receiving address on the destination chain, in that chain's format." }),
    refund_address: z.string().min(1).meta({ description: 'Source-chain address refunded if the order cannot be fulfilled.' }),
    ...destinationCall,
  })
  .meta({ id: 'GetQuoteRequest' });
export type GetQuoteRequest = z.output<typeof GetQuoteRequest>;

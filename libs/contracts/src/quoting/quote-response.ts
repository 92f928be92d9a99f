import { z } from 'zod';
import { AmountString, EvmAddress, Rfc3339, Uint64String } from '../wire';
import { OrderWireSchema } from './order-wire';

const UsdMicros = z
  .string()
  .regex(/^(0|[1-9][0-9]*)$/)
  .meta({ description: 'USD value in micros (1 USD = 1000000).' });

export const FeeComponentSchema = z
  .object({
    name: z.enum(['protocol_fee', 'swap_fee', 'dst_gas', 'gas_drop', 'referrer_fee', 'sponsor_gas', 'keyless_spread']).meta({
      description:
        "`protocol_fee` (our fee), `swap_fee` (swap pools), `dst_gas` (destination fulfilment gas), `gas_drop` (native delivered on the destination), `referrer_fee` (the referrers' bps), `sponsor_gas` (source relay gas of a gasless quote), `keyless_spread` (extra spread without an API key).",
    }),
    side: z
      .enum(['src', 'dst'])
      .meta({ description: 'Chain whose asset the fee is charged in: `src` (source token) or `dst` (destination token or native).' }),
    usd_micros: UsdMicros,
    native: AmountString.meta({ description: 'The fee in base units of the asset it is charged in.' }),
    charged: AmountString.optional().meta({
      description:
        "What the fee takes from the user's funds, in base units of its side's token: the source token for `src`, the destination token for `dst` (gas and gas drop are paid for in the destination token). `0` for `sponsor_gas` a partner pays and for `swap_fee`, a loss of value inside the route rather than a deduction. Absent on quotes stored before it was stated.",
    }),
  })
  .meta({ id: 'FeeComponent' });

export const FeeBreakdownSchema = z
  .object({
    components: z.array(FeeComponentSchema),
    src_total_usd_micros: UsdMicros,
    dst_total_usd_micros: UsdMicros,
    src_gas_native: AmountString.meta({
      description: 'Source-chain gas priced into the quote (relay gas of a gasless quote), native base units.',
    }),
    dst_gas_native: AmountString.meta({ description: 'Destination fulfilment gas priced into the quote, native base units.' }),
    route_in: AmountString.optional().meta({
      description: "Source units entering the route (swaps and bridge): `amount_in` less every `src` component's `charged`, to the unit.",
    }),
    route_out: AmountString.optional().meta({
      description:
        "Destination units the route yields: `amount_out` plus every `dst` component's `charged`, to the unit. On a route with no swap between tokens of equal units (USDC to USDC), `route_out` = `route_in`, so `amount_in` − `amount_out` = the sum of `charged`.",
    }),
  })
  .meta({ id: 'FeeBreakdown' });
export type FeeBreakdown = z.infer<typeof FeeBreakdownSchema>;

const eta = {
  fulfill_eta_secs: Uint64String.optional().meta({
    description:
      'Median seconds from deposit to fulfilment over recent orders on this chain pair and route type; else the chain default; absent without either.',
  }),
  fulfill_eta_samples: Uint64String.optional().meta({
    description: 'Orders behind `fulfill_eta_secs` ("0" when it is the configured default).',
  }),
  fulfill_eta_p90_secs: Uint64String.optional().meta({ description: '90th percentile of the same samples.' }),
};

// Price impact and executability (issue 39 §1).
const impact = {
  // Optional so that a quote stored before this field still parses; every quote answered now carries it.
  price_impact_bps: z.number().int().min(0).optional().meta({
    description:
      'How far the expected output (`amount_out` plus any `gas_drop`) falls short of the input at the oracle mid prices, in basis points of the input value, rounded up; every fee counts. 0 when the output is worth as much as the input or more (never negative).',
  }),
};

export const QuoteIssueSchema = z
  .object({
    code: z
      .enum([
        'BALANCE_SHORT',
        'PERMIT2_ALLOWANCE_SHORT',
        'ROUTER_ALLOWANCE_SHORT',
        'NATIVE_GAS_SHORT',
        'GAS_DROP_RECIPIENT_CANNOT_RECEIVE',
        'CHAIN_UNAVAILABLE',
      ])
      .meta({
        description:
          "`BALANCE_SHORT` (the refund address holds less `src_token` than `amount_in`), `PERMIT2_ALLOWANCE_SHORT` (gasless, no `erc2612` offered, Permit2 allowance below `amount_in`), `ROUTER_ALLOWANCE_SHORT` (`deposit_tx` of an ERC-20, router allowance below `approval.amount`), `NATIVE_GAS_SHORT` (not gasless: native balance below the deposit's estimated gas cost plus its value), `GAS_DROP_RECIPIENT_CANNOT_RECEIVE` (the recipient is a contract whose plain transfer of `gas_drop` reverts), `CHAIN_UNAVAILABLE` (the chain did not answer in time; its checks were not made).",
      }),
    reason: z.string().meta({ description: 'What is wrong, for a person.' }),
    fix: z.string().meta({ description: 'What would make the quote executable.' }),
    chain: z.string().meta({ description: 'The chain the issue is on.' }),
    needed: AmountString.optional().meta({ description: 'Base units the deposit needs (of `src_token`, or native for gas and gas drop).' }),
    have: AmountString.optional().meta({ description: 'Base units there are now.' }),
  })
  .meta({ id: 'QuoteIssue', description: 'Something on chain that stops this quote from executing as it stands.' });
export type QuoteIssue = z.infer<typeof QuoteIssueSchema>;

const executability = {
  // Optional so that a quote stored before this field still parses; GetQuote always answers it.
  issues: z.array(QuoteIssueSchema).optional().meta({
    description:
      'What stops `refund_address` (the wallet that deposits or signs) from executing this quote now, read from the chains when the quote was made (cached a few seconds): empty when nothing does. A chain that did not answer in time is one `CHAIN_UNAVAILABLE` issue, never a slower quote. Not on PreviewQuote (it has no owner).',
  }),
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
  ...impact,
};

export const QuotePreviewSchema = z.object({ ...priced, same_chain_swap: z.boolean() }).meta({ id: 'QuotePreview' });
export type QuotePreview = z.infer<typeof QuotePreviewSchema>;

const Eip712Types = z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() })));
const DecimalString = z.string().regex(/^(0|[1-9][0-9]*)$/);

export const Permit2TypedDataSchema = z
  .object({
    domain: z.object({ name: z.literal('Permit2'), chainId: z.number().int(), verifyingContract: EvmAddress }),
    types: Eip712Types,
    primaryType: z.literal('PermitWitnessTransferFrom'),
    message: z.object({
      permitted: z.object({ token: EvmAddress, amount: DecimalString }),
      spender: EvmAddress,
      nonce: DecimalString,
      deadline: DecimalString,
      witness: z
        .record(z.string(), z.union([z.string(), z.boolean()]))
        .meta({ description: 'The order, field for field (integers as decimal strings).' }),
    }),
  })
  .meta({
    id: 'Permit2TypedData',
    description:
      "EIP-712 typed data of a Permit2 `PermitWitnessTransferFrom` with the order as witness: pass it unchanged to `eth_signTypedData_v4` (or viem `signTypedData`). `permitted` is `{src_token, amount_in}`, `spender` the `gasless_executor`, `nonce` a random 256-bit word chosen per quote (Permit2 nonces are unordered), `deadline` the quote's expiry (unix seconds). Its signature is SubmitGaslessOrder's `evm.signature`, with `message.nonce` and `message.deadline` as `evm.permit2_nonce` and `evm.deadline`.",
  });

export const Erc2612TypedDataSchema = z
  .object({
    domain: z.object({ name: z.string(), version: z.string(), chainId: z.number().int(), verifyingContract: EvmAddress }),
    types: Eip712Types,
    primaryType: z.literal('Permit'),
    message: z.object({ owner: EvmAddress, spender: EvmAddress, value: DecimalString, nonce: DecimalString, deadline: DecimalString }),
  })
  .meta({
    id: 'Erc2612TypedData',
    description:
      "EIP-712 typed data of an EIP-2612 `permit` of `amount_in` of `src_token` to the canonical Permit2, built for `refund_address` as the signing wallet (its current token nonce, the token's own EIP-712 domain, the quote's expiry as deadline). Sign it to skip an on-chain approval of Permit2; its signature is SubmitGaslessOrder's `evm.permit_signature`.",
  });

export const DepositTxSchema = z
  .object({
    to: EvmAddress.meta({ description: 'The router (`deposit_target`).' }),
    data: z
      .string()
      .regex(/^0x(?:[0-9a-f]{2})*$/)
      .meta({ description: 'Calldata of `deposit(order)`.' }),
    value: DecimalString.meta({ description: 'Wei to send: the deposit amount for the native asset, else "0".' }),
  })
  .meta({ id: 'DepositTx', description: 'The router call that deposits for this order, ready for `eth_sendTransaction`.' });

export const ApprovalSchema = z
  .object({
    token: EvmAddress.meta({ description: 'The ERC-20 to approve (`src_token`).' }),
    spender: EvmAddress.meta({ description: 'The router (`deposit_target`).' }),
    amount: AmountString.meta({ description: 'Allowance the deposit pulls.' }),
  })
  .meta({
    id: 'Approval',
    description: 'ERC-20 allowance `deposit_tx` needs: `approve(spender, amount)` on `token` first unless the allowance already covers it.',
  });

export const SvmGaslessTxSchema = z
  .object({
    tx_base64: z.string().meta({
      description:
        "An unsigned legacy Solana transaction (base64): fee payer `fee_payer`, a recent blockhash, and exactly the deposit's instructions (the whole `amount_in` to the vault `deposit_target` — SPL TransferChecked into its associated token account, signed by `refund_address` — then the memo `xchain:v1:deposit:<quote_hash>`). The wallet of `refund_address` signs it (its own signature slot only) and passes it, signed, as SubmitGaslessOrder's `svm.tx_base64`, before its blockhash expires (about a minute).",
    }),
  })
  .meta({ id: 'SvmGaslessTx', description: 'What the wallet signs for a gasless quote from Solana (D6).' });

/** What a wallet sends for a quote it deposits for itself (EVM source, not gasless). */
const evmDeposit = {
  deposit_tx: DepositTxSchema.optional().meta({ description: 'EVM source, not gasless: the deposit transaction to send.' }),
  approval: ApprovalSchema.optional().meta({ description: 'EVM ERC-20 source, not gasless: the approval `deposit_tx` needs first.' }),
};

const quoteContent = {
  quote_hash: z
    .string()
    .regex(/^0x[0-9a-f]{64}$/)
    .meta({ description: 'keccak256(abi.encode(Order)) of the stored order.' }),
  ...priced,
  deposit_target: z.string().meta({ description: 'Contract to send the deposit to (EVM router) or program id (Solana).' }),
  order: OrderWireSchema,
  expires_at: Rfc3339.meta({ description: '30 minutes after issue. Informational: the stored quote is honoured while retained.' }),
  // Optional so that a quote answered by a quote-engine older than this field still parses (a rolling deploy).
  retained_until: Rfc3339.optional().meta({
    description: 'The last moment a deposit is honoured at the quoted terms (the end of retention, D16).',
  }),
  ...evmDeposit,
  ...executability,
};

export const SameChainQuoteSchema = z.object(quoteContent).meta({ id: 'SameChainSwapQuote' });
// --- destination calls (issue 39 §4) ---
export const DestinationCallSchema = z
  .object({
    target: EvmAddress,
    calldata: z
      .string()
      .regex(/^0x(?:[0-9a-f]{2})*$/)
      .meta({ description: 'Lowercase 0x hex.' }),
    gas_limit: DecimalString.meta({ description: 'Gas the call gets (uint256 as a decimal string).' }),
    call_salt: z
      .string()
      .regex(/^0x[0-9a-f]{64}$/)
      .meta({
        description:
          'Random per quote: `order.salt` = keccak256(abi.encode(call_salt, keccak256(abi.encode(target, gas_limit, calldata)))).',
      }),
  })
  .meta({
    id: 'DestinationCall',
    description:
      "The destination call the order commits to through its salt, so `quote_hash` covers it; the filler runs it with the router's `fillWithCall(order, amount, call, call_salt)`. `order.recipient` is the fallback recipient.",
  });
export type DestinationCallView = z.infer<typeof DestinationCallSchema>;
const destinationCall = {
  destination_call: DestinationCallSchema.optional().meta({ description: 'Present when the request carried a `destination_call`.' }),
};
// --- end destination calls ---

export const CrossChainQuoteSchema = z
  .object({
    ...quoteContent,
    ...destinationCall,
    gasless: z.boolean().optional().meta({ description: 'Priced for gasless submission through SubmitGaslessOrder.' }),
    gasless_executor: z
      .string()
      .optional()
      .meta({ description: 'EVM contract the relayed deposit executes against; the Permit2 spender.' }),
    fee_payer: z.string().optional().meta({ description: 'Solana account that must pay the fees of the gasless transaction.' }),
    permit2: Permit2TypedDataSchema.optional().meta({
      description: 'Gasless quote from an EVM source: the Permit2 typed data the user signs.',
    }),
    erc2612: Erc2612TypedDataSchema.optional().meta({
      description:
        "Gasless quote of a source token listed with `permit: true`: the EIP-2612 permit to Permit2 for a wallet without a Permit2 allowance. Its `value` is the maximum (2^256 − 1), not `amount_in`: two quotes signed before either is relayed carry the same token nonce, only one permit can be used, and the allowance it leaves serves the other (and later orders, which then need no permit). Absent when the token's nonce could not be read (no RPC configured for the chain, or it did not answer in time).",
    }),
    svm: SvmGaslessTxSchema.optional().meta({
      description:
        'Gasless quote from Solana: the transaction the user signs. Absent when no recent blockhash could be read in time (no Solana RPC configured, or it did not answer); the quote stays valid, and a wallet may build the same transaction itself from `order`, `deposit_target` and `fee_payer` with a recent blockhash, or ask for a new quote.',
    }),
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

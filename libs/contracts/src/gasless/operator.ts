import { z } from 'zod';
import { defineRpc } from '../rpc';
import { AmountString, ChainName, EvmAddress } from '../wire';
import { GaslessStatus } from '../http/schemas/gasless';
import { OrderWireSchema } from '../quoting/order-wire';

/**
 * What an operator transaction does (D15): deliver, cancel on the destination, refund on the source,
 * claim to the treasury; on Solana, return a stray deposit (one that matched no retained quote, D16);
 * and for a rebalancing move of inventory through CCTP (issue 47, EVM only): `approve` the
 * TokenMessenger, `burn` on the source (`depositForBurn`), `mint` on the destination
 * (`receiveMessage`), each keyed by the move.
 */
export const OperatorTxKind = z.enum(['fill', 'cancel', 'refund', 'claim', 'return', 'approve', 'burn', 'mint']);
export type OperatorTxKind = z.infer<typeof OperatorTxKind>;

const Hash = z.string().regex(/^0x[0-9a-f]{64}$/, 'must be a lowercase 32-byte hex hash');

/** An EVM operator transaction: a router call the quote-engine encoded. */
export const EvmOperatorCall = z.object({
  vm: z.literal('evm'),
  to: EvmAddress,
  data: z.string().regex(/^0x([0-9a-fA-F]{2})*$/, 'must be hex bytes'),
  /** Native value sent with the call, base units. */
  value: AmountString,
});

/**
 * A Solana operator transaction: the relayer builds it from the order (`@xchain/svm-orders`: a fill
 * from the filler account, a refund from the vault) and signs it with that account's key.
 */
export const SvmOperatorCall = z.object({
  vm: z.literal('svm'),
  order: OrderWireSchema,
  /** What a fill delivers (amount_out), destination base units; a refund returns the order's amount_in. */
  amount: AmountString.optional(),
  /** Decimals of the SPL mint moved (the destination's for a fill, the source's for a refund); absent for SOL. */
  mint_decimals: z.number().int().min(0).max(255).optional(),
});

const SvmKey = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'must be a base58 Solana key');

/**
 * Kind `return` only: a stray Solana deposit sent back to its sender. The relayer builds it as the
 * vault transferring exactly `amount` of `mint` to `to` (its associated token account for SPL, opened
 * idempotently; the filler pays fees and rent, the vault co-signs), then the memo
 * `xchain:v1:return:<deposit_signature>`. The request's `quote_hash` must be
 * keccak256(`solana:<deposit_signature>:<deposit_index>`) (`strayReturnKey`): one return per deposit.
 */
export const SvmReturnCall = z.object({
  vm: z.literal('svm'),
  return: z.object({
    deposit_signature: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/, 'must be a base58 transaction signature'),
    /** The deposit memo's instruction index in that transaction. */
    deposit_index: z.number().int().min(0).max(255),
    /** The deposit's sender (its transfer's authority), paid back. */
    to: SvmKey,
    /** `SOL`, or the base58 SPL mint deposited. */
    mint: z.union([z.literal('SOL'), SvmKey]),
    /** Exactly what the deposit moved, base units. */
    amount: AmountString,
    /** Decimals of the SPL mint; checked against the chain; absent for SOL. */
    mint_decimals: z.number().int().min(0).max(255).optional(),
  }),
});

/**
 * Kind `claim` on Solana (D15): the deposits of filled orders from Solana, all of one source token,
 * paid from the vault to the treasury. The relayer builds it from the orders as the vault
 * transferring the sum of their `amount_in` (a Solana vault receives all of it) to the treasury it
 * is configured with (SOLANA_TREASURY: the treasury is the relayer's, as an EVM router's is the
 * router's, never the caller's word), then the memo `xchain:v1:claim:<quote_hash>`. The request's
 * `quote_hash` must be the batch's key, keccak256 of its orders' quote hashes sorted
 * (`claimBatchKey`): one claim transaction per set of deposits, ever.
 */
export const SvmClaimCall = z.object({
  vm: z.literal('svm'),
  claim: z.object({
    orders: z.array(OrderWireSchema).min(1).max(100),
    /** Decimals of the SPL mint claimed; checked against the chain; absent for SOL. */
    mint_decimals: z.number().int().min(0).max(255).optional(),
  }),
});

export const SendOperatorTxRequest = z.object({
  kind: OperatorTxKind,
  /** The quote hash the transaction settles (a claim: its batch id; a return: its `strayReturnKey`; a move's approve, burn or mint: the move id): with `kind`, the transaction's identity (at most one per pair, ever). */
  quote_hash: Hash,
  chain: ChainName,
  // A plain union: the Solana shapes all carry vm 'svm'; a return is told apart by its `return` field, a claim by its `claim`.
  call: z.union([EvmOperatorCall, SvmReturnCall, SvmClaimCall, SvmOperatorCall]),
});
export type SendOperatorTxRequest = z.infer<typeof SendOperatorTxRequest>;

export const OperatorTxViewSchema = z.object({
  kind: OperatorTxKind,
  quote_hash: Hash,
  chain: ChainName,
  /** The operator account that signs it (an EVM address; a Solana key in base58). */
  wallet: z.string(),
  status: GaslessStatus,
  tx_hash: z.string().optional(),
  tx_hashes: z.array(z.string()),
  /** On `failed`: a stable reason code first (`SIMULATION_REVERTED: …`, `TX_REVERTED: …`). */
  error: z.string().optional(),
});
export type OperatorTxView = z.infer<typeof OperatorTxViewSchema>;

/**
 * Send (once) or look up an operator transaction through the relayer's lanes: the first call for a
 * (kind, quote_hash) stores and queues it; every later call answers its current state, whatever it
 * carries. The quote-engine's settlement calls it until the transaction is confirmed or failed.
 */
export const SendOperatorTxRpc = defineRpc('gasless.v1.operator_tx', SendOperatorTxRequest, OperatorTxViewSchema, {
  access: 'internal',
  callers: ['quote-engine'],
});

/**
 * The operator wallet's balance of a token on a chain, read from the chain now: on EVM chains the
 * zero address is the native asset; on Solana the filler account's SOL (System program id) or its
 * associated token account of an SPL mint.
 */
export const OperatorBalanceRpc = defineRpc(
  'gasless.v1.operator_balance',
  z.object({ chain: ChainName, token: z.string().min(1).max(64) }),
  z.object({ chain: ChainName, token: z.string(), wallet: z.string(), balance: AmountString, at: z.string() }),
  { access: 'internal', callers: ['quote-engine'] },
);

import { z } from 'zod';
import { defineRpc } from '../rpc';
import { AmountString, ChainName, EvmAddress } from '../wire';
import { GaslessStatus } from '../http/schemas/gasless';

/** What an operator transaction does (D15): deliver, cancel on the destination, refund on the source, claim to the treasury. */
export const OperatorTxKind = z.enum(['fill', 'cancel', 'refund', 'claim']);
export type OperatorTxKind = z.infer<typeof OperatorTxKind>;

const Hash = z.string().regex(/^0x[0-9a-f]{64}$/, 'must be a lowercase 32-byte hex hash');

export const SendOperatorTxRequest = z.object({
  kind: OperatorTxKind,
  /** The quote hash the transaction settles: with `kind`, the transaction's identity (at most one per pair, ever). */
  quote_hash: Hash,
  chain: ChainName,
  to: EvmAddress,
  data: z.string().regex(/^0x([0-9a-fA-F]{2})*$/, 'must be hex bytes'),
  /** Native value sent with the call, base units. */
  value: AmountString,
});
export type SendOperatorTxRequest = z.infer<typeof SendOperatorTxRequest>;

export const OperatorTxViewSchema = z.object({
  kind: OperatorTxKind,
  quote_hash: Hash,
  chain: ChainName,
  /** The operator wallet that sends it. */
  wallet: EvmAddress,
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

/** The operator wallet's balance of a token on a chain (zero address: native), read from the chain now. */
export const OperatorBalanceRpc = defineRpc(
  'gasless.v1.operator_balance',
  z.object({ chain: ChainName, token: EvmAddress }),
  z.object({ chain: ChainName, token: EvmAddress, wallet: EvmAddress, balance: AmountString, at: z.string() }),
  { access: 'internal', callers: ['quote-engine'] },
);

import { z } from 'zod';
import { decimalAtMost } from '../wire';

/**
 * The order as the API returns it: every field of the published Order struct
 * (contracts/src/XchainOrder.sol), snake_case, in struct order, each value a string, plus the
 * referrers behind `referrers_hash`. Written by hand because contracts import only zod; the
 * order codec's spec checks these keys against its ABI components so the two cannot drift.
 * A client recomputes `quote_hash` as keccak256(abi.encode(Order)) from these fields.
 */

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** An unsigned integer of `bits` bits as a decimal string (no sign, no leading zeros). */
function uintString(bits: 8 | 16 | 64 | 256, description: string) {
  const max = ((1n << BigInt(bits)) - 1n).toString();
  return z
    .string()
    .regex(DECIMAL, `must be a decimal uint${bits}`)
    .refine((s) => !DECIMAL.test(s) || decimalAtMost(s, max), { message: `exceeds uint${bits}` })
    .meta({ description: `${description} (uint${bits} as a decimal string).` });
}

/** 32 bytes as lowercase 0x hex: addresses (EVM left-padded, Solana key bytes) and hashes. */
function bytes32(description: string) {
  return z
    .string()
    .regex(/^0x[0-9a-f]{64}$/, 'must be 32 bytes of lowercase 0x hex')
    .meta({ description: `${description} (bytes32 as lowercase 0x hex).` });
}

function boolString(description: string) {
  return z.enum(['true', 'false']).meta({ description: `${description} ("true" or "false").` });
}

export const OrderReferrerWireSchema = z
  .object({
    account: bytes32('Referrer account: EVM address left-padded or Solana key bytes'),
    bps: uintString(16, 'Referrer fee in basis points of `amount_in`'),
  })
  .meta({ id: 'OrderReferrer' });

export const OrderWireSchema = z
  .object({
    version: uintString(8, 'Order struct version'),
    salt: bytes32('Random per quote, so equal parameters still hash apart'),
    src_chain_id: uintString(64, 'Source chain id'),
    dst_chain_id: uintString(64, 'Destination chain id'),
    src_token: bytes32('Source token: EVM address left-padded, or Solana mint; zero for native'),
    dst_token: bytes32('Destination token: EVM address left-padded, or Solana mint; zero for native'),
    amount_in: uintString(256, 'Deposit amount, source token base units'),
    amount_out: uintString(256, 'Expected output net of every fee, destination token base units'),
    min_amount_out: uintString(256, 'Floor: a fulfilment delivering less does not land, destination token base units'),
    recipient: bytes32('Destination account'),
    refund_address: bytes32('Source account refunded if the order is not filled'),
    gas_drop: uintString(256, 'Native asset delivered to the recipient on the destination, base units'),
    trade_type: uintString(8, 'Trade type: 1 exact input, 2 expected output, 3 exact input guaranteed output, 4 exact output'),
    slippage_bps: uintString(16, 'Slippage applied, basis points'),
    src_slippage_bps: uintString(16, 'Floor for the source swap leg, basis points'),
    dst_gas_native: uintString(256, 'Destination fulfilment gas priced in, destination native base units'),
    sponsor_gas: uintString(256, 'Relay gas of a gasless order, source token base units'),
    gasless: boolString('Submitted through SubmitGaslessOrder'),
    sponsor_fees: boolString('With `gasless`: the relay gas is charged to the partner funding balance, not the output'),
    referrers_hash: bytes32('keccak256(abi.encode(referrers)), or zero without referrers'),
    issued_at: uintString(64, 'Issue time, unix seconds'),
    expires_at: uintString(64, 'Expiry, unix seconds'),
    deposit_target: bytes32('Router (EVM) or vault (Solana) the deposit goes to'),
    referrers: z.array(OrderReferrerWireSchema).meta({ description: 'The referrers behind `referrers_hash` (not part of the struct).' }),
  })
  .meta({
    id: 'Order',
    description:
      'The full bound parameter set: every field of the published Order struct (contracts/src/XchainOrder.sol), snake_case, in struct order, so `quote_hash` = keccak256(abi.encode(Order)) can be recomputed; plus `referrers`.',
  });
export type OrderWire = z.infer<typeof OrderWireSchema>;
export type OrderReferrerWire = z.infer<typeof OrderReferrerWireSchema>;

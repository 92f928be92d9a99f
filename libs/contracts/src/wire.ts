import { z } from 'zod';

/**
 * Wire primitives of decisions D1 (protojson conventions). Numbers that can exceed 2^53 travel
 * as decimal strings; on input, uint32/uint64 fields also accept a JSON number.
 */
const UINT256_MAX = ((1n << 256n) - 1n).toString();
const UINT64_MAX = ((1n << 64n) - 1n).toString();
const DECIMAL = /^(0|[1-9][0-9]*)$/;

/**
 * Whether `decimal` (matching DECIMAL: no sign, no leading zero) is at most `max` (the same form):
 * a shorter one is smaller, one as long compares as text. No BigInt is built (validating a quote
 * checks about thirty of these).
 */
export function decimalAtMost(decimal: string, max: string): boolean {
  return decimal.length < max.length || (decimal.length === max.length && decimal <= max);
}

/** A base-unit amount: base-10, non-negative, no sign, no decimals, at most 2^256-1. */
export const AmountString = z
  .string()
  .refine((s) => DECIMAL.test(s) && decimalAtMost(s, UINT256_MAX), {
    message: 'must be a base-10 non-negative integer string of at most 2^256-1',
  })
  .meta({ description: 'Base-unit amount as a decimal string.', examples: ['1000000'] });

/** uint64 as returned: a decimal string. */
export const Uint64String = z
  .string()
  .regex(DECIMAL)
  .meta({ description: 'uint64 as a decimal string.', examples: ['42'] });

/** uint64 on input: a decimal string or a JSON integer; normalised to a string. */
export const Uint64Input = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const s = typeof v === 'number' ? (Number.isSafeInteger(v) && v >= 0 ? String(v) : '') : v;
  if (!DECIMAL.test(s) || !decimalAtMost(s, UINT64_MAX)) {
    ctx.addIssue({ code: 'custom', message: 'must be an unsigned 64-bit integer' });
    return z.NEVER;
  }
  return s;
});

/** uint32 on input: a JSON integer or a decimal string; normalised to a number. */
export const Uint32Input = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const s = typeof v === 'number' ? (Number.isSafeInteger(v) ? String(v) : '') : v;
  if (!DECIMAL.test(s) || Number(s) > 0xffffffff) {
    ctx.addIssue({ code: 'custom', message: 'must be an unsigned 32-bit integer' });
    return z.NEVER;
  }
  return Number(s);
});

export const EvmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 20-byte hex address');
export const EVM_NATIVE_ADDRESS = '0x0000000000000000000000000000000000000000';
/** The all-zero Solana key stands for native SOL, as the zero address does on EVM chains. */
export const SVM_NATIVE_ADDRESS = '11111111111111111111111111111111';

export const Rfc3339 = z.iso.datetime({ offset: true }).meta({ description: 'RFC 3339 timestamp.' });

export const ChainName = z
  .string()
  .regex(/^[a-z][a-z0-9-]*$/, 'must be a lowercase chain name')
  .meta({ description: 'Lowercase chain name, e.g. `ethereum`.', examples: ['ethereum'] });

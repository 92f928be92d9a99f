import { z } from 'zod';

/** The trade types of interface.md, by name; the numeric value is accepted on input (D1). */
export const TRADE_TYPES = [
  'TRADE_TYPE_UNSPECIFIED',
  'TRADE_TYPE_EXACT_INPUT',
  'TRADE_TYPE_EXPECTED_OUTPUT',
  'TRADE_TYPE_EXACT_INPUT_GUARANTEED_OUTPUT',
  'TRADE_TYPE_EXACT_OUTPUT',
] as const;
export type TradeTypeName = Exclude<(typeof TRADE_TYPES)[number], 'TRADE_TYPE_UNSPECIFIED'>;

export const TradeType = z
  .union([z.enum(TRADE_TYPES), z.number().int(), z.string().regex(/^[0-9]+$/)])
  .transform((v, ctx): TradeTypeName => {
    const name = typeof v === 'number' || /^[0-9]+$/.test(v) ? TRADE_TYPES[Number(v)] : v;
    if (name === undefined || name === 'TRADE_TYPE_UNSPECIFIED') {
      ctx.addIssue({ code: 'custom', message: 'must be a specified trade type (TRADE_TYPE_EXACT_INPUT, …)' });
      return z.NEVER;
    }
    return name as TradeTypeName;
  })
  .meta({
    description:
      'Which side `amount` fixes and whether the output is guaranteed. Name or numeric value; TRADE_TYPE_UNSPECIFIED (0) is rejected.',
    examples: ['TRADE_TYPE_EXACT_INPUT'],
  });

/** Why a quote cannot be given; `reason` is the stable UPPER_SNAKE code of decisions D2. */
export type PricingReason =
  | 'UNSUPPORTED_PAIR'
  | 'AMOUNT_BELOW_MIN'
  | 'AMOUNT_ABOVE_MAX'
  | 'GAS_DROP_OVER_CAP'
  | 'INVALID_REFERRERS'
  | 'INVALID_SLIPPAGE'
  | 'INSUFFICIENT_INVENTORY';

export class PricingError extends Error {
  override name = 'PricingError';
  constructor(
    readonly reason: PricingReason,
    message: string,
    readonly metadata: Record<string, string> = {},
  ) {
    super(message);
  }
}

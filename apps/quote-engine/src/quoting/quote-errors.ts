import { Code, RpcError, badRequest, errorInfo } from '@xchain/contracts';
import type { PricingError } from '@xchain/pricing-core';

/** INVALID_ARGUMENT naming the field, with the interface's reason. */
export function invalid(field: string, description: string, reason: string, metadata?: Record<string, string>): RpcError {
  return new RpcError(Code.INVALID_ARGUMENT, `${field}: ${description}`, [
    errorInfo(reason, metadata),
    badRequest([{ field, description }]),
  ]);
}

const FIELD_OF: Record<string, string> = {
  AMOUNT_BELOW_MIN: 'amount',
  AMOUNT_ABOVE_MAX: 'amount',
  GAS_DROP_OVER_CAP: 'gas_drop',
  INVALID_REFERRERS: 'referrers',
  INVALID_SLIPPAGE: 'slippage_bps',
  UNSUPPORTED_PAIR: 'dst_token',
};

/** A pricing refusal as the wire error: bad requests are INVALID_ARGUMENT, capacity UNAVAILABLE. */
export function fromPricingError(err: PricingError): RpcError {
  if (err.reason === 'INSUFFICIENT_INVENTORY') {
    return RpcError.unavailable(err.message, err.reason, 30, err.metadata);
  }
  return invalid(FIELD_OF[err.reason] ?? 'request', err.message, err.reason, err.metadata);
}

import { RpcError } from '@xchain/contracts';
import { z } from 'zod';

/** 0x marks the native asset with this address; we use the zero address. */
const ZERO_EX_NATIVE = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

const Uint = z.string().regex(/^[0-9]+$/);

/** The fields of a 0x Swap API v2 `/swap/allowance-holder/price` answer that pricing relies on. */
const PriceResponse = z.discriminatedUnion('liquidityAvailable', [
  z.object({ liquidityAvailable: z.literal(false), zid: z.string().optional() }),
  z.object({
    liquidityAvailable: z.literal(true),
    buyAmount: Uint,
    sellAmount: Uint,
    minBuyAmount: Uint.optional(),
    gas: Uint.nullable().optional(),
    totalNetworkFee: Uint.nullable().optional(),
    zid: z.string().optional(),
  }),
]);

export interface SwapPrice {
  sellAmount: bigint;
  buyAmount: bigint;
  /** 0x's request id, for support. */
  zid?: string;
}

export interface ZeroExOptions {
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
}

/**
 * Indicative prices from the 0x Swap API v2 (AllowanceHolder). Every failure — timeout, HTTP
 * error, malformed answer, no liquidity — is UNAVAILABLE / AGGREGATOR_FAILURE; the upstream's
 * message is never passed to our users.
 */
export class ZeroExClient {
  constructor(private readonly opts: ZeroExOptions) {}

  async price(chainId: bigint, sellToken: string, buyToken: string, sellAmount: bigint): Promise<SwapPrice> {
    const url = new URL('/swap/allowance-holder/price', this.opts.baseUrl);
    url.searchParams.set('chainId', chainId.toString());
    url.searchParams.set('sellToken', toZeroEx(sellToken));
    url.searchParams.set('buyToken', toZeroEx(buyToken));
    url.searchParams.set('sellAmount', sellAmount.toString());
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { '0x-version': 'v2', ...(this.opts.apiKey ? { '0x-api-key': this.opts.apiKey } : {}) },
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (err) {
      const timedOut = (err as { name?: unknown } | null)?.name === 'TimeoutError'; // a DOMException, not always an Error here
      throw failure(timedOut ? 'timeout' : 'unreachable');
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw failure(`http_${res.status}`);
    }
    const parsed = PriceResponse.safeParse(await res.json().catch(() => undefined));
    if (!parsed.success) throw failure('malformed_response');
    const body = parsed.data;
    if (!body.liquidityAvailable) throw failure('no_liquidity');
    if (BigInt(body.sellAmount) !== sellAmount) throw failure('sell_amount_mismatch');
    return { sellAmount: BigInt(body.sellAmount), buyAmount: BigInt(body.buyAmount), ...(body.zid ? { zid: body.zid } : {}) };
  }
}

function toZeroEx(address: string): string {
  return address.toLowerCase() === ZERO_ADDRESS ? ZERO_EX_NATIVE : address;
}

function failure(detail: string): RpcError {
  return RpcError.unavailable('the swap aggregator could not price this trade', 'AGGREGATOR_FAILURE', 2, { detail });
}

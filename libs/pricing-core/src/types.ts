export type Tier = 'stable' | 'major' | 'long_tail';
export type Vm = 'evm' | 'svm';

export type TradeType =
  'TRADE_TYPE_EXACT_INPUT' | 'TRADE_TYPE_EXPECTED_OUTPUT' | 'TRADE_TYPE_EXACT_INPUT_GUARANTEED_OUTPUT' | 'TRADE_TYPE_EXACT_OUTPUT';

/** A token with its USD price (E18 per whole unit). */
export interface PricedToken {
  chain: string;
  address: string;
  symbol: string;
  decimals: number;
  tier: Tier;
  isNative: boolean;
  priceE18: bigint;
}

export interface ChainParams {
  name: string;
  /** Native asset, priced. */
  native: PricedToken;
  /** The asset bridged across chains (USDC everywhere today). */
  bridgeAsset: PricedToken;
  /** Destination fulfilment gas of an order landing on this chain, native base units. */
  fulfilGasNative: bigint;
  /** Source relay gas of a gasless deposit on this chain, native base units. */
  relayGasNative: bigint;
  maxGasDrop: bigint;
}

export interface Referrer {
  address: string;
  bps: number;
}

export interface FeeConfig {
  protocolFeeBps: bigint;
  keylessSpreadBps: bigint;
  maxReferrers: number;
  maxReferrerBpsTotal: bigint;
  /** Accepted order size, USD micros of the input value. */
  minOrderUsdMicros: bigint;
  maxOrderUsdMicros: bigint;
}

export type FeeName = 'protocol_fee' | 'swap_fee' | 'dst_gas' | 'gas_drop' | 'referrer_fee' | 'sponsor_gas' | 'keyless_spread';

export interface FeeComponent {
  name: FeeName;
  side: 'src' | 'dst';
  /** USD value, micros (floored). */
  usdMicros: bigint;
  /** The fee in base units of the asset it is charged in (src token, dst token, or native for gas). */
  native: bigint;
  /** `partner` when a sponsor pays it instead of the user (sponsor_fees). */
  chargedTo: 'user' | 'partner';
  /**
   * What the fee takes from the user's funds, in base units of the token of its side: the source
   * token for `src`, the destination token for `dst`. 0 when a sponsor pays it, and for
   * `swap_fee`, which is a loss of value inside the route, not a deduction.
   */
  charged: bigint;
}

export interface QuoteInput {
  src: PricedToken;
  dst: PricedToken;
  srcChain: ChainParams;
  dstChain: ChainParams;
  tradeType: TradeType;
  amount: bigint;
  gasDrop: bigint;
  slippageBps?: number;
  srcSlippageBps?: number;
  referrers: Referrer[];
  gasless: boolean;
  sponsorFees: boolean;
  keyless: boolean;
  fees: FeeConfig;
  /** Filler inventory of the destination token (base units); undefined = not limited. */
  dstInventory?: bigint;
}

export interface RouteLeg {
  kind: 'swap' | 'bridge';
  chain: string;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  amountOut: bigint;
}

export interface QuoteResult {
  amountIn: bigint;
  amountOut: bigint;
  minAmountOut: bigint;
  slippageBps: number;
  srcSlippageBps: number;
  amountInUsdMicros: bigint;
  amountOutUsdMicros: bigint;
  fees: FeeComponent[];
  srcTotalUsdMicros: bigint;
  dstTotalUsdMicros: bigint;
  srcGasNative: bigint;
  dstGasNative: bigint;
  /** Relay gas charged for a gasless quote, in source token units (0 when sponsored or not gasless). */
  sponsorGasInSrcToken: bigint;
  /** Source units entering the route (swaps and bridge): `amountIn` less every `src` fee charged. */
  routeIn: bigint;
  /** Destination units the route yields: `amountOut` plus every `dst` fee charged. */
  routeOut: bigint;
  sameChainSwap: boolean;
  legs: RouteLeg[];
}

import { type GetQuoteRequest, QuoteSchema } from '@xchain/contracts';
import { PERMIT2_ADDRESS } from '@xchain/evm-gasless';
import { DependencyOutages } from '@xchain/messaging';
import type { Hex } from '@xchain/order-codec';
import type { QuoteResult } from '@xchain/pricing-core';
import { LOGGER } from '@xchain/service-kit';
import { newTestService } from '@xchain/service-kit/testing';
import { hexToBigInt, zeroAddress } from 'viem';
import { QUOTE_RETENTION_SECS } from '../config.tokens';
import type { ChainInfo, TokenInfo } from '../registry/registry-cache';
import { DESTINATION_CALLS } from './destination-calls';
import { EXECUTABILITY, type Executability, type ExecutabilityQuery } from './executability';
import { TOKEN_PERMIT_READER, type TokenPermitReader } from './permit-reader';
import { type PricedRequest, QuotePipeline } from './quote-pipeline';
import { RANDOM_WORD } from './quote-random';
import { QuoteWriter } from './quote-writer';
import { SVM_BLOCKHASH } from './svm-blockhash';
import { storedResponse } from './stored-response';
import { QuoteService } from './quote.service';

const ROUTER = '0x7CCfEacBa472f31962CB515Fe4cE4477D15C4a04';
const EXECUTOR = '0x71268D7045F6fAF62bDea68CE4BaE4fE2184FB8b';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const REFUND = '0x5555555555555555555555555555555555555555';
const RANDOM: Hex = `0x${'c3'.repeat(32)}`;

const evmChain = (name: string, chainId: bigint): ChainInfo => ({
  name,
  chainId,
  vm: 'evm',
  nativeSymbol: 'ETH',
  nativeDecimals: 18,
  enabled: true,
  gasless: true,
  maxGasDrop: 0n,
  depositTarget: ROUTER,
  gaslessExecutor: EXECUTOR,
});
const ethereum = evmChain('ethereum', 1n);
const arbitrum = evmChain('arbitrum', 42161n);
const usdc: TokenInfo = { chain: 'ethereum', address: USDC, symbol: 'USDC', decimals: 6, tier: 'stable', permit: true, isNative: false };
const arbUsdc: TokenInfo = { ...usdc, chain: 'arbitrum', address: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831' };

const result: QuoteResult = {
  amountIn: 1_000_000_000n,
  amountOut: 998_000_000n,
  minAmountOut: 993_000_000n,
  slippageBps: 50,
  srcSlippageBps: 0,
  amountInUsdMicros: 1_000_000_000n,
  amountOutUsdMicros: 998_000_000n,
  routeIn: 1_000_000_000n,
  routeOut: 998_000_000n,
  fees: [],
  srcTotalUsdMicros: 0n,
  dstTotalUsdMicros: 0n,
  srcGasNative: 0n,
  dstGasNative: 0n,
  sponsorGasInSrcToken: 0n,
  sameChainSwap: false,
  legs: [],
};

function priced(over: { gasless?: boolean; src?: TokenInfo; dst?: TokenInfo; dstChain?: ChainInfo } = {}): PricedRequest {
  const dstChain = over.dstChain ?? arbitrum;
  return {
    input: {
      gasDrop: 0n,
      tradeType: 'TRADE_TYPE_EXACT_INPUT',
      gasless: over.gasless ?? false,
      sponsorFees: false,
    } as PricedRequest['input'],
    result: { ...result, sameChainSwap: dstChain.name === ethereum.name },
    srcChain: ethereum,
    dstChain,
    src: over.src ?? usdc,
    dst: over.dst ?? arbUsdc,
    referrers: [],
    nowSecs: 0,
    priceImpactBps: 0,
  };
}

/**
 * A QuoteService that prices `p` and reads token permits with `read`, every other collaborator
 * mocked (no blockhashes, outages or destination calls: a quote goes without them), and the request to quote.
 */
function quoteServiceFor(p: PricedRequest, read: TokenPermitReader['read'], checks?: Executability) {
  const warn = jest.fn();
  const reader = { read: jest.fn(read) };
  const t = newTestService(QuoteService, [
    { provide: QUOTE_RETENTION_SECS, useValue: 86_400 },
    { provide: RANDOM_WORD, useValue: () => RANDOM },
    { provide: TOKEN_PERMIT_READER, useValue: reader },
    { provide: LOGGER, useValue: { warn } },
    { provide: SVM_BLOCKHASH, useValue: undefined },
    { provide: DependencyOutages, useValue: undefined },
    { provide: EXECUTABILITY, useValue: checks },
    { provide: DESTINATION_CALLS, useValue: undefined },
  ]);
  t.mock(QuotePipeline).price.mockResolvedValue(p);
  const create = t.mock(QuoteWriter).store.mockResolvedValue({} as never);
  const request = { recipient: REFUND, refund_address: REFUND.toLowerCase() } as GetQuoteRequest;
  return { service: t.sut, create, warn, reader, request };
}

describe('QuoteService.quote from an EVM chain', () => {
  it('adds permit2 with the injected random nonce and erc2612 with the read token state, and stores them', async () => {
    const t = quoteServiceFor(priced({ gasless: true }), async () => ({ name: 'USD Coin', version: '2', nonce: 9n }));
    const quote = await t.service.quote(t.request, undefined);
    if (!('cross_chain' in quote)) throw new Error('expected a cross_chain quote');
    const cc = quote.cross_chain;
    expect(cc.permit2?.message).toMatchObject({
      spender: EXECUTOR,
      nonce: hexToBigInt(RANDOM).toString(),
      deadline: String(Date.parse(cc.expires_at) / 1000),
      permitted: { token: USDC, amount: cc.amount_in },
    });
    expect(cc.erc2612?.message).toEqual({
      owner: REFUND,
      spender: PERMIT2_ADDRESS,
      value: (2n ** 256n - 1n).toString(),
      nonce: '9',
      deadline: cc.permit2?.message.deadline,
    });
    expect(t.reader.read).toHaveBeenCalledWith(ethereum, USDC, REFUND);
    expect(cc.deposit_tx).toBeUndefined();
    // Stored as returned, its order in its own column (quote.v1.fetch hands the relayer these
    // fields), and the schema keeps every one.
    const row = t.create.mock.calls[0]![0];
    expect(storedResponse(JSON.parse(JSON.stringify(row.response)), row.order, row.retainedUntil, row.quoteHash)).toEqual(quote);
    // Deposits are honoured until the end of retention (86,400 s here), told next to the expiry.
    expect(Date.parse(cc.retained_until!) - Date.parse(cc.expires_at)).toBe((86_400 - 30 * 60) * 1000);
    expect(Date.parse(cc.retained_until!)).toBe(row.retainedUntil.getTime());
    expect(QuoteSchema.parse(JSON.parse(JSON.stringify(quote)))).toEqual(JSON.parse(JSON.stringify(quote)));
  });

  it('still quotes, without erc2612, when the token read fails, and says so in the log', async () => {
    const t = quoteServiceFor(priced({ gasless: true }), () => Promise.reject(new Error('request timed out')));
    const quote = await t.service.quote(t.request, undefined);
    if (!('cross_chain' in quote)) throw new Error('expected a cross_chain quote');
    expect(quote.cross_chain.permit2).toBeDefined();
    expect(quote.cross_chain.erc2612).toBeUndefined();
    expect(t.warn).toHaveBeenCalledTimes(1);
    expect(t.warn.mock.calls[0][0]).toMatchObject({ chain: 'ethereum', err: 'request timed out' });
  });

  it('quotes without erc2612 and without a warning when no RPC is configured for the chain', async () => {
    const t = quoteServiceFor(priced({ gasless: true }), async () => undefined);
    const quote = await t.service.quote(t.request, undefined);
    expect('cross_chain' in quote && quote.cross_chain.erc2612).toBeFalsy();
    expect(t.warn).not.toHaveBeenCalled();
  });

  it('reads nothing for a token not listed with permit', async () => {
    const t = quoteServiceFor(priced({ gasless: true, src: { ...usdc, permit: false } }), async () => undefined);
    await t.service.quote(t.request, undefined);
    expect(t.reader.read).not.toHaveBeenCalled();
  });

  it('gives a non-gasless quote deposit_tx and approval, and nothing to sign', async () => {
    const t = quoteServiceFor(priced(), async () => undefined);
    const quote = await t.service.quote(t.request, undefined);
    if (!('cross_chain' in quote)) throw new Error('expected a cross_chain quote');
    expect(quote.cross_chain).toMatchObject({
      deposit_tx: { to: ROUTER, value: '0' },
      approval: { token: USDC, spender: ROUTER, amount: '1000000000' },
    });
    expect(quote.cross_chain.permit2).toBeUndefined();
    expect(t.reader.read).not.toHaveBeenCalled();
  });

  it('gives a same-chain swap deposit_tx too', async () => {
    const weth: TokenInfo = { ...usdc, address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', permit: false };
    const eth: TokenInfo = { ...usdc, address: zeroAddress, isNative: true, permit: false };
    const t = quoteServiceFor(priced({ src: eth, dst: weth, dstChain: ethereum }), async () => undefined);
    const quote = await t.service.quote(t.request, undefined);
    if (!('same_chain_swap' in quote)) throw new Error('expected a same_chain_swap quote');
    expect(quote.same_chain_swap.deposit_tx).toMatchObject({ to: ROUTER, value: '1000000000' });
    expect(quote.same_chain_swap.approval).toBeUndefined();
  });
});

describe('QuoteService.quote and its executability issues', () => {
  it('asks about the refund address with the permit the quote offers, and stores the issues and price impact as answered, the hash untouched', async () => {
    const issues = [{ code: 'BALANCE_SHORT' as const, chain: 'ethereum', reason: 'short', fix: 'fund 1 more', needed: '2', have: '1' }];
    let asked: ExecutabilityQuery | undefined;
    const checks: Executability = {
      issues: async (q) => {
        asked = q;
        return issues;
      },
    };
    const p = { ...priced({ gasless: true }), priceImpactBps: 20 };
    const plain = await quoteServiceFor(p, async () => ({ name: 'USD Coin', version: '2', nonce: 9n })).service.quote(
      quoteServiceFor(p, async () => undefined).request,
      undefined,
    );
    const t = quoteServiceFor(p, async () => ({ name: 'USD Coin', version: '2', nonce: 9n }), checks);
    const quote = await t.service.quote(t.request, undefined);
    if (!('cross_chain' in quote) || !('cross_chain' in plain)) throw new Error('expected a cross_chain quote');
    expect(quote.cross_chain).toMatchObject({ issues, price_impact_bps: 20 });
    expect(asked).toMatchObject({ owner: REFUND, recipient: REFUND, gasless: true, amountIn: 1_000_000_000n, gasDrop: 0n });
    expect(await asked!.permitOffered).toBe(true);
    // The same order (same random salt and clock) hashes the same with or without issues.
    expect(quote.cross_chain.quote_hash).toBe(plain.cross_chain.quote_hash);
    const row = t.create.mock.calls[0]![0];
    expect(storedResponse(JSON.parse(JSON.stringify(row.response)), row.order, row.retainedUntil, row.quoteHash)).toEqual(quote);
    expect(QuoteSchema.parse(JSON.parse(JSON.stringify(quote)))).toEqual(JSON.parse(JSON.stringify(quote)));
  });
});

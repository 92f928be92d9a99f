import { Code, type PreviewQuoteRequest, RpcError, type Status } from '@xchain/contracts';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { HealthRegistry } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import type { PriceBook } from '../prices/price-book';
import { QuotePipeline } from '../quoting/quote-pipeline';
import type { QuotingConfig } from '../quoting-config';
import type { SponsorFunding } from '../quoting/sponsor-funding';
import type { SwapPricing } from '../quoting/swap-pricing';
import { RegistryRepository } from './registry.repository';
import { RegistryCache } from './registry-cache';

const chainRow = {
  name: 'base',
  chainId: 8453n,
  vm: 'evm',
  nativeSymbol: 'ETH',
  nativeDecimals: 18,
  enabled: true,
  gasless: true,
  maxGasDrop: { toFixed: () => '0' },
  depositTarget: '0x00000000000000000000000000000000000000aa',
  gaslessExecutor: null,
  feePayer: null,
  defaultFulfillEtaSecs: null,
};
const tokenRow = {
  chainName: 'base',
  address: '0x0000000000000000000000000000000000000000',
  symbol: 'ETH',
  decimals: 18,
  tier: 'major',
  permit: false,
  coingeckoId: 'ethereum',
  logoUrl: '',
};

/** A database whose registry tables answer what the test sets (or fail while `down`). */
function fakeDb() {
  const state = { down: false, chains: [] as unknown[], tokens: [] as unknown[] };
  const table = (rows: () => unknown[]) => ({
    findMany: async () => {
      if (state.down) throw new Error("Can't reach database server at 127.0.0.1:5432");
      return rows();
    },
  });
  const db = { chain: table(() => state.chains), token: table(() => state.tokens) } as unknown as PrismaClient;
  return { db, state };
}

const log = { warn: jest.fn(), info: jest.fn(), error: jest.fn() } as unknown as Logger;

const request: PreviewQuoteRequest = {
  src_chain: 'base',
  dst_chain: 'base',
  src_token: '0x0000000000000000000000000000000000000000',
  dst_token: '0x0000000000000000000000000000000000000000',
  trade_type: 'TRADE_TYPE_EXACT_INPUT',
  amount: '1000',
  gas_drop: '',
} as PreviewQuoteRequest;

function statusOf(fn: () => unknown): Status {
  try {
    fn();
  } catch (err) {
    if (err instanceof RpcError) return err.status;
    throw err;
  }
  throw new Error('expected an RpcError');
}

async function statusOfAsync(p: Promise<unknown>): Promise<Status> {
  try {
    await p;
  } catch (err) {
    if (err instanceof RpcError) return err.status;
    throw err;
  }
  throw new Error('expected an RpcError');
}

describe('RegistryCache when its load fails or finds nothing', () => {
  function setup() {
    const { db, state } = fakeDb();
    const health = new HealthRegistry('quote-engine');
    const cache = new RegistryCache(new RegistryRepository(db), log, 5000, health);
    const pipeline = new QuotePipeline(
      cache,
      {} as PriceBook,
      { chains: {}, suspended_pairs: [], inventory: {} } as unknown as QuotingConfig,
      {} as SwapPricing,
      {} as SponsorFunding,
    );
    return { cache, pipeline, health, state };
  }

  it('reports not ready, naming the cause, while the database cannot be read', async () => {
    const { cache, health, state } = setup();
    state.down = true;
    await expect(cache.reload()).rejects.toThrow();
    const report = await health.readiness();
    expect(report.status).toBe('unavailable');
    expect(report.checks['registry']).toEqual({
      ok: false,
      detail: expect.stringContaining("registry not loaded: Can't reach database server"),
    });
  });

  it('answers quotes and lists UNAVAILABLE / REGISTRY_NOT_LOADED with a retry delay of one refresh, not UNSUPPORTED_PAIR', async () => {
    const { cache, pipeline, state } = setup();
    state.down = true;
    await cache.reload().catch(() => undefined);

    const quote = await statusOfAsync(pipeline.price(request, undefined, 1_800_000_000));
    expect(quote.code).toBe(Code.UNAVAILABLE);
    expect(quote.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ reason: 'REGISTRY_NOT_LOADED' }),
        expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retry_delay: '5s' }),
      ]),
    );
    expect(statusOf(() => cache.listTokens()).code).toBe(Code.UNAVAILABLE);
    expect(statusOf(() => cache.listChains()).code).toBe(Code.UNAVAILABLE);
  });

  it('treats a load that found no chains (an empty registry) as not loaded', async () => {
    const { cache, pipeline, health } = setup();
    await cache.reload();
    expect((await health.readiness()).checks['registry']).toEqual({ ok: false, detail: 'registry not loaded: no chains in the database' });
    expect((await statusOfAsync(pipeline.price(request, undefined, 1_800_000_000))).details).toEqual(
      expect.arrayContaining([expect.objectContaining({ reason: 'REGISTRY_NOT_LOADED' })]),
    );
  });

  it('becomes ready on the first load that finds chains, and then an unknown chain is UNSUPPORTED_PAIR again', async () => {
    const { cache, pipeline, health, state } = setup();
    state.down = true;
    await cache.reload().catch(() => undefined);
    state.down = false;
    state.chains = [chainRow];
    state.tokens = [tokenRow];
    await cache.reload();

    expect((await health.readiness()).checks['registry']).toEqual({ ok: true, detail: '1 chains, 1 tokens' });
    expect(cache.listChains().chains.map((c) => c.chain)).toEqual(['base']);
    const unknown = await statusOfAsync(pipeline.price({ ...request, dst_chain: 'nowhere' }, undefined, 1_800_000_000));
    expect(unknown.code).toBe(Code.INVALID_ARGUMENT);
    expect(unknown.details).toEqual(expect.arrayContaining([expect.objectContaining({ reason: 'UNSUPPORTED_PAIR' })]));
  });

  it("knownChain: the chain, INVALID_ARGUMENT naming the field with the caller's reason for an unknown one, REGISTRY_NOT_LOADED before a load", async () => {
    const { cache, state } = setup();
    const statusOf = (name: string) => {
      try {
        cache.knownChain(name, 'chain', 'INVALID_CHAIN');
      } catch (err) {
        return (err as RpcError).status;
      }
      return undefined;
    };
    expect(statusOf('base')?.details).toEqual(expect.arrayContaining([expect.objectContaining({ reason: 'REGISTRY_NOT_LOADED' })]));
    state.chains = [chainRow];
    state.tokens = [tokenRow];
    await cache.reload();
    expect(cache.knownChain('base', 'chain', 'INVALID_CHAIN').chainId).toBe(8453n);
    expect(statusOf('bogus')).toEqual({
      code: Code.INVALID_ARGUMENT,
      message: 'chain: unknown chain bogus',
      details: [
        expect.objectContaining({ reason: 'INVALID_CHAIN' }),
        expect.objectContaining({ field_violations: [{ field: 'chain', description: 'unknown chain bogus' }] }),
      ],
    });
  });

  it('keeps serving the last registry (still ready) when a later reload fails, and says so', async () => {
    const { cache, health, state } = setup();
    state.chains = [chainRow];
    state.tokens = [tokenRow];
    await cache.reload();
    state.down = true;
    await expect(cache.reload()).rejects.toThrow();

    const check = (await health.readiness()).checks['registry'];
    expect(check?.ok).toBe(true);
    expect(check?.detail).toContain('last reload failed');
    expect(cache.listTokens().tokens).toHaveLength(1);
  });
});

describe('RegistryCache token lookups', () => {
  const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
  const mint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

  async function loaded() {
    const { db, state } = fakeDb();
    state.chains = [chainRow, { ...chainRow, name: 'solana', chainId: 0n, vm: 'svm' }];
    state.tokens = [
      tokenRow,
      { ...tokenRow, address: usdc, symbol: 'USDC', decimals: 6, coingeckoId: 'usd-coin' },
      { ...tokenRow, chainName: 'solana', address: mint, symbol: 'USDC', decimals: 6, coingeckoId: 'usd-coin' },
    ];
    const cache = new RegistryCache(new RegistryRepository(db), log, 5000, new HealthRegistry('quote-engine'));
    await cache.reload();
    return cache;
  }

  it('finds an EVM token by its address in any case, and nothing for an address it does not list', async () => {
    const cache = await loaded();
    const base = cache.chain('base')!;
    for (const typed of [usdc, usdc.toLowerCase(), `0x${usdc.slice(2).toUpperCase()}`]) {
      expect(cache.token(base, typed)).toMatchObject({ chain: 'base', address: usdc, symbol: 'USDC', decimals: 6 });
    }
    expect(cache.token(base, '0x0000000000000000000000000000000000000000')).toMatchObject({ symbol: 'ETH', isNative: true });
    expect(cache.token(base, '0x833589fcd6edb6e08f4c7c32d4f71b54bda02914')).toBeUndefined();
    expect(cache.token(base, usdc.slice(0, 41))).toBeUndefined();
    expect(cache.token(base, `${usdc} `)).toBeUndefined();
    // A token of another chain is not this chain's.
    expect(cache.token(base, mint)).toBeUndefined();
  });

  it('matches a Solana mint exactly: base58 is case-sensitive', async () => {
    const cache = await loaded();
    const solana = cache.chain('solana')!;
    expect(cache.token(solana, mint)).toMatchObject({ chain: 'solana', address: mint });
    expect(cache.token(solana, mint.toLowerCase())).toBeUndefined();
    expect(cache.token(solana, usdc)).toBeUndefined();
  });
});

describe('RegistryCache change notice', () => {
  it('tells its listeners after the first load and after each reload that changed a list, not after one that did not', async () => {
    const { db, state } = fakeDb();
    state.chains = [chainRow];
    state.tokens = [tokenRow];
    const cache = new RegistryCache(new RegistryRepository(db), log, 5000, new HealthRegistry('quote-engine'));
    const changed = jest.fn();
    cache.onListsChanged(changed);
    await cache.reload();
    expect(changed).toHaveBeenCalledTimes(1);
    await cache.reload();
    expect(changed).toHaveBeenCalledTimes(1);
    state.tokens = [
      tokenRow,
      { ...tokenRow, address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', symbol: 'USDC', decimals: 6, tier: 'stable' },
    ];
    await cache.reload();
    expect(changed).toHaveBeenCalledTimes(2);
    state.chains = [{ ...chainRow, enabled: false }];
    await cache.reload();
    expect(changed).toHaveBeenCalledTimes(3);
    expect(cache.listChains().chains[0]).toMatchObject({ enabled: false });
  });

  it('does not tell its listeners when a reload fails, and a failing listener does not fail the reload', async () => {
    const { db, state } = fakeDb();
    state.chains = [chainRow];
    state.tokens = [tokenRow];
    const cache = new RegistryCache(new RegistryRepository(db), log, 5000, new HealthRegistry('quote-engine'));
    const changed = jest.fn();
    cache.onListsChanged(() => {
      throw new Error('bus closed');
    });
    cache.onListsChanged(changed);
    await cache.reload();
    expect(changed).toHaveBeenCalledTimes(1);
    state.down = true;
    await expect(cache.reload()).rejects.toThrow("Can't reach database server");
    expect(changed).toHaveBeenCalledTimes(1);
  });
});

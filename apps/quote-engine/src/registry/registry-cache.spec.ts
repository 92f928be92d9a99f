import { Code, type PreviewQuoteRequest, RpcError, type Status } from '@xchain/contracts';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { HealthRegistry } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import type { PriceBook } from '../prices/price-book';
import { QuotePipeline } from '../quoting/quote-pipeline';
import type { QuotingConfig } from '../quoting/quoting-config';
import type { SponsorFunding } from '../quoting/sponsor-funding';
import type { SwapPricing } from '../quoting/swap-pricing';
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
    const cache = new RegistryCache(db, log, 5000, health);
    const pipeline = new QuotePipeline(cache, {} as PriceBook, { chains: {}, suspended_pairs: [], inventory: {} } as unknown as QuotingConfig, {} as SwapPricing, {} as SponsorFunding);
    return { cache, pipeline, health, state };
  }

  it('reports not ready, naming the cause, while the database cannot be read', async () => {
    const { cache, health, state } = setup();
    state.down = true;
    await expect(cache.reload()).rejects.toThrow();
    const report = await health.readiness();
    expect(report.status).toBe('unavailable');
    expect(report.checks['registry']).toEqual({ ok: false, detail: expect.stringContaining("registry not loaded: Can't reach database server") });
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

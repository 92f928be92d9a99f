import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { XchainClient } from '@xchain/client';
import { type OrderEvent, orderEventSubject } from '@xchain/contracts';
import { ROOT, untilHolds } from '@xchain/stack';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { expectApiError, gatewayClient } from '../support/http';
import { EVM_REFUND, EVM_USER, T } from '../support/registry-fixture';

/** Stands in for the chain watchers that publish order events (a test user, D14). */
const ORDER_WATCHERS = 'order-watchers-stand-in';

jest.setTimeout(90_000);

/**
 * The quote-engine's outside inputs through the gateway: swap legs priced by the 0x Swap API v2
 * (a loopback server replaying its wire format) and fulfilment estimates from order events.
 */
describe('aggregator-priced legs and fulfilment estimates', () => {
  let e2e: E2eStack;
  let nc: NatsConnection;
  let zeroEx: Server;
  const asked: string[] = [];
  const fixture = JSON.parse(readFileSync(join(ROOT, 'apps/quote-engine/src/swap/fixtures/0x-price-usdc-weth-ethereum.json'), 'utf8'));
  let api: XchainClient;
  const base = {
    src_chain: 'ethereum',
    src_token: T.ethereum.USDC,
    trade_type: 'TRADE_TYPE_EXACT_INPUT',
    amount: '1000000000',
    gas_drop: '',
    recipient: EVM_USER,
    refund_address: EVM_REFUND,
  } as const;

  beforeAll(async () => {
    // USDC→WETH at the fixture's rate for any size; 500 for anything involving PEPE.
    zeroEx = createServer((req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      asked.push(req.url ?? '');
      if ([q.get('sellToken'), q.get('buyToken')].includes(T.ethereum.PEPE)) return void res.writeHead(500).end('{}');
      const sell = BigInt(q.get('sellAmount') ?? '0');
      const body = {
        ...fixture,
        sellAmount: sell.toString(),
        buyAmount: ((sell * BigInt(fixture.buyAmount)) / BigInt(fixture.sellAmount)).toString(),
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((r) => zeroEx.listen(0, '127.0.0.1', r));
    e2e = await startE2eStack(
      {
        SWAP_PRICER: '0x',
        ZEROEX_API_URL: `http://127.0.0.1:${(zeroEx.address() as AddressInfo).port}`,
        ZEROEX_API_KEY: 'e2e-key',
        ETA_REFRESH_MS: '300',
      },
      { testUsers: { [ORDER_WATCHERS]: { publish: ['orders.v1.deposited', 'orders.v1.fulfilled'] } } },
    );
    nc = await e2e.connectAs(ORDER_WATCHERS);
    api = gatewayClient(e2e.gatewayUrl);
  });
  afterAll(async () => {
    await nc?.close();
    await e2e?.stop();
    await new Promise<void>((r) => zeroEx.close(() => r()));
  });

  it('prices an EVM swap leg at the aggregator’s rate', async () => {
    const q = await api.getQuote({ ...base, dst_chain: 'ethereum', dst_token: T.ethereum.WETH });
    if (!('same_chain_swap' in q)) throw new Error(`expected a same-chain swap, got ${JSON.stringify(q)}`);
    const leg = asked.find((u) => u.includes(`buyToken=${T.ethereum.WETH}`))!;
    expect(leg).toContain('chainId=1');
    const sold = BigInt(new URL(leg, 'http://x').searchParams.get('sellAmount')!);
    // The deposit less the source fees is what the leg sells; the output is 0x's rate for it.
    expect(sold).toBeLessThan(1_000_000_000n);
    expect(BigInt(q.same_chain_swap.amount_out)).toBe((sold * BigInt(fixture.buyAmount)) / BigInt(fixture.sellAmount));
  });

  it('answers UNAVAILABLE / AGGREGATOR_FAILURE when the aggregator fails', async () => {
    await expectApiError(api.getQuote({ ...base, dst_chain: 'ethereum', dst_token: T.ethereum.PEPE }), {
      http: 503,
      code: 14,
      reason: 'AGGREGATOR_FAILURE',
      metadata: { detail: 'http_500' },
    });
  });

  it('estimates fulfilment from the median of recent orders on the pair, with count and p90', async () => {
    const pair = { ...base, dst_chain: 'optimism', dst_token: '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85' };
    const before = await api.previewQuote(pair);
    expect(before).toMatchObject({ fulfill_eta_secs: '5', fulfill_eta_samples: '0' }); // optimism's configured default
    const js = jetstream(nc);
    const t0 = Date.now() - 3_600_000; // inside ETA_WINDOW_HOURS whenever the suite runs
    for (const secs of [20, 40, 90]) {
      const q = await api.getQuote(pair);
      if (!('cross_chain' in q)) throw new Error(`expected a cross-chain quote, got ${JSON.stringify(q)}`);
      const hash = q.cross_chain.quote_hash;
      const events: OrderEvent[] = [
        {
          type: 'fulfilled',
          quote_hash: hash,
          chain: 'optimism',
          tx_hash: `0xf${secs}`,
          occurred_at: new Date(t0 + secs * 1000).toISOString(),
        },
        { type: 'deposited', quote_hash: hash, chain: 'ethereum', tx_hash: `0xd${secs}`, occurred_at: new Date(t0).toISOString() },
      ];
      for (const e of events) await js.publish(orderEventSubject(e.type), JSON.stringify(e));
    }
    // Events are consumed asynchronously: poll until the estimate moves (bounded).
    const after = await untilHolds(
      'three ETA samples',
      () => api.previewQuote(pair),
      (a) => a.fulfill_eta_samples === '3',
      {
        timeoutMs: 15_000,
        everyMs: 300,
      },
    );
    expect(after).toMatchObject({ fulfill_eta_secs: '40', fulfill_eta_samples: '3', fulfill_eta_p90_secs: '90' });
    const other = await api.previewQuote({ ...pair, dst_chain: 'arbitrum', dst_token: T.arbitrum.USDC });
    expect(other.fulfill_eta_samples).toBe('0');
  });
});

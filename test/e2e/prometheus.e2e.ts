import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { LedgerHoldRpc, LedgerReleaseRpc } from '@xchain/contracts';
import { RpcClient, type NatsConnection } from '@xchain/messaging';
import {
  PROMETHEUS_MISSING,
  SERVICES,
  findExecutable,
  freePort,
  metricNamesIn,
  startPrometheus,
  type RunningPrometheus,
  untilHolds,
} from '@xchain/stack';
import { DEV_FILLER, DEV_FILLER_KEY } from '@xchain/devnet';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { errorView, expectApiError, gatewayClient } from '../support/http';
import { EVM_REFUND, EVM_USER, USDC_ETH_TO_ARB } from '../support/registry-fixture';

jest.setTimeout(240_000);

const installed = findExecutable('prometheus') !== undefined;
if (!installed) console.warn(`[prometheus e2e] SKIPPED: ${PROMETHEUS_MISSING}`);
const describeWithPrometheus = installed ? describe : describe.skip;

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

/**
 * A real Prometheus scraping every service of a stack (with a local chain, so the relay lanes,
 * wallets and chain watchers exist), asked through its HTTP API, as an operator would.
 */
describeWithPrometheus('metrics through a real Prometheus', () => {
  let e2e: E2eStack;
  let prom: RunningPrometheus;
  let relayer: NatsConnection;

  // Prometheus' own HTTP API, not ours: plain fetch.
  const api = async (path: string): Promise<any> => {
    const res = await fetch(`${prom.url}${path}`, { signal: AbortSignal.timeout(5000) });
    const body = (await res.json()) as { status: string; data: unknown };
    expect(body.status).toBe('success');
    return body.data;
  };
  const query = async (promql: string): Promise<Sample[]> => (await api(`/api/v1/query?query=${encodeURIComponent(promql)}`)).result;
  /** Polls a query until `ok` holds for its samples (a scrape is every second), failing with the last answer. */
  const queryUntil = (promql: string, ok: (s: Sample[]) => boolean, timeoutMs = 30_000): Promise<Sample[]> =>
    untilHolds(promql, () => query(promql), ok, { timeoutMs, everyMs: 500 });
  const num = (s: Sample) => Number(s.value[1]);

  beforeAll(async () => {
    // With the operator wallet, so live inventory (and its alert's metrics) is read.
    e2e = await startE2eStack({ FILLER_PRIVATE_KEYS: DEV_FILLER_KEY }, { devnet: { chains: ['base'] } });
    const dir = join(e2e.logDir, '..', 'prometheus');
    const targets = Object.fromEntries(SERVICES.map((s) => [s.name, e2e.ports[s.name]]));
    prom = await startPrometheus({
      dir,
      port: await freePort(),
      targets,
      scrapeIntervalSecs: 1,
      logFile: join(e2e.logDir, 'prometheus.log'),
    });
    relayer = await e2e.connectAs('gasless-relayer');
  });

  afterAll(async () => {
    await relayer?.close();
    await prom?.proc.stop();
    await e2e?.stop();
  });

  /** The scrape targets once every service is up. */
  const targetsUp = () =>
    untilHolds(
      'every target up',
      async (): Promise<{ labels: { job: string }; health: string; lastError: string }[]> => (await api('/api/v1/targets')).activeTargets,
      (targets) => targets.length === SERVICES.length && targets.every((t) => t.health === 'up'),
      { timeoutMs: 30_000, everyMs: 500 },
    );

  it('scrapes every service', async () => {
    const targets = await targetsUp();
    expect(targets.map((t) => [t.labels.job, t.health, t.lastError]).sort()).toEqual(SERVICES.map((s) => [s.name, 'up', '']).sort());
    // Node's process metrics from each of them.
    const rss = await queryUntil('process_resident_memory_bytes', (s) => s.length === SERVICES.length);
    for (const s of rss) expect(num(s)).toBeGreaterThan(10_000_000);
  });

  it('counts HTTP requests by route pattern and status, and NATS calls by subject and outcome', async () => {
    const gateway = gatewayClient(e2e.gatewayUrl);
    const quote = { ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND };
    expect((await gateway.call('GetQuote', quote)).status).toBe(200);
    // refused by the quote-engine (below the 1 USD minimum)
    await expectApiError(gateway.getQuote({ ...quote, amount: '1000' }), { http: 400, code: 3, reason: 'AMOUNT_BELOW_MIN' });
    // refused by the gateway's validation
    await expectApiError(gateway.getQuote({ ...quote, amount: '1.5' }), {
      http: 400,
      code: 3,
      reason: 'INVALID_REQUEST',
      fields: ['amount'],
    });
    // Raw on purpose: a path no operation has, which the typed client cannot even name.
    const unmatched = await fetch(`${e2e.gatewayUrl}/json/v1/no-such-thing/${randomBytes(4).toString('hex')}`);
    expect(errorView(unmatched.status, await unmatched.json())).toMatchObject({ http: 404, code: 5 });
    await expectApiError(gateway.getOrder({ quote_hash: `0x${'ab'.repeat(32)}` }), { http: 404, code: 5, reason: 'QUOTE_NOT_FOUND' });

    await queryUntil(
      'http_requests_total{job="gateway",method="POST",route="/json/v1/quote",status="200"}',
      (s) => s.length === 1 && num(s[0]!) >= 1,
    );
    await queryUntil(
      'http_requests_total{job="gateway",method="POST",route="/json/v1/quote",status="400"}',
      (s) => s.length === 1 && num(s[0]!) >= 2,
    );
    await queryUntil('http_requests_total{job="gateway",route="unmatched",status="404"}', (s) => s.length === 1 && num(s[0]!) >= 1);
    // A path parameter never becomes a label: the order lookup is one series, under its pattern.
    await queryUntil('http_requests_total{job="gateway",route="/json/v1/orders/:quote_hash",status="404"}', (s) => s.length === 1);
    expect(await query('count({job="gateway", route=~".*(no-such-thing|abab).*"})')).toEqual([]);
    await queryUntil('http_request_duration_seconds_count{job="gateway",route="/json/v1/quote"}', (s) => s.length >= 2);

    await queryUntil(
      'nats_client_request_duration_seconds_count{job="gateway",subject="quote.v1.get",outcome="ok"}',
      (s) => s.length === 1 && num(s[0]!) >= 1,
    );
    await queryUntil(
      'nats_client_request_duration_seconds_count{job="gateway",subject="quote.v1.get",outcome="INVALID_ARGUMENT"}',
      (s) => s.length === 1,
    );
    await queryUntil(
      'nats_server_request_duration_seconds_count{job="quote-engine",subject="quote.v1.get",outcome="ok"}',
      (s) => s.length === 1,
    );
    await queryUntil('quotes_total{job="quote-engine",operation="quote",outcome="ok"}', (s) => s.length === 1 && num(s[0]!) >= 1);
    await queryUntil(
      'quotes_total{job="quote-engine",operation="quote",outcome="AMOUNT_BELOW_MIN"}',
      (s) => s.length === 1 && num(s[0]!) >= 1,
    );
    await queryUntil('rate_limit_fallback_total{job="gateway"}', (s) => s.length === 2 && s.every((x) => num(x) === 0));
  });

  it('shows price ages, relay lanes, wallet balances, chain watcher lag and ledger holds', async () => {
    const ages = await queryUntil('price_age_seconds{job="quote-engine"}', (s) => s.some((x) => x.metric['price_id'] === 'ethereum'));
    for (const s of ages) expect(num(s)).toBeLessThan(60);
    await queryUntil('price_max_age_seconds{job="quote-engine"}', (s) => s.length === 1 && num(s[0]!) === 60);

    // One lane per relayer wallet and one for the operator wallet on the one local chain, nothing waiting.
    const wallets = e2e.relayerWallets.map((w) => w.toLowerCase()).sort();
    const lanes = [...wallets, DEV_FILLER.toLowerCase()].sort();
    const waiting = await queryUntil('relay_queue_jobs{job="gasless-relayer",state="waiting"}', (s) => s.length === lanes.length);
    expect(waiting.map((s) => [s.metric['chain'], s.metric['wallet'], num(s)]).sort()).toEqual(lanes.map((w) => ['base', w, 0]));
    await queryUntil('relay_queue_oldest_job_age_seconds{job="gasless-relayer"}', (s) => s.length === lanes.length);
    // Balances come from the readiness check (probed at start): above the floor, as funded.
    const balances = await queryUntil(
      'relayer_wallet_balance_wei > on(job, instance, chain, wallet) relayer_wallet_floor_wei',
      (s) => s.length === wallets.length,
    );
    expect(balances.map((s) => s.metric['wallet']).sort()).toEqual(wallets);

    // The quote-engine's deposit watcher and the partner-service's funding and voucher watchers on base, within their confirmations.
    const lag = await queryUntil('chain_watcher_lag_blocks{chain="base"}', (s) => s.length === 3);
    expect(lag.map((s) => s.metric['job']).sort()).toEqual(['partner-service', 'partner-service', 'quote-engine']);
    await queryUntil('chain_watcher_lag_blocks - chain_watcher_confirmations <= 5', (s) => s.length === 3);

    // One hold open and one released: one outstanding, of its amount.
    const created = await e2e.admin('create-partner', '--email', 'metrics@example.com');
    expect((await e2e.admin('credit', '--email', 'metrics@example.com', '--usd-micros', '1000000', '--reason', 'prepaid')).code).toBe(0);
    const rpc = new RpcClient(relayer, 20_000);
    const caller = { caller: { kind: 'internal', service: 'gasless-relayer' } } as const;
    const [open, closed] = [`0x${randomBytes(32).toString('hex')}`, `0x${randomBytes(32).toString('hex')}`];
    await rpc.call(LedgerHoldRpc, { partner_id: created.out.partner_id, quote_hash: open, amount_usd_micros: '250000' }, caller);
    await rpc.call(LedgerHoldRpc, { partner_id: created.out.partner_id, quote_hash: closed, amount_usd_micros: '100000' }, caller);
    await rpc.call(LedgerReleaseRpc, { quote_hash: closed }, caller);
    await queryUntil('ledger_holds_outstanding{job="partner-service"}', (s) => s.length === 1 && num(s[0]!) === 1);
    await queryUntil('ledger_holds_outstanding_usd_micros{job="partner-service"}', (s) => s.length === 1 && num(s[0]!) === 250_000);

    // Every scrape-time collector (Redis, database, memory) answers within its deadline.
    const collectors = await queryUntil('metrics_collect_success', (s) => s.length >= 4);
    expect(collectors.filter((s) => num(s) !== 1)).toEqual([]);
  });

  it('has alert rules that name only metrics the services export, and none firing on a healthy stack', async () => {
    const groups: { rules: { type: string; name: string; query: string; health: string; state?: string }[] }[] = (
      await api('/api/v1/rules')
    ).groups;
    const alerts = groups.flatMap((g) => g.rules).filter((r) => r.type === 'alerting');
    expect(alerts.map((a) => a.name)).toEqual(
      expect.arrayContaining([
        'PriceStale',
        'RelayQueueGrowing',
        'RelayerWalletBelowFloor',
        'ChainWatcherLagging',
        'HttpErrorRateHigh',
        'InventoryBelowFloor',
      ]),
    );
    // Each name must show up among what was scraped (some only after a watcher's first pass: poll).
    await targetsUp();
    const named = alerts.flatMap((a) => metricNamesIn(a.query).map((n) => [a.name, n] as const));
    expect(named.length).toBeGreaterThan(alerts.length);
    const unknown = await untilHolds(
      'every metric an alert names among those scraped',
      async () => {
        const exported = new Set<string>(await api('/api/v1/label/__name__/values'));
        return named.filter(([, n]) => !exported.has(n)).map(([a, n]) => `${a}: ${n}`);
      },
      (unknown) => unknown.length === 0,
      { timeoutMs: 20_000, everyMs: 1000 },
    );
    expect(unknown).toEqual([]);
    for (const a of alerts) expect([a.name, a.health]).toEqual([a.name, 'ok']);
    expect(alerts.filter((a) => a.state === 'firing').map((a) => a.name)).toEqual([]);
  });

  it('keeps /metrics off the public API: not in the OpenAPI document, not rate limited, GET only', async () => {
    // Raw on purpose: the OpenAPI document and the Prometheus text are what is checked here, and neither is an operation of the client.
    const doc = (await (await fetch(`${e2e.gatewayUrl}/json/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.includes('metrics'))).toEqual([]);
    const res = await fetch(`${e2e.gatewayUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
    expect(await res.text()).toContain('# TYPE http_requests_total counter');
    const post = await fetch(`${e2e.gatewayUrl}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});

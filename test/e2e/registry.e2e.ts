import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { XchainClient } from '@xchain/client';
import { ListTokensRpc, REGISTRY_CHANGED_SUBJECT } from '@xchain/contracts';
import { ROOT, until, untilHolds } from '@xchain/stack';
import { Client } from 'pg';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { expectApiError, gatewayClient } from '../support/http';

jest.setTimeout(60_000);

const TIMEOUT_MS = 1500;
/** The quote-engine reloads its registry this often here; the gateway keeps its lists for its default 30 s. */
const REFRESH_MS = 200;

const registry = JSON.parse(readFileSync(join(ROOT, 'config/registry.json'), 'utf8')) as {
  chains: { chain: string; chain_id: string }[];
  tokens: { chain: string; address: string; symbol: string }[];
};

describe('ListTokens and GetChains through the gateway', () => {
  let e2e: E2eStack;
  let api: XchainClient;
  beforeAll(async () => {
    e2e = await startE2eStack({ NATS_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), REGISTRY_REFRESH_MS: String(REFRESH_MS) });
    api = gatewayClient(e2e.gatewayUrl);
  });

  /** Says on the bus, as a quote-engine does after a reload that changed a list, that the registry changed. */
  async function announceChange(): Promise<void> {
    const nc = await e2e.connectAs('quote-engine');
    try {
      nc.publish(REGISTRY_CHANGED_SUBJECT);
      await nc.flush();
    } finally {
      await nc.close();
    }
  }
  afterAll(async () => {
    await e2e?.stop();
  });

  it('lists every seeded token with checksummed EVM addresses', async () => {
    const res = await api.call('ListTokens');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = res.data;
    expect(body.tokens).toHaveLength(registry.tokens.length);
    const usdc = body.tokens.find((t) => t.chain === 'ethereum' && t.symbol === 'USDC');
    expect(usdc).toMatchObject({
      chain_id: '1',
      address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      decimals: 6,
      tier: 'stable',
      permit: true,
    });
    const native = body.tokens.find((t) => t.chain === 'ethereum' && t.address === '0x0000000000000000000000000000000000000000');
    expect(native?.symbol).toBe('ETH');
    expect(body.tokens.some((t) => t.chain === 'solana' && t.symbol === 'SOL')).toBe(true);
  });

  it('lists the chains with their real chain ids and limits', async () => {
    const body = await api.getChains();
    const byName = new Map(body.chains.map((c) => [c.chain, c]));
    for (const [name, id] of [
      ['ethereum', '1'],
      ['arbitrum', '42161'],
      ['base', '8453'],
      ['optimism', '10'],
      ['polygon', '137'],
      ['bsc', '56'],
      ['avalanche', '43114'],
    ]) {
      expect(byName.get(name!)).toMatchObject({ chain_id: id, vm: 'evm' });
    }
    expect(byName.get('solana')).toMatchObject({ vm: 'svm', native_symbol: 'SOL', native_decimals: 9 });
    const sol = byName.get('solana')!;
    if (sol.gasless) expect(sol.fee_payer).toBeDefined();
    expect(body.chains.length).toBe(registry.chains.length);
  });

  // Raw fetch here: a 304 has no body for the client to return.
  it('answers 304 to If-None-Match with the current ETag, and 200 to a stale one', async () => {
    const first = await fetch(`${e2e.gatewayUrl}/json/v1/tokens`);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await fetch(`${e2e.gatewayUrl}/json/v1/tokens`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    const weakList = await fetch(`${e2e.gatewayUrl}/json/v1/tokens`, { headers: { 'if-none-match': `"other", W/${etag}` } });
    expect(weakList.status).toBe(304);
    const stale = await fetch(`${e2e.gatewayUrl}/json/v1/tokens`, { headers: { 'if-none-match': '"stale"' } });
    expect(stale.status).toBe(200);
    const chains = await fetch(`${e2e.gatewayUrl}/json/v1/chains`);
    expect(chains.headers.get('etag')).not.toBe(etag);
  });

  it('returns the trace id as x-request-id and traceparent', async () => {
    const res = await api.call('GetChains');
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(res.headers.get('traceparent')).toContain(id!);
  });

  it('reports every service ready', async () => {
    for (const [name, proc] of e2e.stack.services) {
      expect(proc.child.exitCode).toBeNull();
      void name;
    }
    const res = await fetch(`${e2e.gatewayUrl}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', checks: { nats: { ok: true } } });
  });

  it("shows an operator's registry change within a reload, though the gateway keeps its lists for 30 s", async () => {
    const usdcOnBase = (tokens: { chain: string; symbol: string }[]) => tokens.some((t) => t.chain === 'base' && t.symbol === 'USDC');
    const listed = await api.listTokens();
    expect(usdcOnBase(listed.tokens)).toBe(true);
    const etag = (await fetch(`${e2e.gatewayUrl}/json/v1/tokens`)).headers.get('etag');
    const db = new Client({ connectionString: e2e.databaseUrl('quote_engine') });
    await db.connect();
    try {
      // Only the quote-engine's change notice can make the gateway ask again this soon.
      await db.query(`UPDATE tokens SET listed = false WHERE chain_name = 'base' AND symbol = 'USDC'`);
      const delisted = await pollTokens((tokens) => !usdcOnBase(tokens));
      expect(delisted.tokens).toHaveLength(listed.tokens.length - 1);
      const now = await fetch(`${e2e.gatewayUrl}/json/v1/tokens`, { headers: { 'if-none-match': etag! } });
      expect(now.status).toBe(200);
      expect(now.headers.get('etag')).not.toBe(etag);
      await db.query(`UPDATE tokens SET listed = true WHERE chain_name = 'base' AND symbol = 'USDC'`);
      const relisted = await pollTokens((tokens) => usdcOnBase(tokens));
      expect(relisted.tokens).toHaveLength(listed.tokens.length);
      expect((await fetch(`${e2e.gatewayUrl}/json/v1/tokens`)).headers.get('etag')).toBe(etag);
    } finally {
      await db.query(`UPDATE tokens SET listed = true WHERE chain_name = 'base' AND symbol = 'USDC'`);
      await db.end();
    }
  });

  /** ListTokens until `done` holds of its list, for at most 10 s (REFRESH_MS plus a message, normally). */
  function pollTokens(done: (tokens: { chain: string; symbol: string }[]) => boolean) {
    return untilHolds(
      'the token list',
      () => api.listTokens(),
      (body) => done(body.tokens),
      { timeoutMs: 10_000, everyMs: 50 },
    );
  }

  it('serves the lists it keeps while the quote-engine is stopped, and UNAVAILABLE at once when it has none', async () => {
    const before = await api.listTokens();
    await e2e.stack.services.get('quote-engine')!.stop();
    expect(await api.listTokens()).toEqual(before);
    await announceChange();
    // The notice reaches the gateway on its own connection: ask until it has dropped its lists.
    await until(
      'the gateway to drop its lists',
      () =>
        api.listTokens().then(
          () => false,
          () => true,
        ),
      { timeoutMs: 5000, everyMs: 20 },
    );
    // NATS reports "no responders" at once: 503 SERVICE_UNAVAILABLE, where waiting out the
    // deadline would have answered 504 UPSTREAM_TIMEOUT. The reason is the proof, not a stopwatch.
    const err = await expectApiError(api.listTokens(), { http: 503, code: 14, reason: 'SERVICE_UNAVAILABLE' });
    expect(err.headers.get('retry-after')).toBe('1');
    expect(err.retryAfterSecs).toBe(1);
  });

  it('answers DEADLINE_EXCEEDED within the configured bound when the service does not answer', async () => {
    // A subscriber that never replies stands in for a hung quote-engine (the real one is stopped);
    // only the quote-engine's NATS user may serve registry subjects (D14), so it uses that one.
    const nc = await e2e.connectAs('quote-engine');
    nc.subscribe(ListTokensRpc.subject, { callback: () => undefined });
    await nc.flush();
    // The gateway keeps no list since the test before dropped them (and no quote-engine can refill them): it must ask.
    try {
      const started = Date.now();
      await expectApiError(api.listTokens(), { http: 504, code: 4, reason: 'UPSTREAM_TIMEOUT' });
      const elapsed = Date.now() - started;
      // Timers never fire early, so the lower bound is exact: the gateway waited out its deadline.
      // The upper bound only proves there is a deadline (no answer ever comes); it is generous so a
      // busy machine cannot fail it, and stays well under the test's timeout.
      expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 15_000);
    } finally {
      await nc.close();
    }
  });
});

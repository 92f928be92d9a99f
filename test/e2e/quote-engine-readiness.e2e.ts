import { join } from 'node:path';
import { Kvm } from '@nats-io/kv';
import { PRICES_BUCKET, type Price } from '@xchain/contracts';
import type { NatsConnection } from '@xchain/messaging';
import { ROOT, SERVICES, entryOf, launch, runTool, until, type UntilOptions } from '@xchain/stack';
import { Client } from 'pg';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { apiErrorView, expectApiError, gatewayClient } from '../support/http';
import { USDC_ETH_TO_ARB } from '../support/registry-fixture';

jest.setTimeout(120_000);

const ENGINE = SERVICES.find((s) => s.name === 'quote-engine')!;

interface Readiness {
  status: string;
  checks: Record<string, { ok: boolean; detail?: string }>;
}

const POLL: UntilOptions = { everyMs: 5 };

/** The quote-engine's `/readyz` tells what its quotes will meet: a registry and its prices. */
describe('quote-engine readiness', () => {
  let e2e: E2eStack;
  let oracle: NatsConnection;
  const preview = () => gatewayClient(e2e.gatewayUrl).previewQuote(USDC_ETH_TO_ARB);
  const readyz = async (): Promise<{ http: number; body: Readiness }> => {
    const res = await fetch(`http://127.0.0.1:${e2e.ports['quote-engine']}/readyz`);
    return { http: res.status, body: (await res.json()) as Readiness };
  };

  beforeAll(async () => {
    e2e = await startE2eStack({
      QUOTING_CONFIG_FILE: join(ROOT, 'test/fixtures/quoting.e2e.json'),
      PRICE_POLL_MS: '600000',
      PRICE_MAX_AGE_SECS: '7200',
      REGISTRY_REFRESH_MS: '300',
    });
    oracle = await e2e.connectAs('price-oracle');
  }, 120_000);
  afterAll(async () => {
    await oracle?.close();
    await e2e?.stop();
  });

  it('a restarted engine answers its first quote (no STALE_PRICE) the moment /readyz first says ready', async () => {
    await preview();
    for (let round = 0; round < 3; round++) {
      await e2e.stack.services.get('quote-engine')!.stop();
      // Launched by hand so /readyz is watched closely, not at the stack helper's pace.
      const proc = launch('quote-engine', process.execPath, [entryOf('quote-engine')], {
        env: { ...e2e.stack.envFor('quote-engine'), [ENGINE.portVar]: String(e2e.ports['quote-engine']) },
        logFile: join(e2e.logDir, 'quote-engine.log'),
        cwd: ROOT,
      });
      e2e.stack.services.set('quote-engine', proc);
      const seen = new Set<string>();
      await until(
        'the restarted engine to be ready',
        async () => {
          const r = await readyz();
          if (r.http !== 200) {
            for (const [name, c] of Object.entries(r.body.checks)) if (!c.ok) seen.add(`${name}: ${c.detail ?? ''}`);
            return undefined;
          }
          return true;
        },
        POLL,
      );
      const first = await preview().then(
        () => 'ok',
        (err: unknown) => JSON.stringify(apiErrorView(err)),
      );
      expect(first).toBe('ok');
      // What it waited for on the way (e.g. "prices: waiting for the first prices"), for the log.
      process.stdout.write(`[readiness] round ${round}: not ready on the way: ${[...seen].join(' | ') || '(never observed)'}\n`);
    }
  });

  it('reports a stale price as degraded while staying ready, and fresh once it is updated', async () => {
    const kv = await new Kvm(oracle).open(PRICES_BUCKET);
    const now = Math.floor(Date.now() / 1000);
    const price = (publish_time: number): Price => ({
      price_id: 'e2e-stale-asset',
      price: '100000000',
      expo: -8,
      conf: '0',
      publish_time,
      source: 'file',
    });
    await kv.put('e2e-stale-asset', JSON.stringify(price(now - 7200 - 60)));

    const degraded = await until(
      'a degraded price check',
      async () => {
        const r = await readyz();
        return r.body.checks['prices']?.detail?.startsWith('degraded:') ? r : undefined;
      },
      POLL,
    );
    expect(degraded.http).toBe(200);
    expect(degraded.body.status).toBe('ok');
    expect(degraded.body.checks['prices']).toEqual({
      ok: true,
      detail: expect.stringMatching(/^degraded: 1 of \d+ prices older than 7200 s \(e2e-stale-asset\)$/),
    });

    await kv.put('e2e-stale-asset', JSON.stringify(price(now)));
    await until(
      'fresh prices',
      async () => ((await readyz()).body.checks['prices']?.detail?.endsWith('all fresh') ? true : undefined),
      POLL,
    );
  });

  it('with its registry gone, is not ready and answers 503 REGISTRY_NOT_LOADED (not 400 UNSUPPORTED_PAIR), until the registry is back', async () => {
    const db = new Client({ connectionString: e2e.databaseUrl('quote_engine') });
    await db.connect();
    try {
      await db.query('DELETE FROM tokens');
      await db.query('DELETE FROM chains');
    } finally {
      await db.end();
    }

    const down = await until(
      'not ready',
      async () => {
        const r = await readyz();
        return r.http === 503 ? r : undefined;
      },
      POLL,
    );
    expect(down.body.checks['registry']).toEqual({ ok: false, detail: 'registry not loaded: no chains in the database' });
    const refused = await expectApiError(preview(), { http: 503, code: 14, reason: 'REGISTRY_NOT_LOADED' });
    expect(refused.headers.get('retry-after')).toBe('1');
    await expectApiError(gatewayClient(e2e.gatewayUrl).listTokens(), { http: 503 });

    // The operator seeds it again: ready and quoting within a refresh.
    await runTool('dist/apps/quote-engine/src/seed.js', [join(ROOT, 'config/registry.json')], {
      ...e2e.stack.env,
      DATABASE_URL: e2e.databaseUrl('quote_engine'),
    });
    await until('ready again', async () => ((await readyz()).http === 200 ? true : undefined), POLL);
    await preview();
  });
});

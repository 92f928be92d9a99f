import { join } from 'node:path';
import { XchainApiError } from '@xchain/client';
import { ROOT } from '@xchain/stack';
import { Client } from 'pg';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { gatewayClient } from '../support/http';
import { EVM_REFUND, EVM_USER, USDC_ETH_TO_ARB } from '../support/registry-fixture';

jest.setTimeout(120_000);

const WORKERS = 16;
/** Answers before the kill: enough that group commit runs with full batches. */
const KILL_AFTER = 200;
const MAX_REQUESTS = 5_000;
const MAX_MS = 60_000;

/**
 * Group commit answers a quote only after the statement holding it committed. So a GetQuote run
 * cut by kill -9 of the quote-engine, with statements and callers in flight, leaves every quote
 * that was answered 200 in the database (the ones in flight are lost, but none was answered).
 */
describe('stored quotes survive kill -9 of the quote-engine', () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await startE2eStack({
      QUOTING_CONFIG_FILE: join(ROOT, 'test/fixtures/quoting.e2e.json'),
      PRICE_WALK_SEED: '7',
      PRICE_POLL_MS: '600000',
      PRICE_MAX_AGE_SECS: '7200',
    });
  });
  afterAll(async () => {
    await e2e?.stop();
  });

  it('every 200 answer of a run interrupted by kill -9 is in the database afterwards', async () => {
    const engine = e2e.stack.services.get('quote-engine')!;
    const exited = new Promise((r) => engine.child.once('exit', r));
    const answered: string[] = [];
    const failed: Record<string, number> = {};
    let sent = 0;
    let inFlight = 0;
    let inFlightAtKill = -1;
    let killed = false;
    const deadline = Date.now() + MAX_MS;
    const body = { ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND };
    const api = gatewayClient(e2e.gatewayUrl);

    const worker = async () => {
      // After the kill each worker sends once more (that one meets the dead engine), then stops.
      let afterKill = 0;
      while (sent < MAX_REQUESTS && Date.now() < deadline && afterKill < 1) {
        if (killed) afterKill++;
        sent++;
        inFlight++;
        try {
          const q = await api.getQuote(body);
          answered.push(('cross_chain' in q ? q.cross_chain : q.same_chain_swap).quote_hash.toLowerCase());
        } catch (err) {
          const kind = err instanceof XchainApiError ? String(err.httpStatus) : err instanceof Error ? err.name : 'unknown';
          failed[kind] = (failed[kind] ?? 0) + 1;
        } finally {
          inFlight--;
        }
        if (!killed && answered.length >= KILL_AFTER) {
          killed = true;
          inFlightAtKill = inFlight;
          engine.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    await exited;

    expect(killed).toBe(true);
    // The kill cut a run under load: callers were waiting on it, and later ones were refused.
    expect(inFlightAtKill).toBeGreaterThan(0);
    expect(Object.values(failed).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(answered.length).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(new Set(answered).size).toBe(answered.length);

    const db = new Client({ connectionString: e2e.databaseUrl('quote_engine') });
    await db.connect();
    try {
      const { rows } = await db.query<{ quote_hash: string }>(
        'SELECT lower(quote_hash) AS quote_hash FROM quotes WHERE lower(quote_hash) = ANY($1::text[])',
        [answered],
      );
      const stored = new Set(rows.map((r) => r.quote_hash));
      expect(answered.filter((h) => !stored.has(h))).toEqual([]);
    } finally {
      await db.end();
    }
  });
});

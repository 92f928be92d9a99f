import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, until } from '@xchain/stack';
import { Client } from 'pg';
import { type E2eStack, startE2eStack } from '../support/e2e-stack';
import { gatewayClient } from '../support/http';
import { EVM_REFUND, EVM_USER, USDC_ETH_TO_ARB } from '../support/registry-fixture';

jest.setTimeout(240_000);

const DAY = 86_400_000;
const OLD_QUOTES = 50_000;

/**
 * Quotes stored by the day (issue 45): two quote-engine replicas keep the days, each running the
 * upkeep every half second, while GetQuote runs on both gateways. A day past retention and grace
 * is dropped whole by one of them, without a conflict between them and without a failed quote; one
 * replica is killed with kill -9 meanwhile and started again (its upkeep runs again at start).
 * Every quote answered 200 is stored, and each is found by its hash through the gateway.
 */
describe('the days of stored quotes, at two replicas', () => {
  let e2e: E2eStack;
  let db: Client;

  beforeAll(async () => {
    e2e = await startE2eStack(
      {
        QUOTING_CONFIG_FILE: join(ROOT, 'test/fixtures/quoting.e2e.json'),
        PRICE_WALK_SEED: '7',
        PRICE_POLL_MS: '600000',
        PRICE_MAX_AGE_SECS: '7200',
        QUOTE_DAYS_INTERVAL_MS: '500',
      },
      { replicas: 2 },
    );
    db = new Client({ connectionString: e2e.databaseUrl('quote_engine') });
    await db.connect();
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await e2e?.stop();
  });

  const days = async () =>
    (await db.query<{ d: string }>(`SELECT to_char(d, 'YYYY-MM-DD') AS d FROM quote_days() AS d`)).rows.map((r) => r.d);

  it('makes the days ahead at start, and drops a day past retention and grace under load, once, with no quote lost or refused', async () => {
    const today = new Date(Math.floor(Date.now() / DAY) * DAY);
    const ahead = new Date(today.getTime() + 9 * DAY).toISOString().slice(0, 10); // 7 days of retention, 2 ahead
    expect(await days()).toEqual(expect.arrayContaining([today.toISOString().slice(0, 10), ahead]));

    const apis = e2e.gatewayUrls.map((u) => gatewayClient(u));
    const body = { ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND };
    const answered: string[] = [];
    const failed: string[] = [];
    let stop = false;
    const worker = async (i: number) => {
      while (!stop) {
        try {
          const q = await apis[i % apis.length]!.getQuote(body);
          answered.push(('cross_chain' in q ? q.cross_chain : q.same_chain_swap).quote_hash.toLowerCase());
        } catch (err) {
          failed.push(String((err as Error).message ?? err));
        }
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, (_, i) => worker(i)));

    // A day three days back, full of quotes past retention and grace (the expiry sweep's position,
    // made at migration, is already past it).
    const old = new Date(today.getTime() - 3 * DAY).toISOString().slice(0, 10);
    await db.query('SELECT quote_day_ensure($1::date)', [old]);
    await db.query(
      `INSERT INTO quotes (quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, body, expires_at, retained_until)
       SELECT '0x' || md5('old' || n) || md5('day' || n), 'cross_chain', 'ethereum', 'arbitrum', 'cross_chain', false, false, 'keyless',
              '{"o":{},"r":{}}', $1::timestamptz, $1::timestamptz + make_interval(secs => n % 80000)
       FROM generate_series(1, ${OLD_QUOTES}) AS n`,
      [`${old}T01:00:00Z`],
    );
    await until('the old day is dropped', async () => !(await days()).includes(old), { timeoutMs: 30_000 });

    // kill -9 of one replica while both keep the days and quotes are being answered (300 of them at
    // least by then, however fast the day went: the total below is then not a race); then it comes back.
    await until('the load under way', async () => answered.length >= 300, { timeoutMs: 60_000 });
    const victim = e2e.stack.instances.get('quote-engine')![0]!;
    const exited = new Promise((r) => victim.child.once('exit', r));
    victim.child.kill('SIGKILL');
    await exited;
    await e2e.stack.restart('quote-engine', 0);
    const before = answered.length;
    await until('quotes are answered after the restart', async () => answered.length > before + 200, { timeoutMs: 60_000 });
    stop = true;
    await load;

    expect(answered.length).toBeGreaterThan(500);
    // Only requests caught by the kill itself may fail, as 503 or 504; nothing because of the days.
    expect(failed.filter((m) => !/unavailable|did not answer|timed out|503|504/i.test(m))).toEqual([]);
    expect(failed.length).toBeLessThan(50);
    const stored = await db.query<{ quote_hash: string }>('SELECT quote_hash FROM quotes WHERE quote_hash = ANY($1::text[])', [answered]);
    expect(new Set(stored.rows.map((r) => r.quote_hash)).size).toBe(new Set(answered).size);
    expect(await gatewayClient(e2e.gatewayUrl).getOrder({ quote_hash: answered.at(-1)! })).toMatchObject({ status: 'quoted' });
    expect(await days()).not.toContain(old);
    // Neither replica logged a failed upkeep that was not a lock it could not have at once (retried next run).
    const logs = readdirSync(e2e.logDir).filter((f) => f.startsWith('quote-engine'));
    expect(logs.length).toBeGreaterThanOrEqual(2);
    for (const f of logs) {
      const lines = readFileSync(join(e2e.logDir, f), 'utf8').split('\n');
      expect(lines.filter((l) => /quote days upkeep failed/.test(l) && !/lock timeout/.test(l))).toEqual([]);
    }
  });
});

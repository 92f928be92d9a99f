import { Client, Pool } from 'pg';
import { startBenchStack } from './bench-stack';
import { BOUND, PREVIEW_REQUEST } from './bodies';
import { type LoadResult, formatLoad, runLoad, runOpenLoop } from './load';
import { listCases, seedOrders, timeCases } from './orders-list';
import { startRpcStub } from './rpc-stub';

/**
 * `npm run bench:growth`: does the quote path stay flat as stored quotes pile up (issue 45)? One
 * throwaway stack, one run:
 *  1. GetQuote at 32 in flight on an empty `quotes`;
 *  2. BENCH_QUOTES stored quotes (default 10,000,000) seeded into their days by SQL, copies of the
 *     quotes step 1 stored (so rows are the real size), BENCH_DROP_QUOTES of them (default
 *     1,200,000) in one day past retention and grace, the rest spread over the retention ahead;
 *  3. storage per stored quote (row, TOAST and indexes of that one day), and of the layout before
 *     issue 45 (one table, six b-tree indexes) filled with the same rows, for comparison;
 *  4. GetQuote at 32 in flight again, with them stored;
 *  5. the day past retention dropped (the function QuoteDays calls) while GetQuote runs at a fixed
 *     rate, its p99 then against a run just before;
 *  6. BENCH_ORDERS orders (default 1,000,000) among those quotes, and the order lists' pages.
 * Prints figures; asserts nothing. BENCH_SECS (default 10): each closed-loop run. The quote
 * checks read a stand-in RPC of a funded wallet (rpc-stub.ts), so quotes carry no issue as an
 * operator's with RPCs do; BENCH_RPC=0 leaves the chains without RPC (every quote then carries
 * CHAIN_UNAVAILABLE, which makes its row about a tenth larger).
 */
const QUOTES = Number(process.env['BENCH_QUOTES'] ?? 10_000_000);
const DROP_QUOTES = Number(process.env['BENCH_DROP_QUOTES'] ?? 1_200_000);
const ORDERS = Number(process.env['BENCH_ORDERS'] ?? 1_000_000);
const SECS = Number(process.env['BENCH_SECS'] ?? 10);
const CHUNK = 250_000;
const DAY = 86_400_000;
const RETENTION_MS = 7 * DAY;

const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The connection string of the same database as its migrator (the tables' owner: VACUUM, ANALYZE, sizes of everything). */
function asOwner(serviceUrl: string, migrator: { user: string; password: string }): string {
  const u = new URL(serviceUrl);
  u.username = encodeURIComponent(migrator.user);
  u.password = encodeURIComponent(migrator.password);
  return u.toString();
}

/** Copies of the first 1,000 stored quotes, `n` of them from `first`, retained from `from` on, `stepMs` apart. */
async function seedQuotes(db: Pool, first: number, n: number, from: number, stepMs: number): Promise<void> {
  const c = await db.connect();
  try {
    await c.query('SET synchronous_commit = off');
    const templates = Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM (SELECT 1 FROM quotes LIMIT 1000) q')).rows[0]!.n);
    for (let lo = first; lo < first + n; lo += CHUNK) {
      const hi = Math.min(first + n, lo + CHUNK) - 1;
      await c.query(
        `WITH tpl AS (SELECT (row_number() OVER ()) - 1 AS k, * FROM (SELECT * FROM quotes LIMIT $3) q)
         INSERT INTO quotes (quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, api_key_id, partner_id,
            body, created_at, expires_at, retained_until)
         SELECT '0x' || md5('a' || i) || md5('b' || i), t.kind, t.src_chain, t.dst_chain, t.route_type, t.gasless, t.sponsor_fees, t.caller_kind,
            t.api_key_id, t.partner_id, t.body, r - interval '7 days', r - interval '7 days' + interval '30 minutes', r
         FROM generate_series($1::bigint, $2::bigint) AS i
         JOIN tpl t ON t.k = i % $3
         CROSS JOIN LATERAL (SELECT to_timestamp(($4::bigint + (i - $1::bigint) * $5::float8) / 1000.0) AS r) AS at`,
        [lo, hi, templates, from, stepMs],
      );
    }
  } finally {
    c.release();
  }
}

/** Each day `quotes` holds rows for, made first (as QuoteDays does for the days it looks after). */
async function ensureDays(db: Pool, from: number, to: number): Promise<void> {
  for (let t = Math.floor(from / DAY) * DAY; t <= to; t += DAY)
    await db.query('SELECT quote_day_ensure($1::date)', [new Date(t).toISOString().slice(0, 10)]);
}

/** Row, TOAST and index bytes per quote of one partition. */
async function perQuote(owner: Client, table: string): Promise<{ rows: number; heap: number; indexes: number; total: number }> {
  const r = await owner.query<{ rows: string; heap: string; indexes: string; total: string }>(
    `SELECT (SELECT count(*) FROM ${table}) AS rows, pg_table_size('${table}') AS heap, pg_indexes_size('${table}') AS indexes,
            pg_total_relation_size('${table}') AS total`,
  );
  const x = r.rows[0]!;
  const rows = Number(x.rows);
  return { rows, heap: Number(x.heap) / rows, indexes: Number(x.indexes) / rows, total: Number(x.total) / rows };
}

/** The layout before issue 45 (its columns and six b-tree indexes), filled with `n` of the same rows in hash order as GetQuote wrote them. */
async function beforeLayout(owner: Client, from: string, n: number): Promise<void> {
  await owner.query(`DROP TABLE IF EXISTS quotes_layout_before`);
  await owner.query(`CREATE TABLE quotes_layout_before (
      quote_hash text PRIMARY KEY, kind text NOT NULL, src_chain text NOT NULL, dst_chain text NOT NULL, route_type text NOT NULL,
      gasless boolean NOT NULL, sponsor_fees boolean NOT NULL, caller_kind text NOT NULL, api_key_id text, partner_id text,
      "order" jsonb NOT NULL, response jsonb NOT NULL, created_at timestamptz(3) NOT NULL DEFAULT now(), expires_at timestamptz(3) NOT NULL,
      retained_until timestamptz(3) NOT NULL, status text NOT NULL DEFAULT 'quoted', failure_reason text, failure_message text,
      failed_at timestamptz(3), recipient bytea, refund_address bytea)`);
  await owner.query(`ALTER TABLE quotes_layout_before ALTER COLUMN "order" SET COMPRESSION lz4, ALTER COLUMN response SET COMPRESSION lz4`);
  await owner.query(`CREATE INDEX ON quotes_layout_before (retained_until)`);
  await owner.query(`CREATE INDEX ON quotes_layout_before (partner_id, created_at DESC, quote_hash DESC)`);
  await owner.query(`CREATE INDEX ON quotes_layout_before (partner_id, status, created_at DESC, quote_hash DESC)`);
  await owner.query(`CREATE INDEX ON quotes_layout_before (recipient, created_at DESC, quote_hash DESC)`);
  await owner.query(`CREATE INDEX ON quotes_layout_before (refund_address, created_at DESC, quote_hash DESC)`);
  await owner.query(
    `INSERT INTO quotes_layout_before (quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, api_key_id, partner_id,
        "order", response, created_at, expires_at, retained_until, recipient, refund_address)
     SELECT quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, api_key_id, partner_id,
        (body->'o')::jsonb, (body->'r')::jsonb, created_at, expires_at, retained_until,
        decode(substr(body->'o'->>'recipient', 3), 'hex'), decode(substr(body->'o'->>'refund_address', 3), 'hex')
     FROM (SELECT * FROM ${from} LIMIT ${n}) q ORDER BY md5(quote_hash)`,
  );
}

async function main(): Promise<void> {
  const stubs = process.env['BENCH_RPC'] === '0' ? [] : await Promise.all([startRpcStub(1), startRpcStub(42_161)]);
  const rpcEnv = stubs.length ? { EVM_RPC_URLS: `ethereum=${stubs[0]!.url},arbitrum=${stubs[1]!.url}` } : {};
  const bench = await startBenchStack({}, undefined, rpcEnv);
  const url = bench.stack.databaseUrl('quote_engine');
  const db = new Pool({ connectionString: url, max: 4 });
  const owner = new Client({ connectionString: asOwner(url, bench.stack.databases.get('quote_engine')!.migrator) });
  await owner.connect();
  const count = async () => Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM quotes')).rows[0]!.n);
  const headers = { 'content-type': 'application/json' };
  const quote = {
    url: `${bench.gatewayUrl}/json/v1/quote`,
    method: 'POST' as const,
    headers,
    body: JSON.stringify({ ...PREVIEW_REQUEST, ...BOUND }),
  };
  const closed = (label: string) =>
    runLoad({ ...quote, concurrency: 32, maxRequests: 10_000_000, maxSeconds: SECS }).then((r) => {
      console.log(formatLoad(label, r));
      return r;
    });
  try {
    console.log(
      `bench:growth: ${QUOTES.toLocaleString('en')} quotes (${DROP_QUOTES.toLocaleString('en')} in one day past retention), ${ORDERS.toLocaleString('en')} orders, ${SECS} s per closed-loop run`,
    );
    await runLoad({ ...quote, concurrency: 8, maxRequests: 2000, maxSeconds: 5 }); // warm-up (and the seed's templates)
    const answered = (await (await fetch(quote.url, { method: 'POST', headers, body: quote.body })).json()) as {
      cross_chain?: { issues?: { code: string }[] };
    };
    console.log(`a stored quote's issues: ${JSON.stringify(answered.cross_chain?.issues?.map((i) => i.code) ?? [])}`);
    const empty: LoadResult = await closed(`GetQuote, 32 in flight, ${(await count()).toLocaleString('en')} stored at start`);

    // Seeding: the day past retention and grace first, then the retention ahead, oldest first.
    const now = Date.now();
    const pastDay = Math.floor((now - 3 * DAY) / DAY) * DAY;
    const started = Date.now();
    await ensureDays(db, pastDay, now + RETENTION_MS + DAY);
    const ahead = QUOTES - DROP_QUOTES - (await count());
    const half = Math.floor(ahead / 2);
    const step = (RETENTION_MS - 2 * 3_600_000) / ahead;
    await Promise.all([
      seedQuotes(db, 0, DROP_QUOTES, pastDay + 3_600_000, (DAY - 2 * 3_600_000) / DROP_QUOTES),
      seedQuotes(db, DROP_QUOTES, half, now + 3_600_000, step),
    ]);
    await seedQuotes(db, DROP_QUOTES + half, ahead - half, Math.floor(now + 3_600_000 + half * step), step);
    await owner.query('VACUUM ANALYZE quotes');
    const stored = await count();
    console.log(`seeded to ${stored.toLocaleString('en')} stored quotes in ${secs(Date.now() - started)}`);

    const dropDay = new Date(pastDay).toISOString().slice(0, 10);
    const part = `quotes_p${dropDay.replaceAll('-', '')}`;
    const size = await perQuote(owner, part);
    console.log(
      `storage per stored quote (${part}, ${size.rows.toLocaleString('en')} quotes): ${kb(size.total)} = row and TOAST ${kb(size.heap)} + indexes ${kb(size.indexes)}`,
    );
    const sample = Math.min(1_000_000, size.rows);
    await beforeLayout(owner, part, sample);
    const old = await perQuote(owner, 'quotes_layout_before');
    console.log(
      `  the same ${sample.toLocaleString('en')} rows in the layout before issue 45: ${kb(old.total)} = row and TOAST ${kb(old.heap)} + six indexes ${kb(old.indexes)} (${((100 * size.total) / old.total).toFixed(0)} % of it now)`,
    );
    await owner.query('DROP TABLE quotes_layout_before');

    const full = await closed(`GetQuote, 32 in flight, ${stored.toLocaleString('en')} stored`);
    console.log(`  rate with them stored: ${((100 * full.perSecond) / empty.perSecond).toFixed(1)} % of the rate on an empty table`);

    // The drop, under load: an open loop at a fixed rate, p99 just before and while the day goes.
    const rate = Math.max(50, Math.floor(full.perSecond * 0.4));
    const open = (label: string, onCountStart?: () => void) =>
      runOpenLoop({
        ...quote,
        ratePerSec: rate,
        maxInFlight: 256,
        maxSeconds: 2,
        warmSeconds: 1,
        ...(onCountStart ? { onCountStart } : {}),
      }).then((r) => {
        console.log(formatLoad(label, r));
        return r;
      });
    const before = await open(`GetQuote at ${rate}/s, before the drop`);
    let dropped: Promise<number> | undefined;
    const during = await open(`GetQuote at ${rate}/s, during the drop`, () => {
      const t0 = performance.now();
      // As QuoteDays drops a day: detached, then dropped apart.
      dropped = db
        .query('SELECT quote_day_detach($1::date)', [dropDay])
        .then(() => db.query('SELECT quote_day_drop($1::date)', [dropDay]))
        .then(() => performance.now() - t0);
    });
    const dropMs = await dropped!;
    console.log(
      `dropped the day ${dropDay} (${size.rows.toLocaleString('en')} quotes) in ${dropMs.toFixed(0)} ms; GetQuote p99 ${during.p99Ms.toFixed(2)} ms during it against ${before.p99Ms.toFixed(2)} ms before (${(during.p99Ms / before.p99Ms).toFixed(2)}×)`,
    );

    // Orders among the quotes.
    const t1 = Date.now();
    await seedOrders(owner, ORDERS);
    console.log(`(orders seeded in ${secs(Date.now() - t1)}, among ${(await count()).toLocaleString('en')} stored quotes)`);
    const lists = new Client({ connectionString: url });
    await lists.connect();
    process.env['BENCH_PLANS'] ??= '0';
    const worst = await timeCases(lists, await listCases(lists, ORDERS), Number(process.env['BENCH_RUNS'] ?? 200));
    console.log(`\nworst order-list page p99: ${worst.toFixed(2)} ms`);
    await lists.end();
  } finally {
    await owner.end().catch(() => undefined);
    await db.end().catch(() => undefined);
    await bench.stop();
    for (const s of stubs) await s.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});

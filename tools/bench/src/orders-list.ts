import type { Client } from 'pg';

/**
 * The order lists at volume (bench:orders, bench:growth): ORDERS orders seeded with
 * generate_series into `orders` of a quote-engine database, then page reads with the statements
 * the quote-engine's OrderRepository sends (a page of 51 rows, full rows: the page size plus the
 * one that tells whether another follows), p50/p99 per case and each case's plan.
 *
 * Seeded: partners `ptn_0`…`ptn_99` 1 % each; addresses hold about five orders each, except one
 * that is the recipient of 5 % of all orders. Statuses: 70 % fulfilled, 10 % quoted (a gasless
 * submission not yet on chain), 10 % deposited, 5 % refunded, 5 % expired (quoted past retention,
 * still within the grace).
 */
const PAGE = 51;

/** bytes32 of the n-th seeded address (EVM-shaped: 12 zero bytes, then 20). */
const addressSql = (n: string) => `decode(lpad(to_hex(${n}), 64, '0'), 'hex')`;
const WHALE = 999_999_999;

/** Seeds `orders` (hashes `0x…<n>` from 1) and their depositors; `c` as the tables' owner (VACUUM ANALYZE). */
export async function seedOrders(c: Client, ORDERS: number): Promise<void> {
  const started = Date.now();
  await c.query(`SET synchronous_commit = off`);
  // Created one second apart, newest last; partner, chains, status and recipient drawn independently (a fixed seed).
  await c.query(`SELECT setseed(0.39)`);
  await c.query(
    `INSERT INTO orders (quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, partner_id, "order", response, created_at, expires_at, retained_until, status, recipient, refund_address)
     SELECT '0x' || lpad(to_hex(i), 64, '0'), 'cross_chain',
            (ARRAY['ethereum','base','arbitrum','solana'])[1 + floor(src * 4)::int], (ARRAY['arbitrum','base','solana','ethereum','optimism'])[1 + floor(dst * 5)::int],
            'cross_chain', i % 3 = 0, false, 'api_key', 'ptn_' || floor(ptn * 100)::int,
            jsonb_build_object('recipient', '0x' || rcp, 'refund_address', '0x' || rfd, 'amount_in', '1000000', 'referrers', '[]'::jsonb),
            jsonb_build_object('cross_chain', jsonb_build_object('amount_in', '1000000', 'amount_out', '990000', 'min_amount_out', '980000')),
            now() - make_interval(secs => ${ORDERS} - i), now() + interval '30 minutes',
            CASE WHEN st >= 0.95 THEN now() - interval '1 hour' ELSE now() + interval '1 day' END,
            CASE WHEN st < 0.70 THEN 'fulfilled' WHEN st < 0.80 THEN 'quoted' WHEN st < 0.90 THEN 'deposited' WHEN st < 0.95 THEN 'refunded' ELSE 'quoted' END,
            decode(rcp, 'hex'), decode(rfd, 'hex')
     FROM (SELECT i, r.src, r.dst, r.ptn, r.st,
                  lpad(to_hex(CASE WHEN r.whale < 0.05 THEN ${WHALE} ELSE floor(r.rcp * 200000)::int END), 64, '0') AS rcp,
                  lpad(to_hex(200000 + floor(r.rfd * 200000)::int), 64, '0') AS rfd
           FROM generate_series(1, ${ORDERS}) AS i,
                LATERAL (SELECT random() + i * 0 AS src, random() AS dst, random() AS ptn, random() AS whale, random() AS rcp, random() AS rfd, random() AS st) AS r) AS s`,
  );
  // Depositors of the orders past quoted: a third address per such order.
  await c.query(
    `INSERT INTO order_depositors (quote_hash, address, created_at)
     SELECT quote_hash, ${addressSql(`400000 + ('x' || substr(quote_hash, 59))::bit(32)::int % 200000`)}, created_at
     FROM orders WHERE status <> 'quoted'`,
  );
  // As autovacuum leaves them in service: statistics current, visibility map set (index-only scans).
  await c.query('VACUUM ANALYZE orders');
  await c.query('VACUUM ANALYZE order_depositors');
  const counts = await c.query<{ q: string; p: string }>(
    `SELECT (SELECT count(*) FROM orders) AS q, (SELECT count(*) FROM order_depositors) AS p`,
  );
  console.log(`seeded ${counts.rows[0]!.q} orders and ${counts.rows[0]!.p} depositors in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

export interface Case {
  name: string;
  sql: string;
  params: () => unknown[];
}

/** ListPartnerOrders: OrderRepository.partnerPage's statement (orders_partner[_status]_created_idx). */
function partnerCase(name: string, filter: string, at: () => unknown[]): Case {
  return {
    name,
    sql: `SELECT * FROM orders WHERE partner_id = $1 AND retained_until > now() - interval '24 hours' ${filter} ORDER BY created_at DESC, quote_hash DESC LIMIT ${PAGE}`,
    params: at,
  };
}

/**
 * ListOrders: OrderRepository.addressPage's statement (orders_recipient_created_idx,
 * orders_refund_created_idx, order_depositors_address_created_idx, merged), then the page's rows.
 * With `cursor`, $2 and $3 are the position.
 */
function addressCase(name: string, filter: string, at: () => unknown[], cursor = false): Case {
  const where = `q.retained_until > now() - interval '24 hours' ${filter}`;
  const after = (t: string) => (cursor ? `AND (${t}.created_at, ${t}.quote_hash) < ($2, $3)` : '');
  const newest = `ORDER BY q.created_at DESC, q.quote_hash DESC LIMIT ${PAGE}`;
  return {
    name,
    sql: `SELECT q.* FROM orders q WHERE q.quote_hash IN (SELECT quote_hash FROM (
            (SELECT q.quote_hash, q.created_at FROM orders q WHERE q.recipient = $1 ${after('q')} AND ${where} ${newest})
            UNION
            (SELECT q.quote_hash, q.created_at FROM orders q WHERE q.refund_address = $1 ${after('q')} AND ${where} ${newest})
            UNION
            (SELECT q.quote_hash, q.created_at FROM order_depositors d JOIN orders q ON q.quote_hash = d.quote_hash
              WHERE d.address = $1 ${after('d')} AND ${where} ORDER BY d.created_at DESC, d.quote_hash DESC LIMIT ${PAGE})
          ) AS hits ORDER BY created_at DESC, quote_hash DESC LIMIT ${PAGE})`,
    params: at,
  };
}

const rand = (n: number) => Math.floor(Math.random() * n);
const partner = () => `ptn_${rand(100)}`;
const addr = (n: number) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex');

/** The list cases over `ORDERS` seeded orders (seedOrders). */
export async function listCases(c: Client, ORDERS: number): Promise<Case[]> {
  // A position deep in a partner's list and in the whale's: 5000 orders in.
  const deep = await c.query<{ created_at: Date; quote_hash: string }>(
    `SELECT created_at, quote_hash FROM orders WHERE partner_id = 'ptn_7' ORDER BY created_at DESC, quote_hash DESC OFFSET 5000 LIMIT 1`,
  );
  const d = deep.rows[0]!;
  const whaleDeep = await c.query<{ created_at: Date; quote_hash: string }>(
    `SELECT created_at, quote_hash FROM orders WHERE recipient = $1 ORDER BY created_at DESC, quote_hash DESC OFFSET 5000 LIMIT 1`,
    [addr(WHALE)],
  );
  const w = whaleDeep.rows[0]!;
  return [
    partnerCase('partner', '', () => [partner()]),
    partnerCase('partner, status=refunded', `AND status = 'refunded'`, () => [partner()]),
    partnerCase('partner, status=quoted', `AND status = 'quoted' AND retained_until >= now()`, () => [partner()]),
    partnerCase(
      'partner, status=refunded, chain=solana',
      `AND status = 'refunded' AND (src_chain = 'solana' OR dst_chain = 'solana')`,
      () => [partner()],
    ),
    partnerCase('partner, chain=solana', `AND (src_chain = 'solana' OR dst_chain = 'solana')`, () => [partner()]),
    partnerCase('partner, chain=bsc (none match)', `AND (src_chain = 'bsc' OR dst_chain = 'bsc')`, () => [partner()]),
    partnerCase('partner, cursor 5000 deep', `AND created_at <= $2 AND (created_at < $2 OR (created_at = $2 AND quote_hash < $3))`, () => [
      'ptn_7',
      d.created_at,
      d.quote_hash,
    ]),
    addressCase('address (about 5 orders)', '', () => [addr(rand(200000))]),
    addressCase('address, status=fulfilled', `AND q.status = 'fulfilled'`, () => [addr(200000 + rand(200000))]),
    addressCase(`address with ${ORDERS / 20} orders`, '', () => [addr(WHALE)]),
    addressCase(`address with ${ORDERS / 20} orders, status=deposited`, `AND q.status = 'deposited'`, () => [addr(WHALE)]),
    addressCase(`address with ${ORDERS / 20} orders, chain=solana`, `AND (q.src_chain = 'solana' OR q.dst_chain = 'solana')`, () => [
      addr(WHALE),
    ]),
    addressCase(`address with ${ORDERS / 20} orders, status=refunded`, `AND q.status = 'refunded'`, () => [addr(WHALE)]),
    addressCase(`address with ${ORDERS / 20} orders, chain=bsc (none match)`, `AND (q.src_chain = 'bsc' OR q.dst_chain = 'bsc')`, () => [
      addr(WHALE),
    ]),
    addressCase(`address with ${ORDERS / 20} orders, cursor 5000 deep`, '', () => [addr(WHALE), w.created_at, w.quote_hash], true),
  ];
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Times `runs` page reads of each case; prints a markdown table, then the plans. Returns the worst p99 (ms). */
export async function timeCases(c: Client, all: Case[], runs: number): Promise<number> {
  console.log(`\n${runs} page reads per case (${PAGE} rows), ms:\n`);
  console.log('| case | p50 | p99 | rows |');
  console.log('| --- | ---: | ---: | ---: |');
  const plans: string[] = [];
  let worst = 0;
  for (const k of all) {
    for (let i = 0; i < 10; i++) await c.query(k.sql, k.params()); // warm
    const times: number[] = [];
    let rows = 0;
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const r = await c.query(k.sql, k.params());
      times.push(performance.now() - t0);
      rows = r.rowCount ?? 0;
    }
    times.sort((a, b) => a - b);
    worst = Math.max(worst, pct(times, 99));
    console.log(`| ${k.name} | ${pct(times, 50).toFixed(2)} | ${pct(times, 99).toFixed(2)} | ${rows} |`);
    const plan = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${k.sql}`, k.params());
    plans.push(`-- ${k.name}\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  }
  if (process.env['BENCH_PLANS'] !== '0') console.log(`\nPlans:\n\n${plans.join('\n\n')}`);
  return worst;
}

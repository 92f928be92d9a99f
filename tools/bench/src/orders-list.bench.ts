import { adminUrlOf, freshMigratedDatabase } from '@xchain/stack';
import { Client } from 'pg';
import { listCases, seedOrders, timeCases } from './orders-list';

/**
 * `npm run bench:orders`: the order lists (ListOrders by address, ListPartnerOrders and its export
 * by partner, with the status and chain filters and deep cursors) against a quote-engine database
 * holding BENCH_ORDERS orders (default 1,000,000) in a scratch database on the test PostgreSQL
 * (`test-servers` starts it). What is seeded and timed: orders-list.ts. `bench:growth` runs the
 * same cases with the orders among 10 M stored quotes.
 */
const ORDERS = Number(process.env['BENCH_ORDERS'] ?? 1_000_000);
const RUNS = Number(process.env['BENCH_RUNS'] ?? 200);

async function main(): Promise<void> {
  const url = await freshMigratedDatabase('quote-engine', 'bench_orders');
  const admin = new Client({ connectionString: adminUrlOf(url) });
  await admin.connect();
  await seedOrders(admin, ORDERS);
  await admin.end();
  const c = new Client({ connectionString: url });
  await c.connect();
  await timeCases(c, await listCases(c, ORDERS), RUNS);
  await c.end();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

import { parseCsv, until } from '@xchain/stack';
import { Client } from 'pg';
import type { Address } from 'viem';
import { type DepositableQuote, depositQuote } from '../support/deposits';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { crossChainOf, expectApiError } from '../support/http';
import { PartnerSession } from '../support/partner-session';
import { EVM_REFUND, SOL_USER, T, USDC_ETH_TO_ARB } from '../support/registry-fixture';

jest.setTimeout(120_000);

const { base } = LOCAL_TOKENS;

/**
 * GET /v1/orders?address=… (ListOrders): the orders an address deposited, receives or is refunded;
 * and the status filter and CSV export of GET /v1/partner/orders. Deposits are real, on anvil.
 */
describe('order lists through the gateway', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let router: Address;

  beforeAll(async () => {
    e2e = await startE2eStack(
      // Exports of two rows at most, so a test can follow one across its limit.
      { PRICE_POLL_MS: '600000', PRICE_MAX_AGE_SECS: '7200', CHAIN_WATCH_POLL_MS: '300', CSV_EXPORT_MAX_ROWS: '2' },
      { devnet: { chains: ['base', 'arbitrum'] } },
    );
    g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
    router = (await g.api.getChains()).chains.find((c) => c.chain === 'base')!.deposit_target as Address;
  }, 180_000);
  afterAll(async () => {
    await e2e?.stop();
  });

  /** A base → arbitrum USDC quote (through `api`) for a recipient and a refund address. */
  const quote = async (api: typeof g.api, recipient: string, refund: string, amount = 5_000_000n) =>
    crossChainOf(
      await api.getQuote({
        src_chain: 'base',
        dst_chain: 'arbitrum',
        src_token: base.USDC,
        dst_token: T.arbitrum.USDC,
        trade_type: 'TRADE_TYPE_EXACT_INPUT',
        amount: amount.toString(),
        gas_drop: '',
        recipient,
        refund_address: refund,
      }),
    );

  /** A new wallet deposits the quote on base with its deposit_tx; resolves once the order view says deposited. */
  const deposit = (q: DepositableQuote) => depositQuote(g, 'base', router, base.USDC, q);
  const hashes = (page: { orders: { quote_hash: string }[] }) => page.orders.map((o) => o.quote_hash);

  it('lists an order for its recipient, its refund address and its depositor, in either format, filtered by status and chain', async () => {
    const recipient = g.newUser().address;
    const refund = g.newUser().address;
    const q1 = await quote(g.api, recipient, refund);
    const q2 = await quote(g.api, recipient, refund);
    // The same refund address on a quote nobody deposits, whose recipient is a Solana key.
    const toSol = crossChainOf(
      await g.api.getQuote({
        ...USDC_ETH_TO_ARB,
        dst_chain: 'solana',
        dst_token: T.solana.SOL,
        recipient: SOL_USER,
        refund_address: refund,
      }),
    );
    const payer = await deposit(q1);
    await deposit(q2);

    // Newest first; the address in lowercase, checksummed or as the bytes32 the order holds.
    expect(hashes(await g.api.listOrders({ address: recipient.toLowerCase() }))).toEqual([q2.quote_hash, q1.quote_hash]);
    expect(hashes(await g.api.listOrders({ address: refund }))).toEqual([q2.quote_hash, q1.quote_hash]);
    expect(hashes(await g.api.listOrders({ address: `0x${'0'.repeat(24)}${refund.slice(2)}` }))).toHaveLength(2);
    // A quote nobody used is in no history (issue 45), though its hash still answers `quoted`.
    expect(hashes(await g.api.listOrders({ address: SOL_USER }))).toEqual([]);
    expect(await g.api.getOrder({ quote_hash: toSol.quote_hash })).toMatchObject({ status: 'quoted' });
    // The depositor is a party once its deposit is seen, and only of what it deposited.
    const byPayer = await until('the depositor lists its order', async () => {
      const page = await g.api.listOrders({ address: payer.address });
      return page.orders.length > 0 && page;
    });
    expect(hashes(byPayer)).toEqual([q1.quote_hash]);
    expect(byPayer.orders[0]).toEqual(await g.api.getOrder({ quote_hash: q1.quote_hash }));
    expect(byPayer.orders[0]).toMatchObject({ status: 'deposited', src_chain: 'base', dst_chain: 'arbitrum' });

    expect(hashes(await g.api.listOrders({ address: refund, status: 'deposited' }))).toEqual([q2.quote_hash, q1.quote_hash]);
    expect(hashes(await g.api.listOrders({ address: refund, status: 'quoted' }))).toEqual([]);
    expect(hashes(await g.api.listOrders({ address: refund, status: 'fulfilled' }))).toEqual([]);
    expect(hashes(await g.api.listOrders({ address: refund, chain: 'solana' }))).toEqual([]);
    expect(hashes(await g.api.listOrders({ address: refund, chain: 'base' }))).toEqual([q2.quote_hash, q1.quote_hash]);
    expect(hashes(await g.api.listOrders({ address: EVM_REFUND.replace('2222', '3333') }))).toEqual([]);
  });

  it('pages newest first with a cursor, and refuses a missing or malformed address and a foreign cursor', async () => {
    const recipient = g.newUser().address;
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const q = await quote(g.api, recipient, recipient);
      await deposit(q);
      made.push(q.quote_hash);
    }
    const newestFirst = [...made].reverse();
    const first = await g.api.listOrders({ address: recipient, page_size: 2 });
    expect(hashes(first)).toEqual(newestFirst.slice(0, 2));
    expect(first.next_cursor).not.toBe('');
    const second = await g.api.listOrders({ address: recipient, page_size: 2, cursor: first.next_cursor });
    expect(hashes(second)).toEqual(newestFirst.slice(2));
    expect(second.next_cursor).toBe('');

    await expectApiError(g.api.listOrders({ address: 'not-an-address' }), { http: 400, reason: 'INVALID_ADDRESS' });
    await expectApiError(g.api.listOrders({ address: '0x1234' }), { http: 400, reason: 'INVALID_ADDRESS' });
    await expectApiError(g.api.listOrders({} as never), { http: 400 });
    await expectApiError(g.api.listOrders({ address: recipient, cursor: 'bm90LWEtY3Vyc29y' }), { http: 400, reason: 'INVALID_CURSOR' });
    await expectApiError(g.api.listOrders({ address: recipient, status: 'lost' as never }), { http: 400 });
  });

  it("filters a partner's orders by status and exports them as CSV whose rows match the list", async () => {
    const partner = await PartnerSession.create(e2e, 'lists-partner@example.com', { key: 'lists' });
    const user = g.newUser().address;
    const a = await quote(partner.keyed, user, user, 7_000_000n);
    const b = await quote(partner.keyed, user, user, 8_000_000n);
    await deposit(a);

    expect(hashes(await partner.session.listPartnerOrders({ status: 'deposited' }))).toEqual([a.quote_hash]);
    // b was never deposited: a quote, in no list (issue 45).
    expect(hashes(await partner.session.listPartnerOrders({ status: 'quoted' }))).toEqual([]);
    expect(hashes(await partner.session.listPartnerOrders({}))).toEqual([a.quote_hash]);
    expect(hashes(await partner.session.listPartnerOrders({ status: 'expired' }))).toEqual([]);
    expect(hashes(await partner.session.listPartnerOrders({ status: 'deposited', chain: 'arbitrum' }))).toEqual([a.quote_hash]);
    expect(hashes(await partner.session.listPartnerOrders({ status: 'deposited', chain: 'ethereum' }))).toEqual([]);

    const csv = async (query = '') =>
      fetch(`${e2e.gatewayUrl}/json/v1/partner/orders.csv${query}`, { headers: { authorization: `Bearer ${partner.token}` } });
    const res = await csv();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('x-next-cursor')).toBeNull();
    const [header, ...rows] = parseCsv(await res.text());
    const col = (row: string[], name: string) => row[header!.indexOf(name)];
    expect(header).toEqual(
      expect.arrayContaining([
        'quote_hash',
        'created_at',
        'status',
        'amount_in',
        'amount_out',
        'received',
        'refunded',
        'sponsor_gas',
        'referrer_payouts',
      ]),
    );
    const listed = (await partner.session.listPartnerOrders({})).orders;
    expect(rows.map((r) => col(r, 'quote_hash'))).toEqual(listed.map((o) => o.quote_hash));
    for (const [i, o] of listed.entries()) {
      const row = rows[i]!;
      expect(row).toHaveLength(header!.length);
      expect({
        status: col(row, 'status'),
        created_at: col(row, 'created_at'),
        src_chain: col(row, 'src_chain'),
        dst_token: col(row, 'dst_token'),
        amount_in: col(row, 'amount_in'),
        amount_out: col(row, 'amount_out'),
        min_amount_out: col(row, 'min_amount_out'),
        deposit_tx: col(row, 'deposit_tx'),
      }).toEqual({
        status: o.status,
        created_at: o.quoted_at,
        src_chain: o.src_chain,
        dst_token: o.dst_token,
        amount_in: o.amount_in,
        amount_out: o.amount_out,
        min_amount_out: o.min_amount_out,
        deposit_tx: o.deposit?.tx_hash ?? '',
      });
      // Each stated fee in its own column, base units as the quote stated it.
      const stated = new Map<string, bigint>();
      for (const c of (o.quote_hash === a.quote_hash ? a : b).fee_breakdown.components)
        stated.set(c.name, (stated.get(c.name) ?? 0n) + BigInt(c.native));
      expect(stated.size).toBeGreaterThan(0);
      for (const [name, native] of stated) expect(col(row, `fee_${name}`)).toBe(native.toString());
    }
    const deposited = parseCsv(await (await csv('?status=deposited')).text());
    expect(deposited.slice(1).map((r) => col(r, 'quote_hash'))).toEqual([a.quote_hash]);

    // The usual error shape for a refusal, before any row is sent.
    const bad = await csv('?cursor=bm90LWEtY3Vyc29y');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 3 });
    expect((await fetch(`${e2e.gatewayUrl}/json/v1/partner/orders.csv`)).status).toBe(401);
  });

  it('refuses a chain filter naming no chain with 400 INVALID_CHAIN on ListOrders, ListPartnerOrders and the CSV export (not an empty list)', async () => {
    const partner = await PartnerSession.create(e2e, 'lists-bad-chain@example.com', { key: 'bad-chain' });
    const user = g.newUser().address;
    await deposit(await quote(partner.keyed, user, user));
    const unknownChain = { http: 400, code: 3, reason: 'INVALID_CHAIN' };
    const onChain = [{ field: 'chain', description: 'unknown chain bogus' }];
    expect((await expectApiError(g.api.listOrders({ address: user, chain: 'bogus' }), unknownChain)).fieldViolations).toEqual(onChain);
    expect((await expectApiError(partner.session.listPartnerOrders({ chain: 'bogus' }), unknownChain)).fieldViolations).toEqual(onChain);
    const csv = await fetch(`${e2e.gatewayUrl}/json/v1/partner/orders.csv?chain=bogus`, {
      headers: { authorization: `Bearer ${partner.token}` },
    });
    expect(csv.status).toBe(400);
    expect(await csv.json()).toMatchObject({
      code: 3,
      details: expect.arrayContaining([
        expect.objectContaining({ reason: 'INVALID_CHAIN' }),
        expect.objectContaining({ field_violations: onChain }),
      ]),
    });
    // A chain of the registry is a filter as before.
    expect(hashes(await g.api.listOrders({ address: user, chain: 'base' }))).toHaveLength(1);
  });

  it('honours a deposit whatever day of quotes holds its quote: one moved to the day after tomorrow is deposited, listed and viewed', async () => {
    const user = g.newUser().address;
    const q = await quote(g.api, user, user);
    // The quote's row moves to another day's partition (its end of retention two days from now;
    // the deposit's own deadline is in the signed order, on chain, and does not move).
    const db = new Client({ connectionString: e2e.databaseUrl('quote_engine') });
    await db.connect();
    try {
      const moved = new Date(Date.now() + 2 * 86_400_000);
      await db.query('SELECT quote_day_ensure($1::date)', [moved.toISOString().slice(0, 10)]);
      const before = await db.query<{ p: string }>('SELECT tableoid::regclass::text AS p FROM quotes WHERE quote_hash = $1', [
        q.quote_hash,
      ]);
      await db.query('UPDATE quotes SET retained_until = $2 WHERE quote_hash = $1', [q.quote_hash, moved]);
      const after = await db.query<{ p: string }>('SELECT tableoid::regclass::text AS p FROM quotes WHERE quote_hash = $1', [q.quote_hash]);
      expect(after.rows[0]!.p).not.toBe(before.rows[0]!.p);
    } finally {
      await db.end();
    }
    await deposit(q);
    expect(hashes(await g.api.listOrders({ address: user }))).toEqual([q.quote_hash]);
    expect(await g.api.getOrder({ quote_hash: q.quote_hash })).toMatchObject({ status: 'deposited', deposit: { chain: 'base' } });
  });

  it('cuts an export at its row limit and names where the next one starts', async () => {
    const partner = await PartnerSession.create(e2e, 'lists-export-limit@example.com', { key: 'limit' });
    const user = g.newUser().address;
    for (let i = 0; i < 3; i++) await deposit(await quote(partner.keyed, user, user, BigInt(6_000_000 + i)));
    const csv = (query = '') =>
      fetch(`${e2e.gatewayUrl}/json/v1/partner/orders.csv${query}`, { headers: { authorization: `Bearer ${partner.token}` } });
    const listed = hashes(await partner.session.listPartnerOrders({}));
    expect(listed).toHaveLength(3);

    const first = await csv();
    const cursor = first.headers.get('x-next-cursor');
    expect(cursor).toBeTruthy();
    const [header, ...rows] = parseCsv(await first.text());
    const hashOf = (r: string[]) => r[header!.indexOf('quote_hash')];
    expect(rows.map(hashOf)).toEqual(listed.slice(0, 2));

    const rest = await csv(`?cursor=${encodeURIComponent(cursor!)}`);
    expect(rest.headers.get('x-next-cursor')).toBeNull();
    const [again, ...tail] = parseCsv(await rest.text());
    expect(again).toEqual(header);
    expect(tail.map(hashOf)).toEqual(listed.slice(2));
  });
});

import { type PrismaClient, createQuoteEngineDb } from '@xchain/quote-engine-db';
import { freshMigratedDatabase, truncate } from '@xchain/stack';
import type { Logger } from '@xchain/telemetry';
import { ensureQuoteDays, quoteRow } from '../quoting/quote-row.testing';
import { QuoteRepository } from '../quoting/quote.repository';
import { type QuoteWriter, postgresQuoteWriter } from '../quoting/quote-writer';
import { sqlOrderParties } from '../chain/order-parties.repository';
import { OrderRepository, ensureOrder } from './order.repository';

jest.setTimeout(30_000);

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as unknown as Logger;
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const EVM_USER = '0x52908400098527886E0F7030069857D2E4169EE7';
const padded = (evm: string) => `0x${'0'.repeat(24)}${evm.slice(2).toLowerCase()}`;
const HOUR = 3_600_000;

/** The order lists' reads on PostgreSQL, with quotes stored by the quote writer (which copies out their recipient and refund address). */
describe('order lists on PostgreSQL', () => {
  let url: string;
  let db: PrismaClient;
  let writer: QuoteWriter;
  let repo: OrderRepository;
  const now = new Date();
  const base = { now, retainedAfter: new Date(now.getTime() - 24 * HOUR), limit: 10 };

  beforeAll(async () => {
    url = await freshMigratedDatabase('quote-engine', 'qe_lists');
    db = createQuoteEngineDb(url, 2);
    writer = postgresQuoteWriter(url, { maxInFlight: 1, maxBatch: 50, statementTimeoutMs: 5000 }, silent);
    repo = new OrderRepository(db, new QuoteRepository(db));
    await ensureQuoteDays(db, ...[-1, 0, 1, 2].map((d) => new Date(now.getTime() + d * 24 * HOUR)));
  }, 60_000);
  afterAll(async () => {
    await writer?.onApplicationShutdown();
    await db?.$disconnect();
  });
  beforeEach(() => truncate(url, 'quotes, orders'));

  /** Stores quotes one statement each, so their created_at increase with n, and makes each an order (as its first use does) unless `unused`. */
  const store = async (n: number, over: Parameters<typeof quoteRow>[1] = {}, unused = false) => {
    await writer.store(
      quoteRow(hash(n), {
        partnerId: 'ptn_a',
        order: { recipient: padded(EVM_USER), refund_address: padded(EVM_USER) },
        response: { cross_chain: {} },
        ...over,
      }),
    );
    if (!unused) expect(await ensureOrder(db, hash(n))).toBe(true);
  };

  it('lists orders, not quotes: a quote nobody used is in no list, yet found by its hash as quoted; its first use makes it an order once', async () => {
    await store(1);
    await store(2, {}, true);
    const partner = { ...base, partnerId: 'ptn_a' };
    expect((await repo.partnerPage(partner)).map((r) => r.order.quoteHash)).toEqual([hash(1)]);
    expect((await repo.addressPage({ ...base, address: padded(EVM_USER) })).map((r) => r.order.quoteHash)).toEqual([hash(1)]);
    const unused = await repo.find(hash(2));
    expect(unused).toMatchObject({ order: { quoteHash: hash(2), srcChain: 'ethereum' }, events: [] });
    expect(await db.order.count({ where: { quoteHash: hash(2) } })).toBe(0);
    expect(await ensureOrder(db, hash(2))).toBe(true);
    expect(await ensureOrder(db, hash(2))).toBe(true); // again: the same order
    expect(await ensureOrder(db, hash(9))).toBe(false); // no such quote
    expect(await db.order.count()).toBe(2);
    const made = await repo.find(hash(2));
    expect(made!.order).toEqual(unused!.order);
    expect((await repo.partnerPage(partner)).map((r) => r.order.quoteHash)).toEqual([hash(2), hash(1)]);
  });

  it('copies the recipient and refund address into the order, and the depositor once seen; an address holding two roles lists its order once', async () => {
    const other = '0x00000000000000000000000000000000000000aa';
    await store(1);
    await store(2, { order: { recipient: padded(other), refund_address: padded(EVM_USER) } });
    const hex = (b: Uint8Array | null) => (b ? `0x${Buffer.from(b).toString('hex')}` : null);
    const rows = await db.order.findMany({
      orderBy: { quoteHash: 'asc' },
      select: { quoteHash: true, recipient: true, refundAddress: true },
    });
    expect(rows.map((r) => [r.quoteHash, hex(r.recipient), hex(r.refundAddress)])).toEqual([
      [hash(1), padded(EVM_USER), padded(EVM_USER)],
      [hash(2), padded(other), padded(EVM_USER)],
    ]);
    const byAddress = async (a: string) => (await repo.addressPage({ ...base, address: a })).map((r) => r.order.quoteHash);
    expect(await byAddress(padded(EVM_USER))).toEqual([hash(2), hash(1)]);
    expect(await byAddress(padded(other))).toEqual([hash(2)]);
    const payer = '0x00000000000000000000000000000000000000bb';
    await sqlOrderParties(db).depositor(hash(1), payer.toUpperCase().replace('0X', '0x'));
    await sqlOrderParties(db).depositor(hash(1), payer); // again: nothing more
    await sqlOrderParties(db).depositor(hash(9), payer); // no such quote: nothing
    expect(await db.order.count()).toBe(2);
    await sqlOrderParties(db).depositor(hash(2), EVM_USER); // also its refund address: listed once
    expect(await db.orderDepositor.count()).toBe(2);
    expect(await byAddress(padded(payer))).toEqual([hash(1)]);
    expect(await byAddress(padded(EVM_USER))).toEqual([hash(2), hash(1)]);
    const [newest] = await repo.addressPage({ ...base, address: padded(EVM_USER), limit: 1 });
    expect((await repo.addressPage({ ...base, address: padded(EVM_USER), after: newest!.order })).map((r) => r.order.quoteHash)).toEqual([
      hash(1),
    ]);
  });

  it('tells quoted from expired by retained_until, and pages by status from a cursor', async () => {
    for (let n = 1; n <= 4; n++) await store(n);
    await store(5, { retainedUntil: new Date(now.getTime() - HOUR) });
    const partner = { ...base, partnerId: 'ptn_a' };
    const status = (value: 'quoted' | 'expired' | 'deposited') => ({ value, now });
    const hashes = async (q: Parameters<OrderRepository['partnerPage']>[0]) => (await repo.partnerPage(q)).map((r) => r.order.quoteHash);
    expect(await hashes({ ...partner, status: status('expired') })).toEqual([hash(5)]);
    expect(await hashes({ ...partner, status: status('quoted') })).toEqual([hash(4), hash(3), hash(2), hash(1)]);
    expect(await hashes({ ...partner, status: status('deposited') })).toEqual([]);
    const [fourth] = await repo.partnerPage({ ...partner, status: status('quoted'), limit: 1 });
    expect(await hashes({ ...partner, status: status('quoted'), after: fourth!.order })).toEqual([hash(3), hash(2), hash(1)]);
    const addressed = { ...base, address: padded(EVM_USER) };
    expect((await repo.addressPage({ ...addressed, status: status('expired') })).map((r) => r.order.quoteHash)).toEqual([hash(5)]);
  });

  it('finds where an export of so many rows resumes, and nothing when they all fit', async () => {
    for (let n = 1; n <= 5; n++) await store(n);
    const partner = { ...base, partnerId: 'ptn_a' };
    // Newest first: 5, 4, 3, 2, 1. Three rows end at 3; the next export starts after it.
    expect(await repo.partnerPositionAfter({ ...partner, skip: 2 })).toMatchObject({ quoteHash: hash(3) });
    expect(await repo.partnerPositionAfter({ ...partner, skip: 4 })).toBeUndefined();
    expect(await repo.partnerPositionAfter({ ...partner, skip: 5 })).toBeUndefined();
  });
});

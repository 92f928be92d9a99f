import { type PrismaClient, createGaslessRelayerDb } from '@xchain/gasless-relayer-db';
import { SystemClock } from '@xchain/service-kit';
import { partlyMigratedDatabase } from '@xchain/stack';
import { Client } from 'pg';
import { GaslessOrderRepository, viewOf } from './gasless-order.repository';
import { LaneTxRepository } from './lane-tx.repository';
import { type OperatorTxTables, operatorTxTablesOver } from './operator-tx.repository';

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const WALLET = '0x00000000000000000000000000000000000000a1';
const EXECUTOR = '0x00000000000000000000000000000000000000e1';
const evm = (calldata = '0xabcd') => ({ vm: 'evm' as const, target: EXECUTOR, calldata, value: 0n });

/**
 * The relayer's tables against real PostgreSQL: the lanes' table and one table per kind of work
 * (issue 46 §4). A lane transaction and its work row are written together or not at all; one per
 * key, ever; and the migration that split the old single table kept every row and every link.
 */
describe('the relayer store', () => {
  let url: string;
  let db: PrismaClient;
  let lane: LaneTxRepository;
  let gasless: GaslessOrderRepository;
  let tables: OperatorTxTables;

  beforeAll(async () => {
    url = (await partlyMigratedDatabase('gasless-relayer', 'relayer_store')).url;
    db = createGaslessRelayerDb(url, 4);
    lane = new LaneTxRepository(db, new SystemClock());
    gasless = new GaslessOrderRepository(db, new SystemClock());
    tables = operatorTxTablesOver(db);
  }, 60_000);

  afterAll(async () => {
    await db?.$disconnect();
  });

  const order = (n: number, sponsor?: bigint) => ({
    quoteHash: hash(n),
    chain: 'base',
    owner: '0x00000000000000000000000000000000000000b2',
    permit2Nonce: 7n,
    deadline: 2_000_000_000n,
    executor: EXECUTOR,
    calldata: '0x1234',
    wallet: WALLET,
    ...(sponsor === undefined ? {} : { sponsor: { partnerId: 'p1', holdUsdMicros: sponsor } }),
  });

  it('stores a gasless order and its lane transaction together, once per quote, even when two race', async () => {
    const results = await Promise.all([gasless.insert(order(1)), gasless.insert(order(1)), gasless.insert(order(1))]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const found = (await gasless.find(hash(1)))!;
    expect(found).toMatchObject({ quoteHash: hash(1), owner: order(1).owner, holdState: null, deadline: 2_000_000_000n });
    expect(found.tx).toMatchObject({ id: hash(1), kind: 'gasless', vm: 'evm', status: 'queued', target: EXECUTOR, calldata: '0x1234' });
    expect(viewOf(found)).toEqual({ quote_hash: hash(1), status: 'queued', tx_hashes: [] });
    // An operator transaction's lane row is not a gasless order.
    expect(await tables.of('fill').insert({ key: hash(1), chain: 'base', wallet: WALLET, payload: evm() })).toBe(true);
    expect(await gasless.find(tables.of('fill').laneId(hash(1)))).toBeNull();
  });

  it('refuses a second Solana order over the same signed transaction, and writes neither row of it', async () => {
    const svm = (n: number) => ({
      quoteHash: hash(n),
      chain: 'solana',
      owner: 'Own1',
      feePayer: 'Fee1',
      txBase64: 'AQ==',
      signature: 'sig-x',
    });
    expect(await gasless.insertSvm(svm(2))).toBe(true);
    expect(await gasless.insertSvm(svm(3))).toBe(false);
    expect(await gasless.find(hash(3))).toBeNull();
    expect(await db.laneTx.count({ where: { id: hash(3) } })).toBe(0);
  });

  it('keeps a sponsored order off its lane until its hold is taken, and drops both rows when the hold is refused', async () => {
    expect(await gasless.insert(order(4, 5_000n))).toBe(true);
    expect(await gasless.insert(order(5, 6_000n))).toBe(true);
    const queued = async () => (await lane.queuedForLane('base', WALLET, 100)).map((t) => t.id);
    expect(await queued()).not.toEqual(expect.arrayContaining([hash(4)]));
    expect(await gasless.setHold(hash(4), 'holding', 'held')).toBe(true);
    expect(await gasless.setHold(hash(4), 'holding', 'held')).toBe(false);
    expect(await queued()).toEqual(expect.arrayContaining([hash(1), hash(4)]));
    expect(await queued()).not.toEqual(expect.arrayContaining([hash(5)]));
    await gasless.dropUnheld(hash(4)); // held: not dropped
    await gasless.dropUnheld(hash(5));
    expect(await gasless.find(hash(4))).not.toBeNull();
    expect(await db.laneTx.count({ where: { id: hash(5) } })).toBe(0);
    expect(await db.gaslessOrder.count({ where: { quoteHash: hash(5) } })).toBe(0);
    // A finished order with its hold still open is found for the sweeper, with its transaction.
    await lane.markSubmitted([{ id: hash(4), tx: signed(hash(4), 0n) }]);
    expect(await lane.confirm(hash(4), signed(hash(4), 0n).hash, 10n, 21_000n)).toBe(true);
    const open = await gasless.openHolds();
    expect(open.map((o) => [o.quoteHash, o.tx.status, o.tx.gasCostWei?.toFixed(0)])).toEqual([[hash(4), 'confirmed', '21000']]);
  });

  it('keeps one operator transaction per kind and key, each kind in its own table, looked up by its key', async () => {
    const key = hash(6);
    for (const kind of ['fill', 'cancel', 'refund', 'claim', 'approve', 'burn', 'mint'] as const) {
      const t = tables.of(kind);
      const twice = await Promise.all(
        [1, 2].map(() => t.insert({ key, chain: 'base', wallet: WALLET, payload: evm(`0x0${kind.length}`) })),
      );
      expect(twice.filter(Boolean)).toHaveLength(1);
      expect(await t.find(key)).toEqual({ kind, quote_hash: key, chain: 'base', wallet: WALLET, status: 'queued', tx_hashes: [] });
    }
    const r = tables.of('return');
    expect(await r.insert({ key, chain: 'solana', wallet: 'Fill1', payload: { vm: 'svm', txBase64: 'Ag==', signature: 'sig-r' } })).toBe(
      true,
    );
    expect(await r.find(key)).toMatchObject({ kind: 'return', status: 'queued', wallet: 'Fill1' });
    expect(await r.find(hash(7))).toBeNull();
    const c = new Client({ connectionString: url });
    await c.connect();
    try {
      const counts = await c.query<{ t: string; n: string }>(
        `SELECT 'fill' AS t, COUNT(*) AS n FROM fill_txs WHERE quote_hash = $1 UNION ALL SELECT 'cancel', COUNT(*) FROM cancel_txs WHERE quote_hash = $1
         UNION ALL SELECT 'refund', COUNT(*) FROM refund_txs WHERE quote_hash = $1 UNION ALL SELECT 'claim', COUNT(*) FROM claim_txs WHERE batch_key = $1
         UNION ALL SELECT 'return', COUNT(*) FROM return_txs WHERE deposit_key = $1`,
        [key],
      );
      expect(Object.fromEntries(counts.rows.map((x) => [x.t, Number(x.n)]))).toEqual({
        fill: 1,
        cancel: 1,
        refund: 1,
        claim: 1,
        return: 1,
      });
    } finally {
      await c.end();
    }
  });

  it('moves every row of the single old table into the lanes’ table and the work tables, links and signed copies kept', async () => {
    const made = await partlyMigratedDatabase('gasless-relayer', 'relayer_split', '20261220100000_lane_txs');
    const c = new Client({ connectionString: made.url });
    await c.connect();
    try {
      // The old shape: a sponsored EVM gasless order (sent once), a Solana one, and one operator transaction of each kind.
      await c.query(
        `INSERT INTO gasless_orders (quote_hash, kind, chain, vm, status, owner, permit2_nonce, deadline, executor, calldata, wallet, tx_nonce, partner_id, hold_usd_micros, hold_state)
         VALUES ($1, 'gasless', 'base', 'evm', 'submitted', 'Owner', 9, 2000000000, $2, '0x11', $3, 0, 'p1', 5000, 'held')`,
        [hash(10), EXECUTOR, WALLET],
      );
      await c.query(
        `INSERT INTO relay_txs (tx_hash, quote_hash, nonce, max_fee_per_gas, max_priority_fee_per_gas, raw, sent_block) VALUES ($1, $2, 0, 2, 1, '0xraw', 5)`,
        [hash(99), hash(10)],
      );
      await c.query(
        `INSERT INTO gasless_orders (quote_hash, chain, vm, status, owner, wallet, svm_tx, svm_signature) VALUES ($1, 'solana', 'svm', 'queued', 'SolOwner', 'Fee1', 'AQ==', 'sig-1')`,
        [hash(11)],
      );
      const ops = [
        ['fill', 'evm'],
        ['cancel', 'evm'],
        ['refund', 'svm'],
        ['claim', 'evm'],
        ['return', 'svm'],
      ] as const;
      for (const [i, [kind, vm]] of ops.entries()) {
        await c.query(
          vm === 'evm'
            ? `INSERT INTO gasless_orders (quote_hash, kind, order_hash, chain, status, owner, executor, calldata, value, wallet, tx_nonce) VALUES ($1, $2, $3, 'base', 'confirmed', $4, $5, '0x22', 3, $4, $6)`
            : `INSERT INTO gasless_orders (quote_hash, kind, order_hash, chain, vm, status, owner, wallet, svm_tx, svm_signature) VALUES ($1, $2, $3, 'solana', 'svm', 'failed', $4, $4, 'Ag==', $5)`,
          vm === 'evm'
            ? [`${kind}-${hash(20 + i)}`, kind, hash(20 + i), WALLET, EXECUTOR, i + 1]
            : [`${kind}-${hash(20 + i)}`, kind, hash(20 + i), 'Fill1', `sig-${kind}`],
        );
      }
      await made.rest();

      const after = createGaslessRelayerDb(made.url, 2);
      try {
        const g = new GaslessOrderRepository(after, new SystemClock());
        const evmOrder = (await g.find(hash(10)))!;
        expect(evmOrder).toMatchObject({ owner: 'Owner', partnerId: 'p1', holdState: 'held', deadline: 2_000_000_000n });
        expect(evmOrder.permit2Nonce?.toFixed(0)).toBe('9');
        expect(evmOrder.tx).toMatchObject({ kind: 'gasless', status: 'submitted', target: EXECUTOR, calldata: '0x11', txNonce: 0n });
        expect(viewOf(evmOrder)).toEqual({ quote_hash: hash(10), status: 'submitted', tx_hash: hash(99), tx_hashes: [hash(99)] });
        expect((await g.find(hash(11)))!.tx).toMatchObject({ vm: 'svm', svmSignature: 'sig-1', wallet: 'Fee1' });
        const t = operatorTxTablesOver(after);
        for (const [i, [kind, vm]] of ops.entries()) {
          expect(await t.of(kind).find(hash(20 + i))).toMatchObject({
            kind,
            quote_hash: hash(20 + i),
            status: vm === 'evm' ? 'confirmed' : 'failed',
          });
        }
        expect(await after.laneTx.count()).toBe(7);
        expect(await after.gaslessOrder.count()).toBe(2);
        // The lane keeps guarding nonces: a second transaction of the wallet on nonce 0 of base is refused.
        await expect(
          after.laneTx.create({
            data: {
              id: 'x',
              kind: 'fill',
              chain: 'base',
              status: 'submitted',
              wallet: WALLET,
              target: EXECUTOR,
              calldata: '0x',
              txNonce: 0n,
            },
          }),
        ).rejects.toMatchObject({ code: 'P2002' });
      } finally {
        await after.$disconnect();
      }
    } finally {
      await c.end();
    }
  }, 60_000);
});

function signed(id: string, nonce: bigint) {
  return { hash: `0x${id.slice(4)}ff`, nonce, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n, raw: '0x', sentBlock: 1n };
}

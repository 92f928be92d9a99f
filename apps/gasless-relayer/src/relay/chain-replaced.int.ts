import { randomBytes } from 'node:crypto';
import { type Anvil, startAnvil } from '@xchain/chain-tools';
import { type PrismaClient, createGaslessRelayerDb } from '@xchain/gasless-relayer-db';
import { SystemClock } from '@xchain/service-kit';
import {
  DEFAULT_REDIS_PREFIXES,
  freshMigratedDatabase,
  newRedisLogin,
  provisionRedisUsers,
  redisServiceRules,
  redisUrl,
  testRedisAdmin,
  until,
} from '@xchain/stack';
import type { Logger } from '@xchain/telemetry';
import { type Hex, type PublicClient, createPublicClient, getAddress, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { RelayChains } from '../chain/relay-chains';
import type { RelayerEnv } from '../env';
import { GaslessOrderRepository } from '../store/gasless-order.repository';
import { LaneTxRepository } from '../store/lane-tx.repository';
import { FillTxRepository } from '../store/operator-tx.repository';
import type { StatusEvents } from './status-events';
import { ChainReplacement } from './chain-replaced';
import type { Holds } from './holds';
import { Lanes } from './lanes';
import { NextNonces } from './next-nonces';
import { NonceBook } from './nonces';
import { Sender } from './sender';
import { Tracker } from './tracker';

jest.setTimeout(120_000);

const CHAIN_ID = 8453;
const REPLACED = /^chain replaced/;

/**
 * The relayer's own parts (lanes on Redis, sender, nonce book, tracker) on a real anvil and
 * PostgreSQL, sending operator rows whose calls are plain transfers (no contract needed: what is
 * under test is nonces and transactions). The chain is replaced under them as a second `npm start`
 * used to do: anvil stopped, a fresh one started on the same port with the same chain id.
 */
describe('relayer on a chain replaced under it (anvil restarted fresh)', () => {
  let anvil: Anvil;
  let port: number;
  let db: PrismaClient;
  let orders: LaneTxRepository;
  const key = generatePrivateKey();
  const wallet = privateKeyToAccount(key).address;
  const warnings: { msg: string; obj: unknown }[] = [];
  const log = {
    info: () => undefined,
    debug: () => undefined,
    error: () => undefined,
    warn: (obj: unknown, msg: string) => warnings.push({ obj, msg }),
  } as unknown as Logger;
  const resets = () => warnings.filter((w) => REPLACED.test(w.msg));
  const chainClient = (): PublicClient => createPublicClient({ transport: http(anvil.rpcUrl) }) as PublicClient;
  const rpc = (method: string, params: unknown[] = []) => chainClient().request({ method: method as never, params: params as never });

  const freshChain = async () => {
    anvil = await startAnvil(CHAIN_ID, { port });
    await rpc('anvil_setBalance', [wallet, `0x${(10n ** 20n).toString(16)}`]);
  };

  /** One relayer process's worth of parts, as main.ts wires them; stop() ends it. */
  const startRelayer = async () => {
    const env = {
      FILLER_PRIVATE_KEYS: new Map(),
      EVM_RPC_URLS: new Map([['base', anvil.rpcUrl]]),
      EVM_RPC_TIMEOUT_MS: 5000,
      RELAYER_PRIVATE_KEYS: [key],
      CHAIN_WATCH_CONFIRMATIONS: 0,
      CHAIN_CONFIRMATIONS: new Map(),
      RELAY_REPLACE_AFTER_BLOCKS: 1000,
      RELAY_REPLACE_AFTER: new Map(),
      RELAY_WALLET_FLOOR_WEI: 0n,
      RELAY_WALLET_FLOORS: new Map(),
    } as unknown as RelayerEnv;
    const chains = new RelayChains(env);
    // The relayer's own Redis user (D17), limited to this test's lane prefix.
    const prefix = `rq-replaced-${process.pid}`;
    const redisAdmin = testRedisAdmin();
    const login = newRedisLogin(`int_relayer_${randomBytes(4).toString('hex')}`);
    await provisionRedisUsers(redisAdmin.port, redisAdmin.login, [
      { login, rules: redisServiceRules('gasless-relayer', { ...DEFAULT_REDIS_PREFIXES, relayQueue: prefix }) },
    ]);
    const lanes = new Lanes(chains, redisUrl(redisAdmin.port, login), prefix, log);
    // Operator rows publish no status events and hold no sponsor money: neither is reached.
    const events = {} as StatusEvents;
    const holds = {} as Holds;
    const next = new NextNonces();
    const replaced = new ChainReplacement(orders, log, next, lanes);
    const nonces = new NonceBook(orders, next, replaced);
    const sender = new Sender(chains, orders, new GaslessOrderRepository(db, new SystemClock()), nonces, events, holds, log);
    const tracker = new Tracker(chains, orders, sender, lanes, nonces, events, { pollMs: 100, bumpPercent: 20 }, log, replaced);
    lanes.start((chain, w, q) => sender.send(chain, w, q));
    tracker.start();
    return {
      /** Queues a call from the wallet (an empty transfer; an unfunded wallet can still estimate it), as SendOperatorTx queues a router call; its row key. */
      async send(): Promise<string> {
        const orderHash = `0x${randomBytes(32).toString('hex')}`;
        const to = getAddress(`0x${randomBytes(20).toString('hex')}`);
        const fills = new FillTxRepository(db);
        expect(
          await fills.insert({ key: orderHash, chain: 'base', wallet, payload: { vm: 'evm', target: to, calldata: '0x', value: 0n } }),
        ).toBe(true);
        const row = fills.laneId(orderHash);
        await lanes.enqueue('base', wallet, row);
        return row;
      },
      async stop() {
        await tracker.stop();
        await lanes.close();
      },
    };
  };

  const status = async (row: string) => (await orders.find(row))?.status;
  const confirmed = (row: string) =>
    until(`${row} confirmed`, async () => ((await status(row)) === 'confirmed' ? orders.find(row) : undefined));

  /** Stops this chain and starts a fresh one in its place: same port, same chain id, block 0, every nonce 0. */
  const replaceChain = async () => {
    await anvil.proc.stop();
    await freshChain();
  };

  beforeAll(async () => {
    db = createGaslessRelayerDb(await freshMigratedDatabase('gasless-relayer', 'relayer_replaced'), 4);
    orders = new LaneTxRepository(db, new SystemClock());
    anvil = await startAnvil(CHAIN_ID);
    port = Number(new URL(anvil.rpcUrl).port);
    await rpc('anvil_setBalance', [wallet, `0x${(10n ** 20n).toString(16)}`]);
  }, 60_000);

  afterAll(async () => {
    await anvil?.proc.stop();
    await db?.$disconnect();
  });

  beforeEach(() => {
    warnings.length = 0;
  });

  it('does not reset when a transaction of ours was only dropped from the mempool: it is broadcast again, once', async () => {
    const relayer = await startRelayer();
    try {
      for (let i = 0; i < 3; i++) await confirmed(await relayer.send());
      await rpc('evm_setAutomine', [false]);
      let dropped: Hex;
      try {
        const row = await relayer.send();
        const sent = await until('the transaction sent', async () => ((await status(row)) === 'submitted' ? orders.find(row) : undefined));
        dropped = sent!.txs[0]!.txHash as Hex;
        expect(sent!.txNonce).toBe(3n);
        await rpc('anvil_dropTransaction', [dropped]);
        // Another order comes while it is gone: the chain's pending nonce (3) is behind ours (4),
        // so the nonce take runs the full check; it must find the chain intact.
        const next = await relayer.send();
        await until('the next transaction sent', async () => ((await status(next)) === 'submitted' ? true : undefined));
        // The tracker sends the dropped one again, as it was: the node knows it once more.
        await until('the dropped transaction back in the pool', () => chainClient().getTransaction({ hash: dropped }));
      } finally {
        await rpc('evm_setAutomine', [true]);
      }
      await rpc('evm_mine');
      const rows = await db.laneTx.findMany({ where: { wallet, status: { not: 'confirmed' } } });
      for (const r of rows) await confirmed(r.id);
      const all = await db.laneTx.findMany({ where: { wallet }, include: { txs: true }, orderBy: { txNonce: 'asc' } });
      expect(all.map((o) => [o.txNonce, o.status, o.txs.length, o.chainReplacedAt])).toEqual(
        [0n, 1n, 2n, 3n, 4n].map((n) => [n, 'confirmed', 1, null]),
      );
      expect(all[3]!.minedTxHash).toBe(dropped!);
      expect(await chainClient().getTransactionCount({ address: wallet })).toBe(5);
      expect(resets()).toEqual([]);
    } finally {
      await relayer.stop();
    }
  });

  it('under a running relayer: resets once, signs the order that was in flight again and relays new ones, confirmed on the new chain', async () => {
    const relayer = await startRelayer();
    try {
      await confirmed(await relayer.send()); // nonce 5 on the first chain
      await rpc('evm_setAutomine', [false]);
      const inFlight = await relayer.send();
      await until('the in-flight transaction sent', async () => ((await status(inFlight)) === 'submitted' ? true : undefined));
      expect((await orders.find(inFlight))!.txNonce).toBe(6n);
      await replaceChain();
      // The tracker notices (the chain lost what we saw mined and knows nothing of ours), and the
      // order is signed again on the new chain's nonce 0.
      const again = await confirmed(inFlight);
      const fresh = await confirmed(await relayer.send());
      expect([again!.txNonce, fresh!.txNonce]).toEqual([0n, 1n]);
      const client = chainClient();
      for (const o of [again!, fresh!]) expect((await client.getTransactionReceipt({ hash: o.minedTxHash as Hex })).status).toBe('success');
      expect(await client.getTransactionCount({ address: wallet })).toBe(2);
      expect(resets()).toHaveLength(1);
      expect(resets()[0]!.obj).toMatchObject({ chain: 'base', wallet, chain_nonce: '0', mined_nonce: '5', requeued: 1, retired: 6 });
      // The old chain's rows stay as history, their nonces no longer counting.
      const old = await db.laneTx.findMany({ where: { wallet, chainReplacedAt: { not: null } } });
      expect(old.map((o) => o.txNonce).sort()).toEqual([0n, 1n, 2n, 3n, 4n, 5n]);
    } finally {
      await relayer.stop();
    }
  });

  it('after a restart on a replaced chain: the first nonce take resets once, and the new order is confirmed', async () => {
    await replaceChain(); // the relayer is down: nothing in flight, only what it saw mined (nonces 0 and 1)
    const relayer = await startRelayer();
    try {
      const row = await confirmed(await relayer.send());
      expect(row!.txNonce).toBe(0n);
      expect((await chainClient().getTransactionReceipt({ hash: row!.minedTxHash as Hex })).status).toBe('success');
      expect(resets()).toHaveLength(1);
      expect(resets()[0]!.obj).toMatchObject({ chain_nonce: '0', mined_nonce: '1', requeued: 0, retired: 2 });
    } finally {
      await relayer.stop();
    }
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { sqlCursorStore } from '@xchain/chain-watch';
import { ANVIL_DEV_KEY, type Anvil, compileXchainContracts, deployContract, startAnvil } from '@xchain/chain-tools';
import { ORDER_EVENTS_STREAM } from '@xchain/contracts';
import { depositTx } from '@xchain/evm-gasless';
import { connectNats, type NatsConnection } from '@xchain/messaging';
import { type Order, ZERO_BYTES32, hashOrder, orderToWire, toBytes32 } from '@xchain/order-codec';
import { type PrismaClient, createQuoteEngineDb } from '@xchain/quote-engine-db';
import { SystemClock } from '@xchain/service-kit';
import { type Managed, freePort, newBus, startNats, freshMigratedDatabase, until, type UntilOptions } from '@xchain/stack';
import type { Logger } from '@xchain/telemetry';
import { type Address, createPublicClient, createTestClient, createWalletClient, http, zeroAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { EtaService } from '../eta/eta.service';
import { OrderEventsConsumer } from '../orders/order-events.consumer';
import { OrderEventRepository } from '../orders/order-event.repository';
import { OrderRepository } from '../orders/order.repository';
import { OrderViewService } from '../orders/order-view.service';
import type { ChainInfo } from '../registry/registry-cache';
import { ReplacedChainGuard } from './chain-replaced';
import { ChainCursorRepository } from './chain-cursor.repository';
import { sqlChainSteps } from './chain-steps.repository';
import { rpcDepositChain } from './deposit-chain';
import { DepositWatchers } from './deposit-watchers';
import { jetStreamOrderEventPublisher } from './order-event-publisher';
import { insertQuotes } from '../quoting/quote-row.testing';
import { QuoteRepository } from '../quoting/quote.repository';

const CHAIN_ID = 8453;
const CONFIRMATIONS = 2;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;

const POLL: UntilOptions = { timeoutMs: 15_000 };

describe('deposit watcher on anvil, PostgreSQL and NATS', () => {
  let anvil: Anvil;
  let nats: Managed;
  let natsDir: string;
  let nc: NatsConnection;
  let db: PrismaClient;
  let router: Address;
  let consumer: OrderEventsConsumer;
  const watchers: DepositWatchers[] = [];

  beforeAll(async () => {
    natsDir = mkdtempSync(join(tmpdir(), 'nats-deposits-'));
    const [natsPort, monitorPort] = [await freePort(), await freePort()];
    // With authorization, as everywhere (D14): the watcher and the consumer run as the quote-engine's user.
    const bus = newBus();
    [anvil, nats] = await Promise.all([
      startAnvil(CHAIN_ID),
      startNats(natsDir, natsPort, monitorPort, join(natsDir, 'nats.log'), bus.users),
    ]);
    nc = await connectNats({
      url: `nats://127.0.0.1:${natsPort}`,
      name: 'deposit-watcher-test',
      connectTimeoutMs: 5000,
      ...bus.credentials('quote-engine'),
    });
    db = createQuoteEngineDb(await freshMigratedDatabase('quote-engine', 'qe_deposits'), 2);
    router = await deployContract({
      rpcUrl: anvil.rpcUrl,
      deployerKey: ANVIL_DEV_KEY,
      contract: compileXchainContracts()['XchainRouter']!,
      args: [...Array<string>(3).fill(privateKeyToAccount(ANVIL_DEV_KEY).address), 604_800],
    });
    consumer = new OrderEventsConsumer(
      nc,
      new OrderEventRepository(db),
      { refresh: async () => undefined } as unknown as EtaService,
      silent,
    );
    consumer.onModuleInit();
  }, 120_000);

  afterAll(async () => {
    await Promise.all(watchers.map((w) => w.onApplicationShutdown()));
    consumer?.onApplicationShutdown();
    await nc?.close();
    await db?.$disconnect();
    await Promise.all([anvil?.proc.stop(), nats?.stop()]);
    rmSync(natsDir, { recursive: true, force: true });
  });

  const newWatchers = () => {
    const registry = {
      chain: (name: string) =>
        name === 'base' ? ({ vm: 'evm', chainId: BigInt(CHAIN_ID), depositTarget: router } as ChainInfo) : undefined,
    };
    const w = new DepositWatchers(
      new Map([['base', rpcDepositChain(anvil.rpcUrl, 5000)]]),
      {
        watch: { confirmations: 10, pollMs: 100, maxBlockRange: 50, startBlock: 0, recheckIdleMs: 300 },
        confirmations: new Map([['base', CONFIRMATIONS]]),
      },
      registry,
      sqlCursorStore(db),
      jetStreamOrderEventPublisher(nc, 5000),
      { register: () => undefined },
      silent,
      sqlChainSteps(db, new SystemClock()),
      // As in the service: a reorg past the depth (below) moves the position back, and the re-check still withdraws.
      new ReplacedChainGuard(new ChainCursorRepository(db, new SystemClock()), silent),
    );
    watchers.push(w);
    return w;
  };

  /** A stored quote for an order of 0.01 ETH from the local chain, deposited on `router`. */
  const storedOrder = async (saltByte: string): Promise<Order> => {
    const now = BigInt(Math.floor(Date.now() / 1000));
    const order: Order = {
      version: 1,
      salt: `0x${saltByte.repeat(32)}`,
      srcChainId: BigInt(CHAIN_ID),
      dstChainId: 1n,
      srcToken: toBytes32('evm', zeroAddress),
      dstToken: toBytes32('evm', '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'),
      amountIn: 10n ** 16n,
      amountOut: 30_000_000n,
      minAmountOut: 29_000_000n,
      recipient: toBytes32('evm', '0x71268d7045f6faf62bdea68ce4bae4fe2184fb8b'),
      refundAddress: toBytes32('evm', '0x71268d7045f6faf62bdea68ce4bae4fe2184fb8b'),
      gasDrop: 0n,
      tradeType: 1,
      slippageBps: 10,
      srcSlippageBps: 10,
      dstGasNative: 0n,
      sponsorGas: 0n,
      gasless: false,
      sponsorFees: false,
      referrersHash: ZERO_BYTES32,
      issuedAt: now,
      expiresAt: now + 1800n,
      depositTarget: toBytes32('evm', router),
    };
    const quoteHash = hashOrder(order);
    const response = {
      cross_chain: { quote_hash: quoteHash, amount_in: '10000000000000000', amount_out: '30000000', min_amount_out: '29000000' },
    };
    await insertQuotes(db, [
      {
        apiKeyId: null,
        partnerId: null,
        quoteHash,
        kind: 'cross_chain',
        srcChain: 'base',
        dstChain: 'ethereum',
        routeType: 'cross_chain',
        gasless: false,
        sponsorFees: false,
        callerKind: 'keyless',
        order: orderToWire(order, []),
        response,
        expiresAt: new Date(Number(order.expiresAt) * 1000),
        retainedUntil: new Date(Date.now() + 86_400_000),
      },
    ]);
    return order;
  };

  it('publishes a confirmed deposit once; the consumer records it with its block, and the order view shows it', async () => {
    const order = await storedOrder('5a');
    const quoteHash = hashOrder(order);
    const watcher = newWatchers();
    watcher.onApplicationBootstrap();
    const transport = http(anvil.rpcUrl);
    const wallet = createWalletClient({ account: privateKeyToAccount(ANVIL_DEV_KEY), transport });
    const client = createPublicClient({ transport, pollingInterval: 100 });
    const tx = depositTx(order, router);
    const hash = await wallet.sendTransaction({ to: tx.to, data: tx.data, value: tx.value, chain: null });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    const block = await client.getBlock({ blockNumber: receipt.blockNumber });

    // Not yet deep enough: the watcher must not count it before CONFIRMATIONS blocks sit on top.
    await until(
      'the watcher to read past the blocks before the deposit',
      async () => (/read up to block/.test(watcher.detail()) ? true : undefined),
      POLL,
    );
    expect(await db.orderEvent.count({ where: { quoteHash } })).toBe(0);
    await createTestClient({ mode: 'anvil', transport }).mine({ blocks: CONFIRMATIONS });

    const view = new OrderViewService({
      records: new OrderRepository(db, new QuoteRepository(db)),
      gasless: { get: async () => undefined },
      now: () => new Date(),
      graceMs: 86_400_000,
      vmOf: () => 'evm',
      assertChain: () => undefined,
      log: silent,
    });
    const shown = await until(
      'the deposit in the order view',
      async () => {
        const v = await view.get(quoteHash);
        return v.status === 'deposited' ? v : undefined;
      },
      POLL,
    );
    expect(shown.deposit).toEqual({
      chain: 'base',
      tx_hash: hash,
      block_number: receipt.blockNumber.toString(),
      at: new Date(Number(block.timestamp) * 1000).toISOString().replace('.000Z', 'Z'),
    });
    expect(shown).toMatchObject({
      src_token: zeroAddress,
      dst_token: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      amount_in: '10000000000000000',
    });
    const cursor = await db.chainCursor.findUnique({ where: { name: `deposits:base:${router.toLowerCase()}` } });
    expect(cursor!.block).toBeGreaterThanOrEqual(receipt.blockNumber);

    // Read again from the start (a lost cursor, a second replica): the stream drops the repeat by its id.
    await watcher.onApplicationShutdown();
    await db.chainCursor.deleteMany({});
    const again = newWatchers();
    again.onApplicationBootstrap();
    await until(
      'the second watcher to read past the deposit',
      async () => {
        const row = await db.chainCursor.findFirst();
        return row && row.block >= receipt.blockNumber ? true : undefined;
      },
      POLL,
    );
    const jsm = await jetstreamManager(nc);
    expect((await jsm.streams.info(ORDER_EVENTS_STREAM)).state.messages).toBe(1);
    expect(await db.orderEvent.count({ where: { quoteHash } })).toBe(1);
  }, 60_000);

  it('withdraws a deposit that a reorg deeper than the confirmation depth dropped, and shows it again only where the new chain holds it', async () => {
    await Promise.all(watchers.map((w) => w.onApplicationShutdown()));
    const order = await storedOrder('6b');
    const quoteHash = hashOrder(order);
    const watcher = newWatchers();
    watcher.onApplicationBootstrap();
    const transport = http(anvil.rpcUrl);
    const wallet = createWalletClient({ account: privateKeyToAccount(ANVIL_DEV_KEY), transport });
    const client = createPublicClient({ transport, pollingInterval: 100 });
    const tx = depositTx(order, router);
    const hash = await wallet.sendTransaction({ to: tx.to, data: tx.data, value: tx.value, chain: null });
    const receipt = await client.waitForTransactionReceipt({ hash });
    await createTestClient({ mode: 'anvil', transport }).mine({ blocks: CONFIRMATIONS });
    const view = new OrderViewService({
      records: new OrderRepository(db, new QuoteRepository(db)),
      gasless: { get: async () => undefined },
      now: () => new Date(),
      graceMs: 86_400_000,
      vmOf: () => 'evm',
      assertChain: () => undefined,
      log: silent,
    });
    await until('the deposit in the order view', async () => ((await view.get(quoteHash)).status === 'deposited' ? true : undefined), POLL);

    // Anvil replaces every block from the deposit's on with new ones, holding none of the old transactions.
    const head = await client.getBlockNumber({ cacheTime: 0 });
    await client.request({ method: 'anvil_reorg' as never, params: [Number(head - receipt.blockNumber) + 1, []] as never });
    const replaced = await client.getBlock({ blockNumber: receipt.blockNumber });
    expect(replaced.hash).not.toBe(receipt.blockHash);

    const withdrawn = await until(
      'the step withdrawn',
      async () => {
        const rows = await db.chainStep.findMany({ where: { txHash: hash, withdrawnAt: { not: null } } });
        return rows.length > 0 ? rows : undefined;
      },
      POLL,
    );
    expect(withdrawn[0]!.blockHash).toBe(receipt.blockHash);
    // What the view shows follows the chain as it is now: the deposit again in the block that holds
    // it (the node may mine the dropped transaction again), or no deposit at all.
    const again = await client.getTransactionReceipt({ hash }).catch(() => undefined);
    if (again) {
      await createTestClient({ mode: 'anvil', transport }).mine({ blocks: CONFIRMATIONS });
      const shown = await until(
        'the deposit in its new block',
        async () => {
          const v = await view.get(quoteHash);
          return v.deposit?.block_number === again.blockNumber.toString() ? v : undefined;
        },
        POLL,
      );
      expect(shown.status).toBe('deposited');
      expect(again.blockHash).not.toBe(receipt.blockHash);
    } else {
      const shown = await until(
        'the deposit gone from the view',
        async () => {
          const v = await view.get(quoteHash);
          return v.status === 'quoted' ? v : undefined;
        },
        POLL,
      );
      expect(shown.deposit).toBeUndefined();
    }
  }, 60_000);
});

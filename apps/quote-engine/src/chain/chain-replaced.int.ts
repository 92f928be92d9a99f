import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqlCursorStore } from '@xchain/chain-watch';
import { ANVIL_DEV_KEY, type Anvil, compileXchainContracts, deployContract, startAnvil } from '@xchain/chain-tools';
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
import type { ChainInfo } from '../registry/registry-cache';
import { ReplacedChainGuard } from './chain-replaced';
import { ChainCursorRepository } from './chain-cursor.repository';
import { sqlChainSteps } from './chain-steps.repository';
import { rpcDepositChain } from './deposit-chain';
import { DepositWatchers } from './deposit-watchers';
import { jetStreamOrderEventPublisher } from './order-event-publisher';
import { insertQuotes } from '../quoting/quote-row.testing';

const CHAIN_ID = 8453;
const CONFIRMATIONS = 2;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;

const POLL: UntilOptions = { timeoutMs: 20_000 };

/**
 * The deposit watcher when its chain is replaced under it, as a second `npm start` used to do:
 * anvil stopped and a fresh one started on the same port (same chain id, our router deployed again
 * at the same address), while PostgreSQL keeps the watcher's position from the first chain.
 */
describe('deposit watcher on a chain replaced under it (anvil restarted fresh)', () => {
  let anvil: Anvil;
  let port: number;
  let nats: Managed;
  let natsDir: string;
  let nc: NatsConnection;
  let db: PrismaClient;
  let router: Address;
  let consumer: OrderEventsConsumer;
  let watchers: DepositWatchers;
  const warnings: { obj: unknown; msg: string }[] = [];
  const log = {
    info: () => undefined,
    error: () => undefined,
    warn: (obj: unknown, msg: string) => warnings.push({ obj, msg }),
  } as unknown as Logger;
  const transport = () => http(anvil.rpcUrl);
  const deployRouter = () =>
    deployContract({
      rpcUrl: anvil.rpcUrl,
      deployerKey: ANVIL_DEV_KEY,
      contract: compileXchainContracts()['XchainRouter']!,
      args: [...Array<string>(3).fill(privateKeyToAccount(ANVIL_DEV_KEY).address), 604_800],
    });

  beforeAll(async () => {
    natsDir = mkdtempSync(join(tmpdir(), 'replaced-nats-'));
    const [natsPort, monitorPort] = [await freePort(), await freePort()];
    const bus = newBus();
    [anvil, nats] = await Promise.all([
      startAnvil(CHAIN_ID),
      startNats(natsDir, natsPort, monitorPort, join(natsDir, 'nats.log'), bus.users),
    ]);
    port = Number(new URL(anvil.rpcUrl).port);
    nc = await connectNats({
      url: `nats://127.0.0.1:${natsPort}`,
      name: 'chain-replaced-test',
      connectTimeoutMs: 5000,
      ...bus.credentials('quote-engine'),
    });
    db = createQuoteEngineDb(await freshMigratedDatabase('quote-engine', 'qe_replaced'), 2);
    router = await deployRouter();
    consumer = new OrderEventsConsumer(
      nc,
      new OrderEventRepository(db),
      { refresh: async () => undefined } as unknown as EtaService,
      silent,
    );
    consumer.onModuleInit();
  }, 120_000);

  afterAll(async () => {
    await watchers?.onApplicationShutdown();
    consumer?.onApplicationShutdown();
    await nc?.close();
    await db?.$disconnect();
    await Promise.all([anvil?.proc.stop(), nats?.stop()]);
    rmSync(natsDir, { recursive: true, force: true });
  });

  const startWatchers = () => {
    const registry = {
      chain: (name: string) =>
        name === 'base' ? ({ vm: 'evm', chainId: BigInt(CHAIN_ID), depositTarget: router } as ChainInfo) : undefined,
    };
    watchers = new DepositWatchers(
      new Map([['base', rpcDepositChain(anvil.rpcUrl, 2000)]]),
      {
        watch: { confirmations: 10, pollMs: 100, maxBlockRange: 50, startBlock: 0, recheckIdleMs: 300 },
        confirmations: new Map([['base', CONFIRMATIONS]]),
      },
      registry,
      sqlCursorStore(db),
      jetStreamOrderEventPublisher(nc, 5000),
      { register: () => undefined },
      log,
      sqlChainSteps(db, new SystemClock()),
      new ReplacedChainGuard(new ChainCursorRepository(db, new SystemClock()), log),
    );
    watchers.onApplicationBootstrap();
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

  /** Deposits the order on the chain as it is now and mines it to depth; the deposit's block. */
  const deposit = async (order: Order) => {
    const wallet = createWalletClient({ account: privateKeyToAccount(ANVIL_DEV_KEY), transport: transport() });
    const client = createPublicClient({ transport: transport(), pollingInterval: 100 });
    const tx = depositTx(order, router);
    const receipt = await client.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ to: tx.to, data: tx.data, value: tx.value, chain: null }),
    });
    expect(receipt.status).toBe('success');
    await createTestClient({ mode: 'anvil', transport: transport() }).mine({ blocks: CONFIRMATIONS });
    return receipt;
  };
  const recorded = (quoteHash: string) =>
    until(
      `the deposit of ${quoteHash} recorded`,
      () => db.orderEvent.findFirst({ where: { quoteHash, type: 'deposited' } }).then((e) => e ?? undefined),
      POLL,
    );
  const resets = () => warnings.filter((w) => /^chain replaced/.test(w.msg));

  it('sees a deposit on the new chain below its old position, once reset, and keeps what the old chain recorded', async () => {
    startWatchers();
    // The first chain's deposit sits above what the new chain will hold when its own deposit comes,
    // so only the reset (not the reorg re-check of that step) can lead the watcher back to it.
    await createTestClient({ mode: 'anvil', transport: transport() }).mine({ blocks: 10 });
    const first = await storedOrder('7c');
    const firstReceipt = await deposit(first);
    await recorded(hashOrder(first));
    // The first chain goes on well past what the new one will hold when the watcher meets it.
    await createTestClient({ mode: 'anvil', transport: transport() }).mine({ blocks: 30 });
    const name = `deposits:base:${router.toLowerCase()}`;
    await until(
      "the position past the first chain's blocks",
      async () => {
        const row = await db.chainCursor.findUnique({ where: { name } });
        return row && row.block >= 30n && row.hashBlock === row.block ? row : undefined;
      },
      POLL,
    );

    await anvil.proc.stop();
    anvil = await startAnvil(CHAIN_ID, { port });
    expect(await deployRouter()).toBe(router);
    const second = await storedOrder('8d');
    const secondReceipt = await deposit(second);
    expect(secondReceipt.blockNumber + BigInt(CONFIRMATIONS)).toBeLessThan(firstReceipt.blockNumber);
    const event = await recorded(hashOrder(second));
    expect(event.txHash).toBe(secondReceipt.transactionHash);

    expect(resets()).toHaveLength(1);
    expect(resets()[0]!.obj).toMatchObject({ watcher: name, now: '-1', steps_set_aside: 1 });
    // The first chain's deposit stays recorded: set aside from the re-check, not withdrawn.
    expect(await db.orderEvent.count({ where: { quoteHash: hashOrder(first), type: 'deposited' } })).toBe(1);
    const old = await db.chainStep.findFirst({ where: { txHash: firstReceipt.transactionHash } });
    expect(old).toMatchObject({ withdrawnAt: null, chainReplacedAt: expect.any(Date) });
    // The new chain grows past the old deposit's height: still nothing withdrawn, no second reset.
    await createTestClient({ mode: 'anvil', transport: transport() }).mine({ blocks: 40 });
    await until(
      'the position past the old deposit',
      async () => {
        const row = await db.chainCursor.findUnique({ where: { name } });
        return row && row.block > firstReceipt.blockNumber + 10n ? true : undefined;
      },
      POLL,
    );
    expect(await db.chainStep.count({ where: { withdrawnAt: { not: null } } })).toBe(0);
    expect(await db.orderEvent.count({ where: { quoteHash: hashOrder(first), type: 'deposited' } })).toBe(1);
    expect(resets()).toHaveLength(1);
  }, 90_000);
});

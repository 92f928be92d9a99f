import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANVIL_DEV_KEY, type Anvil, compileContracts, startAnvil } from '@xchain/chain-tools';
import { PriceSchema } from '@xchain/contracts';
import { type Managed, ROOT, freePort, newBus, startNats, until } from '@xchain/stack';
import { connectNats, type NatsConnection, type RpcServer } from '@xchain/messaging';
import { type Abi, type Address, type Hex, createPublicClient, createWalletClient, defineChain, http, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { PRICE_READER, bootOracle, openPrices, serveFeeds, type RunningOracle } from '../testing';
import { ChainlinkSource } from './chainlink-source';
import type { Feed } from './source';

jest.setTimeout(120_000);

/** Anvil's second well-known dev account: funded, but not the aggregators' owner. */
const STRANGER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' as const;
const FEEDS: Feed[] = [
  { price_id: 'ethereum', symbol: 'ETH' },
  { price_id: 'usd-coin', symbol: 'USDC' },
];

/** The Chainlink source against MockAggregator contracts deployed on a real anvil node. */
/** NATS runs with authorization, as everywhere (D14): the oracle as itself, the suite as a price reader. */
const bus = newBus({ 'price-reader': PRICE_READER });

describe('Chainlink source against aggregators on anvil', () => {
  let anvil: Anvil;
  let client: PublicClient;
  let abi: Abi;
  let bytecode: Hex;
  let eth: Address;
  let usdc: Address;
  const owner = privateKeyToAccount(ANVIL_DEV_KEY);

  const chain = () =>
    defineChain({
      id: 1339,
      name: 'anvil-1339',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [anvil.rpcUrl] } },
    });
  const wallet = (key: Hex = ANVIL_DEV_KEY) =>
    createWalletClient({ account: privateKeyToAccount(key), chain: chain(), transport: http(anvil.rpcUrl) });
  const source = (feeds: Record<string, Address>) =>
    new ChainlinkSource({ rpcUrl: anvil.rpcUrl, feeds: new Map(Object.entries(feeds)), timeoutMs: 2000 });

  /**
   * Sends updateAnswer and returns the timestamp of the block that mined it. With a gas limit of
   * its own: an estimate is exact for the block it simulates, and updateAnswer stores the block
   * time, which costs 2,800 gas more when it differs from the one stored. Estimated in the second
   * of the previous update and mined in the next, the transaction ran out of gas ("updateAnswer
   * reverted": 2 in 11 runs of this file beside 3 busy CPU loops).
   */
  async function update(address: Address, answer: bigint, key: Hex = ANVIL_DEV_KEY): Promise<number> {
    const hash = await wallet(key).writeContract({ address, abi, functionName: 'updateAnswer', args: [answer], gas: 200_000n });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error('updateAnswer reverted');
    return Number((await client.getBlock({ blockNumber: receipt.blockNumber })).timestamp);
  }

  async function deploy(decimals: number, description: string, answer: bigint): Promise<{ address: Address; updatedAt: number }> {
    const hash = await wallet().deployContract({ abi, bytecode, args: [decimals, description, answer] });
    const receipt = await client.waitForTransactionReceipt({ hash });
    const block = await client.getBlock({ blockNumber: receipt.blockNumber });
    return { address: receipt.contractAddress!, updatedAt: Number(block.timestamp) };
  }

  beforeAll(async () => {
    ({ abi, bytecode } = compileContracts(['apps/price-oracle/src/fixtures/MockAggregator.sol'], ROOT)['MockAggregator']!);
    anvil = await startAnvil(1339);
    client = createPublicClient({ chain: chain(), transport: http(anvil.rpcUrl) });
  });

  afterAll(async () => {
    await anvil?.proc.stop();
  });

  it('reads latestRoundData and decimals: the answer at 10^-decimals, published at the round’s updatedAt', async () => {
    const e = await deploy(8, 'ETH / USD', 351227450000n);
    const u = await deploy(18, 'USDC / USD', 999876540000000000n);
    [eth, usdc] = [e.address, u.address];
    expect(await client.getChainId()).toBe(1339);
    expect(await client.readContract({ address: eth, abi, functionName: 'owner' })).toBe(owner.address);
    const prices = await source({ ethereum: eth, 'usd-coin': usdc }).fetch(FEEDS);
    expect(prices).toEqual([
      { price_id: 'ethereum', price: '351227450000', expo: -8, conf: '0', publish_time: e.updatedAt, source: 'chainlink' },
      { price_id: 'usd-coin', price: '999876540000000000', expo: -18, conf: '0', publish_time: u.updatedAt, source: 'chainlink' },
    ]);
  });

  it('follows a new round', async () => {
    const src = source({ ethereum: eth });
    const at = await update(eth, 352000000000n);
    expect(await src.fetch(FEEDS)).toEqual([
      { price_id: 'ethereum', price: '352000000000', expo: -8, conf: '0', publish_time: at, source: 'chainlink' },
    ]);
  });

  it('lets only the owner update the answer', async () => {
    const before = await source({ ethereum: eth }).fetch(FEEDS);
    await expect(
      client.simulateContract({ address: eth, abi, functionName: 'updateAnswer', args: [1n], account: privateKeyToAccount(STRANGER_KEY) }),
    ).rejects.toThrow(/NotOwner/);
    await expect(update(eth, 1n, STRANGER_KEY)).rejects.toThrow('updateAnswer reverted');
    expect(await source({ ethereum: eth }).fetch(FEEDS)).toEqual(before);
  });

  it('rejects an answer <= 0, without hiding the other feeds', async () => {
    await update(eth, 0n);
    await expect(source({ ethereum: eth }).fetch(FEEDS)).rejects.toThrow('ethereum: answer 0 is not a positive price');
    await update(eth, -5n);
    expect((await source({ ethereum: eth, 'usd-coin': usdc }).fetch(FEEDS)).map((p) => p.price_id)).toEqual(['usd-coin']);
  });

  it('fails naming the feed when there is no aggregator at the address, or no node at the URL', async () => {
    await expect(source({ ethereum: '0x000000000000000000000000000000000000dEaD' }).fetch(FEEDS)).rejects.toThrow(/^ethereum: /);
    const down = new ChainlinkSource({
      rpcUrl: `http://127.0.0.1:${await freePort()}`,
      feeds: new Map([['ethereum', eth]]),
      timeoutMs: 500,
    });
    await expect(down.fetch(FEEDS)).rejects.toThrow(/^ethereum: /);
  });

  it('covers only the configured price ids', () => {
    const src = source({ ethereum: eth });
    expect(FEEDS.map((f) => src.covers(f))).toEqual([true, false]);
  });

  describe('through the oracle into NATS', () => {
    let dir: string;
    let nats: Managed;
    let nc: NatsConnection;
    let feeds: RpcServer;
    let oracle: RunningOracle;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'oracle-chainlink-'));
      const [port, monitor] = [await freePort(), await freePort()];
      nats = await startNats(dir, port, monitor, join(dir, 'nats.log'), bus.users);
      nc = await connectNats({
        url: `nats://127.0.0.1:${port}`,
        name: 'price-reader',
        connectTimeoutMs: 5000,
        ...bus.credentials('price-reader'),
      });
      feeds = serveFeeds(nc, FEEDS);
      oracle = await bootOracle({
        NATS_URL: `nats://127.0.0.1:${port}`,
        ...bus.envFor('price-oracle'),
        PRICE_SOURCES: 'chainlink',
        CHAINLINK_RPC_URL: anvil.rpcUrl,
        CHAINLINK_FEEDS: `ethereum=${eth},usd-coin=${usdc}`,
        PRICE_POLL_MS: '200',
        PRICE_MAX_AGE_SECS: '3600',
      });
    });

    afterAll(async () => {
      await oracle?.close();
      await feeds?.close();
      await nc?.close();
      await nats?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('publishes each round once, stamped with its updatedAt', async () => {
      const at = await update(eth, 353100000000n);
      const kv = await openPrices(nc);
      // The first publication also waits out the oracle's start (feed list, bucket, first polls).
      // This wait used to run out now and then (3 CI runs): nats-server had died, because this
      // poll read the bucket by STREAM.MSG.GET while the oracle was creating it (see openPrices).
      // Should it run out again, the failure says what the oracle, the bucket and nats-server were
      // doing, and how nats-server ended if it did.
      const published = await until(
        'ethereum from chainlink',
        async () => {
          const e = await kv.get('ethereum');
          const p = e?.operation === 'PUT' ? PriceSchema.parse(e.json()) : undefined;
          return p?.price === '353100000000' ? { p, revision: e!.revision } : undefined;
        },
        { timeoutMs: 60_000 },
      ).catch(async (err: unknown) => {
        const ready = await oracle.readiness().catch((e: unknown) => ({ status: 0, body: String(e) }));
        const usdc = await kv.get('usd-coin').then(
          (e) => e?.string() ?? 'none',
          (e: unknown) => String(e),
        );
        // A crash prints its cause first, then every goroutine: the first lines past [INF] are the ones to see.
        const natsLog = readFileSync(join(dir, 'nats.log'), 'utf8')
          .split('\n')
          .filter((l) => !/\[INF\]/.test(l))
          .slice(0, 12)
          .join('\n');
        throw new Error(
          `${String(err)}; oracle readiness ${ready.status} ${JSON.stringify(ready.body)}; usd-coin entry ${usdc}; ` +
            `nats-server ${nats.child.exitCode === null ? 'running' : `exited ${nats.child.exitCode}`}, the start of its log past [INF] lines:\n${natsLog}`,
        );
      });
      expect(published.p).toEqual({
        price_id: 'ethereum',
        price: '353100000000',
        expo: -8,
        conf: '0',
        publish_time: at,
        source: 'chainlink',
      });
      // Markers: two new usd-coin rounds, each awaited in the bucket. Every poll reads both feeds
      // and polls do not overlap, so once the second is in, a whole poll that read eth's unchanged
      // round after its publication (the one that brought the first marker) has finished.
      for (const answer of [999_000_000_000_000_000n, 998_000_000_000_000_000n]) {
        await update(usdc, answer);
        await until(
          `usd-coin at ${answer}`,
          async () => {
            const e = await kv.get('usd-coin');
            return e?.operation === 'PUT' && PriceSchema.parse(e.json()).price === answer.toString() ? true : undefined;
          },
          { timeoutMs: 10_000 },
        );
      }
      expect((await kv.get('ethereum'))!.revision).toBe(published.revision);
      expect((await oracle.readiness()).status).toBe(200);
    });
  });
});

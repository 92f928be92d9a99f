import { join } from 'node:path';
import type { OrderEvent } from '@xchain/client';
import { type RedisServer, freePort, startRedis } from '@xchain/stack';
import { type Address, type Hex, encodeFunctionData, parseAbi } from 'viem';
import type { E2eStack } from '../support/e2e-stack';
import { type GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { PLENTY, type SettlementFixture, startSettlementStack } from '../support/settlement-fixture';

jest.setTimeout(180_000);

const BASE_USDC = LOCAL_TOKENS.base.USDC;
const USDC = (n: number) => BigInt(n) * 10n ** 6n;
const TRANSFER_ABI = parseAbi(['function transfer(address to, uint256 amount) returns (bool)']);

/**
 * Issue 44 §2, D18: gasless orders of one wallet signed before either is relayed, a relayer that
 * never broadcasts what its simulation says reverts, and the terminal `failed` of an order that
 * cannot be relayed, read through GetOrder and pushed on the order's event stream.
 */
describe('gasless orders that share a wallet, and gasless orders that cannot be relayed', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let s: SettlementFixture;
  let redis: RedisServer;
  let redisPort: number;
  const redisDir = () => join(process.cwd(), '.test-data', `redis-${redisPort}`);
  let firstBlock: bigint;

  const rpc = (method: string, params: unknown[] = []) => g.client('base').request({ method: method as never, params: params as never });

  /** A fresh wallet holding `amount` of base USDC: no approval, no native gas. */
  const freshUser = async (amount: bigint) => {
    const user = g.newUser();
    await g.mint('base', BASE_USDC, user.address, amount);
    return user;
  };
  const quote = (user: Address, amount: bigint) => s.retryingInventory(() => g.gaslessQuote('base', BASE_USDC, user, amount.toString()));

  /** Every event of an order's stream until its view is terminal (or `timeoutMs`). */
  const follow = (quoteHash: string, timeoutMs = 60_000): Promise<OrderEvent[]> => {
    const signal = AbortSignal.timeout(timeoutMs);
    return (async () => {
      const seen: OrderEvent[] = [];
      for await (const event of g.api.streamOrderEvents(quoteHash, { signal })) {
        seen.push(event);
        if (event.order.terminal) break;
      }
      return seen;
    })();
  };

  /** Transactions the relayer's wallets sent on base since the suite began whose receipt shows a revert. */
  const relayerReverts = async (): Promise<Hex[]> => {
    const client = g.client('base');
    const wallets = new Set(e2e.relayerWallets.map((w) => w.toLowerCase()));
    const head = await client.getBlockNumber();
    const reverted: Hex[] = [];
    for (let n = firstBlock; n <= head; n++) {
      const block = await client.getBlock({ blockNumber: n, includeTransactions: true });
      for (const tx of block.transactions) {
        if (!wallets.has(tx.from.toLowerCase())) continue;
        const receipt = await client.getTransactionReceipt({ hash: tx.hash });
        if (receipt.status !== 'success') reverted.push(tx.hash);
      }
    }
    return reverted;
  };

  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startRedis(redisDir(), redisPort, false, undefined, join(redisDir(), 'admin.password'));
    ({ e2e, g, s } = await startSettlementStack({}, { redis: { port: redisPort, admin: redis.admin } }));
    await s.setInventory(PLENTY);
    firstBlock = await g.client('base').getBlockNumber();
  }, 240_000);

  afterAll(async () => {
    await e2e?.stop();
    await redis?.stop();
  });

  afterEach(async () => {
    // Whatever a test did to base's mining, blocks come every second again.
    await rpc('evm_setIntervalMining', [1]).catch(() => undefined);
  });

  it('fills two quotes of a fresh wallet signed before either was submitted, both permits on token nonce 0, with no reverted relay', async () => {
    const user = await freshUser(USDC(100));
    const [a, b] = [await quote(user.address, USDC(30)), await quote(user.address, USDC(45))];
    expect([a['erc2612'].message.nonce, b['erc2612'].message.nonce]).toEqual(['0', '0']);
    const bodies = [await g.evmBody(user, a, true), await g.evmBody(user, b, true)];
    const answers = await Promise.all(bodies.map((body) => g.submit(body)));
    expect(answers.map((r) => r.body.status)).toEqual(['queued', 'queued']);

    const views = await Promise.all([a, b].map((q) => g.waitOrder(q['quote_hash'], (v) => v.terminal, 90_000)));
    for (const view of views) {
      expect(view).toMatchObject({ status: 'fulfilled', terminal: true, gasless: { status: 'confirmed' } });
      expect(view.gasless.tx_hashes).toHaveLength(1);
      const receipt = await g.client('base').getTransactionReceipt({ hash: view.gasless.tx_hash });
      expect(receipt.status).toBe('success');
    }
    expect(await g.balanceOf('base', BASE_USDC, user.address)).toBe(USDC(25));
    expect(await relayerReverts()).toEqual([]);
  });

  it('never sends the second of two orders that cannot both succeed: it fails unsent, terminal with its reason, read and pushed', async () => {
    const user = await freshUser(USDC(50));
    const [a, b] = [await quote(user.address, USDC(40)), await quote(user.address, USDC(40))];
    const [bodyA, bodyB] = [await g.evmBody(user, a, true), await g.evmBody(user, b, true)];
    const streamB = follow(b['quote_hash']);
    // Blocks stop: the first order's relay stays in flight while the second is judged.
    await rpc('evm_setIntervalMining', [0]);
    expect((await g.submit(bodyA)).body.status).toBe('queued');
    await g.waitOrder(a['quote_hash'], (v) => v.gasless?.status === 'submitted');
    // Accepted: on the chain's head the wallet still holds 50 and the permit's nonce is unused.
    expect((await g.submit(bodyB)).body).toEqual({ quote_hash: b['quote_hash'], status: 'queued' });
    // Simulated at its nonce, behind the first order's transaction, the second one's pull fails.
    const failed = await g.waitOrder(b['quote_hash'], (v) => v.status === 'failed');
    expect(failed).toMatchObject({
      status: 'failed',
      terminal: true,
      failure: { reason: 'SIMULATION_REVERTED' },
      gasless: { status: 'failed', tx_hashes: [] },
    });
    expect(failed.failure.message).toMatch(/^SIMULATION_REVERTED: Error\(TRANSFER_FROM_FAILED\)/);
    expect(failed.failure.message).toBe(failed.gasless.error);
    expect(Date.parse(failed.failure.at)).not.toBeNaN();
    await rpc('evm_setIntervalMining', [1]);

    const done = await g.waitOrder(a['quote_hash'], (v) => v.terminal, 90_000);
    expect(done).toMatchObject({ status: 'fulfilled', gasless: { status: 'confirmed' } });
    const pushed = await streamB;
    expect(pushed.at(-1)!.order).toMatchObject({ status: 'failed', terminal: true, failure: { reason: 'SIMULATION_REVERTED' } });
    expect(pushed.filter((e) => e.order.status === 'failed')).toHaveLength(1);
    // Final: submitting the same quote again, freshly signed, answers the failed order.
    expect((await g.submit(await g.evmBody(user, b, true))).body).toMatchObject({ quote_hash: b['quote_hash'], status: 'failed' });
    expect((await g.order(b['quote_hash'])).body).toMatchObject({ status: 'failed', terminal: true });
    expect(await g.balanceOf('base', BASE_USDC, user.address)).toBe(USDC(10));
    expect(await relayerReverts()).toEqual([]);
  });

  it('fails an accepted order whose wallet moved its balance away before the relay, without sending anything, and pushes it', async () => {
    const user = await freshUser(USDC(20));
    const q = await quote(user.address, USDC(20));
    const body = await g.evmBody(user, q, true);
    const stream = follow(q['quote_hash'], 90_000);
    const nonces = await Promise.all(e2e.relayerWallets.map((w) => g.client('base').getTransactionCount({ address: w })));
    // Redis away: the order is accepted and stored, but its lane hears of it only from the sweeper once Redis is back.
    await redis.stop();
    try {
      expect((await g.submit(body)).body).toEqual({ quote_hash: q['quote_hash'], status: 'queued' });
      // Signed and accepted; now the wallet spends its USDC elsewhere.
      await g.setNativeBalance('base', user.address, 10n ** 17n);
      const moved = await g.send(
        'base',
        {
          to: BASE_USDC,
          data: encodeFunctionData({
            abi: TRANSFER_ABI,
            functionName: 'transfer',
            args: ['0x000000000000000000000000000000000000dEaD', USDC(20)],
          }),
        },
        user,
      );
      expect(moved.status).toBe('success');
    } finally {
      redis = await startRedis(redisDir(), redisPort, false, undefined, join(redisDir(), 'admin.password'), e2e.stack.redisAcl);
    }
    const view = await g.waitOrder(q['quote_hash'], (v) => v.terminal, 60_000);
    expect(view).toMatchObject({
      status: 'failed',
      terminal: true,
      failure: { reason: 'SIMULATION_REVERTED' },
      gasless: { status: 'failed', tx_hashes: [] },
    });
    const pushed = await stream;
    expect(pushed[0]!.order).toMatchObject({ status: 'quoted', terminal: false });
    expect(pushed.at(-1)!.order).toMatchObject({ status: 'failed', terminal: true, failure: { reason: 'SIMULATION_REVERTED' } });
    // Nothing was sent for it: no relayer nonce moved.
    expect(await Promise.all(e2e.relayerWallets.map((w) => g.client('base').getTransactionCount({ address: w })))).toEqual(nonces);
    expect(await relayerReverts()).toEqual([]);
  });
});

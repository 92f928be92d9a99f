import { join } from 'node:path';
import { type RedisServer, SERVICES, freePort, startBuiltService, startRedis, until } from '@xchain/stack';
import { XCHAIN_ROUTER_ABI } from '@xchain/evm-gasless';
import { type Address, type Hex, encodeFunctionData, parseEventLogs } from 'viem';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { gatewayClient } from '../support/http';

jest.setTimeout(180_000);

const { base, ethereum } = LOCAL_TOKENS;
const USDC = (n: number) => BigInt(n) * 10n ** 6n;
const RELAYER = SERVICES.find((s) => s.name === 'gasless-relayer')!;

/** The relayer under load and under failure: many orders, stuck transactions, kill -9, Redis lost, sponsor holds. */
describe('gasless relayer: nothing accepted is lost, nothing is sent twice', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let redis: RedisServer;
  let redisPort: number;
  const redisDir = () => join(process.cwd(), '.test-data', `redis-${redisPort}`);
  let router: Record<string, Address>;

  const rpc = (chain: string, method: string, params: unknown[] = []) =>
    g.client(chain).request({ method: method as never, params: params as never });
  const relayer = () => e2e.stack.services.get('gasless-relayer')!;
  const restartRelayer = async () => {
    const proc = await startBuiltService({
      spec: RELAYER,
      port: e2e.ports['gasless-relayer'],
      env: e2e.stack.envFor('gasless-relayer'),
      logFile: join(e2e.logDir, 'gasless-relayer.log'),
    });
    e2e.stack.services.set('gasless-relayer', proc);
  };
  const fundedQuote = async (
    chain: 'base' | 'ethereum',
    amount: bigint,
    headers: Record<string, string> = {},
    over: Record<string, unknown> = {},
  ) => {
    const user = g.newUser();
    const token = chain === 'base' ? base.USDC : ethereum.USDC;
    await g.mint(chain, token, user.address, amount);
    const q = await g.gaslessQuote(chain, token, user.address, amount.toString(), headers, over);
    return { user, q, token, body: await g.evmBody(user, q, true) };
  };

  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startRedis(redisDir(), redisPort, false, undefined, join(redisDir(), 'admin.password'));
    e2e = await startE2eStack(
      {
        PRICE_POLL_MS: '600000',
        PRICE_MAX_AGE_SECS: '7200',
        RELAY_POLL_MS: '200',
        RELAY_SWEEP_MS: '500',
        RELAY_REPLACE_AFTER_BLOCKS: '2',
        CHAIN_WATCH_CONFIRMATIONS: '0',
        CHAIN_WATCH_POLL_MS: '300',
      },
      // A block per transaction: the tests below stop and start mining themselves.
      { devnet: { chains: ['ethereum', 'base'], blockTimeSecs: 0 }, redis: { port: redisPort, admin: redis.admin } },
    );
    g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
    const listed = await gatewayClient(e2e.gatewayUrl).getChains();
    router = Object.fromEntries(listed.chains.map((c) => [c.chain, c.deposit_target as Address]));
  }, 240_000);

  afterAll(async () => {
    await e2e?.stop();
    await redis?.stop();
  });

  it('confirms 200 concurrent orders over two chains, with gap-free nonces per wallet', async () => {
    const orders = await Promise.all(Array.from({ length: 200 }, (_, i) => fundedQuote(i % 2 ? 'base' : 'ethereum', USDC(5))));
    // A client submits again after a 503 or 504, as any would: the same quote submitted again
    // answers its one order's state (D7). On a loaded machine (CI runs two stacks at once) a few of
    // 200 simultaneous submissions can outwait the relayer's 2 s deadline on the quote-engine.
    const submit = async (body: unknown) => {
      for (let attempt = 1; ; attempt++) {
        const a = await g.submit(body);
        if ((a.status === 503 || a.status === 504) && attempt < 4) await new Promise((r) => setTimeout(r, 500 * attempt));
        else return { ...a, retried: attempt > 1 };
      }
    };
    const answers = await Promise.all(orders.map((o) => submit(o.body)));
    // A refusal shows its body, so a failure here says why. A first answer is "queued"; an order
    // accepted on an attempt whose answer was lost may be further along when the retry asks.
    const unexpected = answers.filter(
      (a) => a.status !== 200 || !(a.retried ? ['queued', 'submitted', 'confirmed'] : ['queued']).includes(a.body.status),
    );
    expect(unexpected.map((a) => `${a.status} ${JSON.stringify(a.body)}`)).toEqual([]);
    const views = await Promise.all(orders.map((o) => g.waitOrder(o.q['quote_hash'], (v) => v.gasless?.status === 'confirmed', 120_000)));
    const byWallet = new Map<string, number[]>();
    await Promise.all(
      views.map(async (v, i) => {
        const chain = i % 2 ? 'base' : 'ethereum';
        const tx = await g.client(chain).getTransaction({ hash: v.gasless.tx_hash as Hex });
        const key = `${chain}:${tx.from}`;
        byWallet.set(key, [...(byWallet.get(key) ?? []), tx.nonce]);
      }),
    );
    // One deposit per order (a replacement under load may add a hash, never a second deposit).
    for (const chain of ['base', 'ethereum']) {
      const logs = await g.client(chain).getLogs({ address: router[chain]!, fromBlock: 0n, toBlock: 'latest' });
      const deposited = parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs, eventName: 'Deposited' }).map((l) => l.args.quoteHash);
      const mine = orders.filter((_, i) => (i % 2 ? 'base' : 'ethereum') === chain).map((o) => o.q['quote_hash']);
      expect(deposited.filter((h) => mine.includes(h)).sort()).toEqual([...mine].sort());
    }
    expect(byWallet.size).toBe(2 * e2e.relayerWallets.length);
    for (const [wallet, nonces] of byWallet) {
      const sorted = [...nonces].sort((a, b) => a - b);
      const count = await g.client(wallet.split(':')[0]!).getTransactionCount({ address: wallet.split(':')[1] as Address });
      // Every nonce the wallet ever used went to one of these orders, none twice, none skipped.
      expect([wallet, sorted]).toEqual([wallet, Array.from({ length: count }, (_, i) => i)]);
    }
  });

  it('replaces a transaction that is not mined and confirms the order with every hash listed', async () => {
    const { q, body } = await fundedQuote('ethereum', USDC(20));
    await rpc('ethereum', 'evm_setAutomine', [false]);
    try {
      expect((await g.submit(body)).body.status).toBe('queued');
      const sent = await g.waitOrder(q['quote_hash'], (v) => v.gasless?.status === 'submitted');
      const tx = await g.client('ethereum').getTransaction({ hash: sent.gasless.tx_hash });
      // Blocks now cost more than the transaction offers: it waits, and is replaced after 2 blocks.
      for (let i = 0; i < 3; i++) {
        await rpc('ethereum', 'anvil_setNextBlockBaseFeePerGas', [`0x${(tx.maxFeePerGas! * 10n).toString(16)}`]);
        await rpc('ethereum', 'evm_mine');
      }
      const replaced = await g.waitOrder(q['quote_hash'], (v) => v.gasless?.tx_hashes.length >= 2);
      expect(replaced.gasless.tx_hashes[0]).toBe(sent.gasless.tx_hash);
    } finally {
      await rpc('ethereum', 'evm_setAutomine', [true]);
    }
    await rpc('ethereum', 'evm_mine');
    const done = await g.waitOrder(q['quote_hash'], (v) => v.gasless?.status === 'confirmed' && v.status === 'deposited');
    expect(done.gasless.tx_hashes.length).toBeGreaterThanOrEqual(2);
    expect(done.gasless.tx_hashes).toContain(done.gasless.tx_hash);
    expect(await g.deposits('ethereum', router['ethereum']!, q['quote_hash'])).toHaveLength(1);
  });

  it('confirms an order sent just before a kill -9, after the restart, without a second transaction', async () => {
    const { q, body } = await fundedQuote('base', USDC(15));
    await rpc('base', 'evm_setAutomine', [false]);
    let wallet: Address;
    let nonceBefore: number;
    try {
      expect((await g.submit(body)).body.status).toBe('queued');
      const sent = await g.waitOrder(q['quote_hash'], (v) => v.gasless?.status === 'submitted');
      wallet = (await g.client('base').getTransaction({ hash: sent.gasless.tx_hash })).from;
      nonceBefore = await g.client('base').getTransactionCount({ address: wallet });
      relayer().child.kill('SIGKILL');
      await new Promise((r) => relayer().child.once('exit', r));
    } finally {
      await rpc('base', 'evm_setAutomine', [true]);
    }
    await rpc('base', 'evm_mine');
    await restartRelayer();
    const done = await g.waitOrder(q['quote_hash'], (v) => v.gasless?.status === 'confirmed');
    expect(done.gasless.tx_hashes).toHaveLength(1);
    expect(await g.client('base').getTransactionCount({ address: wallet! })).toBe(nonceBefore! + 1);
    expect(await g.deposits('base', router['base']!, q['quote_hash'])).toHaveLength(1);
  });

  it('loses no order accepted while Redis is down: the sweeper enqueues it once Redis is back', async () => {
    const { q, body } = await fundedQuote('base', USDC(12));
    await redis.stop();
    try {
      const r = await g.submit(body);
      expect(r.body).toEqual({ quote_hash: q['quote_hash'], status: 'queued' });
    } finally {
      // The same users again (a fresh Redis knows none but its administrator).
      redis = await startRedis(redisDir(), redisPort, false, undefined, join(redisDir(), 'admin.password'), e2e.stack.redisAcl);
    }
    const done = await g.waitOrder(q['quote_hash'], (v) => v.gasless?.status === 'confirmed' && v.status === 'deposited', 60_000);
    expect(done.gasless.tx_hashes).toHaveLength(1);
  });

  describe('sponsored by a partner', () => {
    let key: string;
    /** The kinds of the sponsor's latest ledger entries (hold, settle, release, credit…). */
    const ledgerKinds = async () => {
      const shown = await e2e.admin('show-partner', '--email', 'sponsor@example.com', '--entries', '100');
      return (shown.out.ledger as { kind: string }[]).map((e) => e.kind);
    };
    const available = async () => {
      const shown = await e2e.admin('show-partner', '--email', 'sponsor@example.com');
      return BigInt(shown.out.balance_usd_micros);
    };

    beforeAll(async () => {
      expect((await e2e.admin('create-partner', '--email', 'sponsor@example.com')).code).toBe(0);
      key = (await e2e.admin('create-key', '--email', 'sponsor@example.com', '--name', 'wallet')).out.secret;
      expect((await e2e.admin('credit', '--email', 'sponsor@example.com', '--usd-micros', '100000000', '--reason', 'prepaid')).code).toBe(
        0,
      );
    });

    it('holds the relay gas, then settles the gas spent: the user deposits all of amount_in', async () => {
      const before = await available();
      const { q, body, user } = await fundedQuote('base', USDC(30), { 'x-api-key': key }, { sponsor_fees: true });
      expect(q['order'].sponsor_fees).toBe('true');
      expect((await g.submit(body, { 'x-api-key': key })).body.status).toBe('queued');
      await g.waitOrder(q['quote_hash'], (v) => v.gasless?.status === 'confirmed');
      const [dep] = await g.deposits('base', router['base']!, q['quote_hash']);
      expect(dep!.args).toMatchObject({ depositor: user.address, amount: USDC(30) });
      const hold = BigInt(q['fee_breakdown'].components.find((c: { name: string }) => c.name === 'sponsor_gas').usd_micros);
      // Settled exactly once: charged what the gas cost (never more than the hold).
      // The settlement follows the confirmation asynchronously: poll (with a deadline) for its ledger
      // entry, the positive signal (the charge may equal the hold, so the balance alone cannot tell).
      await until('the relay gas to be settled', async () => (await ledgerKinds()).includes('settle'), { timeoutMs: 30_000, everyMs: 100 });
      expect((await ledgerKinds()).filter((k) => k === 'settle')).toHaveLength(1);
      const after = await available();
      expect(after).toBeLessThan(before);
      expect(before - after).toBeLessThanOrEqual(hold);
    });

    it('releases the hold when the relay fails on chain', async () => {
      const before = await available();
      const { q, body, user, token } = await fundedQuote('base', USDC(25), { 'x-api-key': key }, { sponsor_fees: true });
      await g.setNativeBalance('base', user.address, 10n ** 18n);
      await rpc('base', 'evm_setAutomine', [false]);
      try {
        expect((await g.submit(body, { 'x-api-key': key })).body.status).toBe('queued');
        await g.waitOrder(q['quote_hash'], (v) => v.gasless?.status === 'submitted');
        // The user moves the tokens away in the same block, ahead of the relay (a higher tip). Signed
        // locally: estimating it against the pending block would already see the relay take the tokens.
        const raw = await user.signTransaction({
          type: 'eip1559',
          chainId: 8453,
          nonce: 0,
          to: token,
          data: transferAll(USDC(25)),
          gas: 100_000n,
          maxPriorityFeePerGas: 10n ** 11n,
          maxFeePerGas: 10n ** 12n,
        });
        await g.client('base').sendRawTransaction({ serializedTransaction: raw });
      } finally {
        await rpc('base', 'evm_setAutomine', [true]);
      }
      await rpc('base', 'evm_mine');
      const failed = await g.waitOrder(q['quote_hash'], (v) => v.gasless?.status === 'failed');
      expect(failed.gasless.error).toMatch(/^TX_REVERTED: /);
      await until('the hold to be released', async () => (await ledgerKinds()).includes('release'), { timeoutMs: 30_000, everyMs: 100 });
      expect(await available()).toBe(before);
    });
  });
});

/** transfer(0x…dEaD, amount): the whole balance of the release test's user. */
function transferAll(amount: bigint): Hex {
  return encodeFunctionData({
    abi: [
      {
        type: 'function',
        name: 'transfer',
        stateMutability: 'nonpayable',
        inputs: [
          { name: 'to', type: 'address' },
          { name: 'amount', type: 'uint256' },
        ],
        outputs: [{ name: '', type: 'bool' }],
      },
    ],
    functionName: 'transfer',
    args: ['0x000000000000000000000000000000000000dEaD', amount],
  });
}

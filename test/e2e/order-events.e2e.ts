import { ANVIL_DEV_KEY } from '@xchain/chain-tools';
import type { OrderEvent, XchainClient } from '@xchain/client';
import { FetchQuoteRpc, type RpcError } from '@xchain/contracts';
import { DEV_FILLER_KEY } from '@xchain/devnet';
import { approveCalldata, cancelTx, depositTx, fillTx, refundTx } from '@xchain/evm-gasless';
import { RpcClient } from '@xchain/messaging';
import { orderFromWire } from '@xchain/order-codec';
import { until } from '@xchain/stack';
import { Client } from 'pg';
import { type Address, maxUint256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { crossChainOf, expectApiError } from '../support/http';
import { untilHeard } from '../support/sse';
import { T } from '../support/registry-fixture';

jest.setTimeout(120_000);

const { base } = LOCAL_TOKENS;
const ARB_USDC = T.arbitrum.USDC as Address;

/**
 * One StreamOrderEvents of the typed client, read in the background: it keeps every event and the
 * count of heartbeat comments, and lets a test wait for the next event that matches.
 */
class OrderStream {
  readonly events: OrderEvent[] = [];
  comments = 0;
  ended = false;
  /** The answer's headers once the stream opened. */
  headers: Headers | undefined;
  private failure: unknown;
  private readonly abort = new AbortController();

  /** Resolves once the stream is open (a 2xx event stream); rejects with the XchainApiError of a refusal. */
  static open(api: XchainClient, quoteHash: string, lastEventId?: string): Promise<OrderStream> {
    const s = new OrderStream();
    return new Promise((resolve, reject) => {
      const it = api.streamOrderEvents(quoteHash, {
        signal: s.abort.signal,
        ...(lastEventId !== undefined ? { lastEventId } : {}),
        onOpen: ({ headers }) => {
          s.headers = headers;
          resolve(s);
        },
        onComment: () => {
          s.comments++;
        },
      });
      void (async () => {
        try {
          for await (const e of it) s.events.push(e);
        } catch (err) {
          s.failure = err;
          reject(err); // a no-op once opened: then `next` reports it
        } finally {
          s.ended = true;
        }
      })();
    });
  }

  /** The first event that matches; throws once the stream ended without one, or after `timeoutMs`. */
  next(match: (e: OrderEvent) => boolean, timeoutMs = 30_000): Promise<OrderEvent> {
    return untilHeard(
      'a matching event',
      () => this.events.find(match),
      () =>
        this.ended
          ? `the stream ended without a matching event (${this.events.length} events${this.failure ? `; ${String(this.failure)}` : ''})`
          : undefined,
      { timeoutMs, detail: () => `got ${this.events.length} events` },
    );
  }

  /** Waits for a heartbeat comment after the first `count`. */
  async nextComment(count: number, timeoutMs = 10_000): Promise<void> {
    await untilHeard(
      'a heartbeat',
      () => this.comments > count,
      () => (this.ended ? 'no heartbeat' : undefined),
      { timeoutMs },
    );
  }

  close(): void {
    this.abort.abort();
  }
}

/** The order view pushed to wallets over server-sent events (D13), through the gateway. */
describe('order events (SSE) through the gateway', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  const streams: OrderStream[] = [];
  const open = async (quoteHash: string, lastEventId?: string) => {
    const s = await OrderStream.open(g.api, quoteHash, lastEventId);
    streams.push(s);
    return s;
  };

  beforeAll(async () => {
    e2e = await startE2eStack(
      {
        PRICE_POLL_MS: '600000',
        PRICE_MAX_AGE_SECS: '7200',
        RELAY_POLL_MS: '200',
        RELAY_SWEEP_MS: '1000',
        CHAIN_WATCH_POLL_MS: '300',
        SSE_HEARTBEAT_MS: '500',
        SSE_MAX_STREAMS_PER_CALLER: '3',
        QUOTE_EXPIRY_SWEEP_MS: '300',
      },
      { devnet: { chains: ['base', 'arbitrum'] } },
    );
    g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
    const listed = await g.api.getChains();
    routers = Object.fromEntries(listed.chains.map((c) => [c.chain, c.deposit_target as Address]));
  }, 180_000);
  let routers: Record<string, Address>;

  /** A plain (not gasless) quote from base to arbitrum USDC for `user`. */
  const plainQuote = async (user: { address: Address }, amount: bigint) =>
    crossChainOf(
      await g.api.getQuote({
        src_chain: 'base',
        dst_chain: 'arbitrum',
        src_token: base.USDC,
        dst_token: ARB_USDC,
        trade_type: 'TRADE_TYPE_EXACT_INPUT',
        amount: amount.toString(),
        gas_drop: '',
        recipient: user.address,
        refund_address: user.address,
      }),
    );

  /** A user deposits a plain (not gasless) quote from base to arbitrum USDC with its deposit_tx. */
  const deposited = async (amount: bigint) => {
    const user = g.newUser();
    await g.mint('base', base.USDC, user.address, amount);
    await g.setNativeBalance('base', user.address, 10n ** 17n);
    const q = await plainQuote(user, amount);
    const { order } = orderFromWire(q.order);
    const s = await open(q.quote_hash);
    await s.next((e) => e.order.status === 'quoted');
    await g.send('base', { to: base.USDC, data: approveCalldata(routers['base']!, maxUint256) }, user);
    const receipt = await g.send('base', depositTx(order, routers['base']!), user);
    expect(receipt.status).toBe('success');
    await s.next((e) => e.order.status === 'deposited');
    return { user, q, order, s, receipt };
  };

  afterAll(async () => {
    for (const s of streams) s.close();
    await e2e?.stop();
  });

  it('streams the current view, then each change of a gasless order in order, then resumes from Last-Event-ID', async () => {
    const user = g.newUser();
    await g.mint('base', base.USDC, user.address, 100_000_000n);
    const q = await g.gaslessQuote('base', base.USDC, user.address, '40000000');
    const s = await open(q['quote_hash']);
    expect(s.headers?.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    // (only `order` events are yielded, each checked against the order view's schema by the client)
    const first = await s.next(() => true);
    expect(first.order).toMatchObject({ quote_hash: q['quote_hash'], status: 'quoted', amount_in: '40000000' });
    expect(first.order.gasless).toBeUndefined();

    expect((await g.submit(await g.evmBody(user, q, true))).body.status).toBe('queued');
    const done = await s.next((e) => e.order.status === 'deposited' && e.order.gasless?.status === 'confirmed');
    const seen = s.events.map((e) => `${e.order.status}/${e.order.gasless?.status ?? '-'}`);
    // Every relay status shows, in order, and the deposit read from the chain ends it.
    expect(seen[0]).toBe('quoted/-');
    expect(seen.indexOf('quoted/queued')).toBeGreaterThan(0);
    expect(seen.at(-1)).toBe('deposited/confirmed');
    expect(s.events.every((e) => e.id !== undefined)).toBe(true);
    expect(new Set(s.events.map((e) => e.id)).size).toBe(s.events.length); // each event once
    expect(done.order.deposit).toMatchObject({ chain: 'base', tx_hash: done.order.gasless!.tx_hash });
    // The stream agrees with the order view.
    expect(done.order).toEqual(await g.api.getOrder({ quote_hash: q['quote_hash'] }));

    // Resuming with the last id: no repeat of the view it already has, only heartbeats.
    const again = await open(q['quote_hash'], done.id!);
    await again.nextComment(0);
    await again.nextComment(again.comments);
    expect(again.events).toEqual([]);
    // Resuming with an older id: the current view at once.
    const older = await open(q['quote_hash'], first.id!);
    expect((await older.next(() => true)).order).toEqual(done.order);
    again.close();
    older.close();
    s.close();
  });

  it('refuses before streaming, in the error shape: a malformed hash, an unknown order, too many streams from one caller', async () => {
    await expectApiError(open('0x1234'), { http: 400, code: 3, fields: ['quote_hash'] });
    await expectApiError(open(`0x${'cd'.repeat(32)}`), { http: 404, code: 5, reason: 'QUOTE_NOT_FOUND' });

    const user = g.newUser();
    const q = await g.gaslessQuote('base', base.USDC, user.address, '1000000');
    // The streams closed above are counted down when the gateway sees the close: retry until admitted.
    const openOk = () => until('a stream admitted', () => open(q['quote_hash']), { timeoutMs: 5000, everyMs: 100 });
    const held: OrderStream[] = [];
    for (let i = 0; i < 3; i++) held.push(await openOk());
    await expectApiError(open(q['quote_hash']), { http: 429, code: 8, reason: 'TOO_MANY_STREAMS', metadata: { max_streams: '3' } });
    held[0]!.close();
    // Once one is closed, the caller may open another.
    const fifth = await openOk();
    for (const h of [...held, fifth]) h.close();
  });

  it('follows a fill on the destination chain: fulfilled in the stream and in the view, with the fill transaction', async () => {
    const { user, q, order, s } = await deposited(25_000_000n);
    // A filler (the dev key) delivers amount_out of arbitrum USDC to the recipient on arbitrum's router.
    const amountOut = BigInt(q.amount_out);
    await g.mint('arbitrum', ARB_USDC, privateKeyToAccount(ANVIL_DEV_KEY).address, amountOut);
    await g.send('arbitrum', { to: ARB_USDC, data: approveCalldata(routers['arbitrum']!, maxUint256) });
    const fill = await g.send('arbitrum', fillTx(order, amountOut, routers['arbitrum']!));
    expect(fill.status).toBe('success');
    const done = await s.next((e) => e.order.status === 'fulfilled');
    expect(done.order.fulfillment).toEqual({
      chain: 'arbitrum',
      tx_hash: fill.transactionHash,
      block_number: fill.blockNumber.toString(),
      at: expect.stringMatching(/^20\d\d-/),
      amount: amountOut.toString(),
    });
    expect(await g.balanceOf('arbitrum', ARB_USDC, user.address)).toBe(amountOut);
    expect(await g.api.getOrder({ quote_hash: q.quote_hash })).toEqual(done.order);
    s.close();
  });

  // D16. Time passing is simulated by moving the stored quote's expiry and end of retention back,
  // as both the order view and the expiry sweep read them from the row.
  it('keeps an undeposited order quoted past its expiry, and makes it expired once, streamed and in the view, when its retention ends', async () => {
    const db = new Client({ connectionString: e2e.databaseUrl('quote_engine') });
    await db.connect();
    const relayer = await e2e.connectAs('gasless-relayer'); // a service that may fetch stored quotes
    // A quote's row moves to the day of its new retention end (made first: the service makes only
    // the days still in their grace).
    const moveBack = async (column: 'expires_at' | 'retained_until', hash: string, by: string) => {
      await db.query(`SELECT quote_day_ensure(((now() - $1::interval) AT TIME ZONE 'UTC')::date)`, [by]);
      await db.query(`UPDATE quotes SET ${column} = now() - $2::interval WHERE quote_hash = $1`, [hash, by]);
    };
    try {
      const user = g.newUser();
      const [q, other] = [await plainQuote(user, 3_000_000n), await plainQuote(user, 4_000_000n)];
      // The quote says until when a deposit is honoured: the end of retention, well after the expiry.
      expect(Date.parse(q.retained_until!) - Date.parse(q.expires_at)).toBeGreaterThanOrEqual(24 * 3600 * 1000 - 30 * 60 * 1000);
      const s = await open(q.quote_hash);
      const first = await s.next(() => true);
      expect(first.order).toMatchObject({ status: 'quoted', terminal: false, retained_until: q.retained_until });

      await moveBack('expires_at', q.quote_hash, '1 hour');
      const pastExpiry = await g.api.getOrder({ quote_hash: q.quote_hash });
      expect(Date.parse(pastExpiry.expires_at)).toBeLessThan(Date.now());
      expect(pastExpiry).toMatchObject({ status: 'quoted', terminal: false });

      await moveBack('retained_until', q.quote_hash, '1 second');
      // The quote-engine's sweep pushes it: no client asked for the view.
      const expired = await s.next((e) => e.order.status === 'expired');
      expect(expired.order.terminal).toBe(true);
      expect(await g.api.getOrder({ quote_hash: q.quote_hash })).toEqual(expired.order);
      // Past retention a deposit is no longer honoured: the stored quote cannot be fetched to build one.
      const fetched = await new RpcClient(relayer, 2000).call(FetchQuoteRpc, { quote_hash: q.quote_hash }).catch((e: unknown) => e);
      expect((fetched as RpcError).status?.code).toBe(5);

      // A later sweep (proven by the other quote's own expiry reaching its stream) pushes nothing more for the first.
      const s2 = await open(other.quote_hash);
      await s2.next(() => true);
      await moveBack('retained_until', other.quote_hash, '1 second');
      await s2.next((e) => e.order.status === 'expired');
      expect(s.events.filter((e) => e.order.status === 'expired')).toHaveLength(1);
      // A quote nobody used is no order: nothing is written per quote for its push (issue 45).
      const pushes = await db.query('SELECT version, status FROM order_view_pushes WHERE quote_hash = $1', [q.quote_hash]);
      expect(pushes.rows).toEqual([]);
      expect((await db.query('SELECT 1 FROM orders WHERE quote_hash = $1', [q.quote_hash])).rowCount).toBe(0);

      // After the grace (24 h by default) the order is gone.
      await moveBack('retained_until', q.quote_hash, '25 hours');
      await expectApiError(g.api.getOrder({ quote_hash: q.quote_hash }), { http: 404, code: 5, reason: 'QUOTE_NOT_FOUND' });
      s.close();
      s2.close();
    } finally {
      await relayer.close();
      await db.end();
    }
  });

  it('follows a refund on the source chain: cancelled on the destination, refunded at once, and the deposit back at the refund address', async () => {
    const { user, order, s } = await deposited(7_000_000n);
    expect(await g.balanceOf('base', base.USDC, user.address)).toBe(0n);
    // The operator (the devnet's filler key, refunder of every local router) first closes the order
    // on its destination, so no fill can land after the refund; then refunds without waiting.
    const operator = privateKeyToAccount(DEV_FILLER_KEY);
    expect((await g.send('arbitrum', cancelTx(order, routers['arbitrum']!), operator)).status).toBe('success');
    const refund = await g.send('base', refundTx(order, routers['base']!), operator);
    expect(refund.status).toBe('success');
    const done = await s.next((e) => e.order.status === 'refunded');
    // Refunded by hand (this stack has no operator wallet, so the system decided nothing): the reason says so.
    expect(done.order.refund).toMatchObject({ chain: 'base', tx_hash: refund.transactionHash, amount: '7000000', reason: 'OPERATOR' });
    expect(done.order.deposit).toBeDefined();
    expect(await g.balanceOf('base', base.USDC, user.address)).toBe(7_000_000n);
    s.close();
  });
});

import { ANVIL_DEV_KEY } from '@xchain/chain-tools';
import { DEV_FILL_WINDOW_SECS, DEV_REFUNDER_KEY } from '@xchain/devnet';
import { approveCalldata, depositTx, fillTx, refundTx } from '@xchain/evm-gasless';
import { orderFromWire } from '@xchain/order-codec';
import { type Address, maxUint256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { errorView, postJson } from '../support/http';
import { T } from '../support/registry-fixture';
import { SseClient, type SseEvent } from '../support/sse';

jest.setTimeout(120_000);

const { base } = LOCAL_TOKENS;
const ARB_USDC = T.arbitrum.USDC as Address;
const view = (e: SseEvent) => JSON.parse(e.data) as Record<string, any>;

/** The order view pushed to wallets over server-sent events (D13), through the gateway. */
describe('order events (SSE) through the gateway', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  const streams: SseClient[] = [];
  const open = async (quoteHash: string, headers: Record<string, string> = {}) => {
    const s = await SseClient.open(g.url(`/orders/${quoteHash}/events`), headers);
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
      },
      { devnet: { chains: ['base', 'arbitrum'] } },
    );
    g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
    const listed = (await (await fetch(g.url('/chains'))).json()) as { chains: { chain: string; deposit_target: Address }[] };
    routers = Object.fromEntries(listed.chains.map((c) => [c.chain, c.deposit_target]));
  }, 180_000);
  let routers: Record<string, Address>;

  /** A user deposits a plain (not gasless) quote from base to arbitrum USDC with its deposit_tx. */
  const deposited = async (amount: bigint) => {
    const user = g.newUser();
    await g.mint('base', base.USDC, user.address, amount);
    await g.setNativeBalance('base', user.address, 10n ** 17n);
    const r = await postJson(g.url('/quote'), {
      src_chain: 'base',
      dst_chain: 'arbitrum',
      src_token: base.USDC,
      dst_token: ARB_USDC,
      trade_type: 'TRADE_TYPE_EXACT_INPUT',
      amount: amount.toString(),
      gas_drop: '',
      recipient: user.address,
      refund_address: user.address,
    });
    expect(r.status).toBe(200);
    const q = r.body.cross_chain as Record<string, any>;
    const { order } = orderFromWire(q['order']);
    const s = await open(q['quote_hash']);
    await s.next((e) => view(e)['status'] === 'quoted');
    await g.send('base', { to: base.USDC, data: approveCalldata(routers['base']!, maxUint256) }, user);
    const receipt = await g.send('base', depositTx(order, routers['base']!), user);
    expect(receipt.status).toBe('success');
    await s.next((e) => view(e)['status'] === 'deposited');
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
    expect(s.status).toBe(200);
    expect(s.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    const first = await s.next(() => true);
    expect(first.event).toBe('order');
    expect(view(first)).toMatchObject({ quote_hash: q['quote_hash'], status: 'quoted', amount_in: '40000000' });
    expect(view(first)['gasless']).toBeUndefined();

    expect((await g.submit(await g.evmBody(user, q, true))).body.status).toBe('queued');
    const done = await s.next((e) => view(e)['status'] === 'deposited' && view(e)['gasless']?.status === 'confirmed');
    const seen = s.events.map((e) => `${view(e)['status']}/${view(e)['gasless']?.status ?? '-'}`);
    // Every relay status shows, in order, and the deposit read from the chain ends it.
    expect(seen[0]).toBe('quoted/-');
    expect(seen.indexOf('quoted/queued')).toBeGreaterThan(0);
    expect(seen.at(-1)).toBe('deposited/confirmed');
    expect(new Set(s.events.map((e) => e.id)).size).toBe(s.events.length); // each event once
    expect(view(done)['deposit']).toMatchObject({ chain: 'base', tx_hash: view(done)['gasless'].tx_hash });
    // The stream agrees with the order view.
    expect(view(done)).toEqual((await g.order(q['quote_hash'])).body);

    // Resuming with the last id: no repeat of the view it already has, only heartbeats.
    const again = await open(q['quote_hash'], { 'last-event-id': done.id! });
    await again.nextComment(0);
    await again.nextComment(again.comments.length);
    expect(again.events).toEqual([]);
    // Resuming with an older id: the current view at once.
    const older = await open(q['quote_hash'], { 'last-event-id': first.id! });
    expect(view(await older.next(() => true))).toEqual(view(done));
    again.close();
    older.close();
    s.close();
  });

  it('refuses before streaming, in the error shape: a malformed hash, an unknown order, too many streams from one caller', async () => {
    const malformed = await open('0x1234');
    expect(errorView(malformed.status, malformed.errorBody)).toMatchObject({ http: 400 });
    const unknown = await open(`0x${'cd'.repeat(32)}`);
    expect(errorView(unknown.status, unknown.errorBody)).toMatchObject({ http: 404, reason: 'QUOTE_NOT_FOUND' });

    const user = g.newUser();
    const q = await g.gaslessQuote('base', base.USDC, user.address, '1000000');
    // The streams closed above are counted down when the gateway sees the close: retry until admitted.
    const openOk = async () => {
      const deadline = Date.now() + 5000;
      for (;;) {
        const h = await open(q['quote_hash']);
        if (h.status === 200 || Date.now() > deadline) return h;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const held: SseClient[] = [];
    for (let i = 0; i < 3; i++) held.push(await openOk());
    for (const h of held) expect(h.status).toBe(200);
    const fourth = await open(q['quote_hash']);
    expect(errorView(fourth.status, fourth.errorBody)).toMatchObject({ http: 429, reason: 'TOO_MANY_STREAMS', metadata: { max_streams: '3' } });
    held[0]!.close();
    // Once one is closed, the caller may open another.
    const fifth = await openOk();
    expect(fifth.status).toBe(200);
    for (const h of [...held, fifth]) h.close();
  });

  it('follows a fill on the destination chain: fulfilled in the stream and in the view, with the fill transaction', async () => {
    const { user, q, order, s } = await deposited(25_000_000n);
    // A filler (the dev key) delivers amount_out of arbitrum USDC to the recipient on arbitrum's router.
    const amountOut = BigInt(q['amount_out']);
    await g.mint('arbitrum', ARB_USDC, privateKeyToAccount(ANVIL_DEV_KEY).address, amountOut);
    await g.send('arbitrum', { to: ARB_USDC, data: approveCalldata(routers['arbitrum']!, maxUint256) });
    const fill = await g.send('arbitrum', fillTx(order, amountOut, routers['arbitrum']!));
    expect(fill.status).toBe('success');
    const done = await s.next((e) => view(e)['status'] === 'fulfilled');
    expect(view(done)['fulfillment']).toEqual({
      chain: 'arbitrum',
      tx_hash: fill.transactionHash,
      block_number: fill.blockNumber.toString(),
      at: expect.stringMatching(/^20\d\d-/),
    });
    expect(await g.balanceOf('arbitrum', ARB_USDC, user.address)).toBe(amountOut);
    expect((await g.order(q['quote_hash'])).body).toEqual(view(done));
    s.close();
  });

  it('follows a refund on the source chain: refunded, and the deposit back at the refund address', async () => {
    const { user, order, s } = await deposited(7_000_000n);
    expect(await g.balanceOf('base', base.USDC, user.address)).toBe(0n);
    // A cross-chain order is refundable only once its destination can no longer fill it: after its
    // expiry, the routers' fill window and a margin. Move base's clock past that first.
    const refundable = order.expiresAt + BigInt(DEV_FILL_WINDOW_SECS) + 600n;
    const now = (await g.client('base').getBlock()).timestamp;
    await g.client('base').request({ method: 'evm_increaseTime' as never, params: [Number(refundable - now) + 5] as never });
    await g.client('base').request({ method: 'evm_mine' as never, params: [] as never });
    const refund = await g.send('base', refundTx(order, routers['base']!), privateKeyToAccount(DEV_REFUNDER_KEY));
    expect(refund.status).toBe('success');
    const done = await s.next((e) => view(e)['status'] === 'refunded');
    expect(view(done)['refund']).toMatchObject({ chain: 'base', tx_hash: refund.transactionHash });
    expect(view(done)['deposit']).toBeDefined();
    expect(await g.balanceOf('base', base.USDC, user.address)).toBe(7_000_000n);
    s.close();
  });
});

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { approveCalldata } from '@xchain/evm-gasless';
import { type ServiceSpec, UntilTimeout, until } from '@xchain/stack';
import { type Address, type Hex, maxUint256, parseEventLogs } from 'viem';
import { XCHAIN_ROUTER_ABI } from '@xchain/evm-gasless';
import type { E2eStack } from '../support/e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { crossChainOf, gatewayClient } from '../support/http';
import { T } from '../support/registry-fixture';
import { ARB_USDC, PLENTY, type SettlementFixture, filler, startSettlementStack } from '../support/settlement-fixture';
import { SseClient } from '../support/sse';
import { PartnerSession } from '../support/partner-session';

jest.setTimeout(900_000);

const BASE_USDC = LOCAL_TOKENS.base.USDC;
const CHAINS = ['base', 'arbitrum'] as const;
type Chain = (typeof CHAINS)[number];
/** Each service in turn; the relayer first (the case that once left orders queued for minutes). */
const VICTIMS: ServiceSpec['name'][] = ['gasless-relayer', 'quote-engine', 'partner-service', 'price-oracle', 'gateway'];

interface Sent {
  hash: string;
  src: Chain;
}

/** A partner's webhook endpoint that takes every delivery at once. */
async function receiver() {
  const got: { eventId: string; body: any }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      got.push({ eventId: String(req.headers['x-xchain-event-id']), body: JSON.parse(body) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** A connection refused or reset: the gateway instance is gone, as a load balancer would see it. */
const unreachable = (err: unknown) =>
  err instanceof TypeError || /fetch failed|ECONNREFUSED|ECONNRESET|socket/i.test(String((err as Error)?.message ?? err));

/**
 * Two instances of each of the five services on one NATS, Redis and PostgreSQL, under mixed load
 * (quotes, gasless orders from two chains over both gateways, fills, claims, a partner's webhooks,
 * SSE on both gateways). Every service loses one instance to kill -9 in turn, mid-flight, and gets
 * it back afterwards. Every accepted order still finishes, exactly once on chain: no deposit relayed
 * twice, no fill, refund or claim sent twice (no operator or relayer transaction reverted, each
 * router event once per order); no webhook delivered twice; no order state published twice; no
 * answered quote lost; requests fail only around a kill, with 503 or 504.
 */
describe('two instances of every service', () => {
  let e2e: E2eStack;
  let s: SettlementFixture;
  /** One client per gateway instance. */
  let gws: GaslessClient[];
  let hook: Awaited<ReturnType<typeof receiver>>;
  let apiKey: string;
  const sent: Sent[] = [];
  const quotes: string[] = [];
  const streams: { hash: string; sse: SseClient }[] = [];
  /** Gateway instances known dead: calls go to the others, as behind a load balancer. */
  const down = new Set<number>();
  let turn = 0;

  /** Runs `call` on the next live gateway in turn; on a connection error, on the other one. */
  const onGateway = async <R>(call: (g: GaslessClient, i: number) => Promise<R>): Promise<R> => {
    const live = gws.map((_, i) => i).filter((i) => !down.has(i));
    const first = live[turn++ % live.length]!;
    try {
      return await call(gws[first]!, first);
    } catch (err) {
      const other = live.find((i) => i !== first);
      if (!unreachable(err) || other === undefined) throw err;
      return call(gws[other]!, other);
    }
  };

  /** A gasless order of 30 USDC from `src` to the other chain, quoted (with the partner's key when asked) and submitted on gateway `gw`. */
  const gaslessOrder = async (src: Chain, withKey: boolean): Promise<Sent> => {
    const g = gws[0]!;
    const user = g.newUser();
    const token = src === 'base' ? BASE_USDC : ARB_USDC;
    await g.mint(src, token, user.address, 30_000_000n);
    const headers: Record<string, string> = withKey ? { 'x-api-key': apiKey } : {};
    const over = src === 'arbitrum' ? { dst_chain: 'base', dst_token: BASE_USDC } : {};
    const q = await s.retryingInventory(() => onGateway((gw) => gw.gaslessQuote(src, token, user.address, '30000000', headers, over)));
    const body = await g.evmBody(user, q, q['erc2612'] !== undefined);
    const r = await onGateway((gw) => gw.submit(body, headers));
    if (r.status !== 200 || r.body.status !== 'queued') throw new Error(`order refused: ${r.status} ${JSON.stringify(r.body)}`);
    const order = { hash: q['quote_hash'] as string, src };
    sent.push(order);
    return order;
  };

  /** Quotes in a loop on both gateways until stopped; every answer recorded with its time. */
  const load = () => {
    const answers: { at: number; status: number | 'unreachable'; gateway: number }[] = [];
    let running = true;
    const loop = async (gateway: number) => {
      while (running) {
        if (down.has(gateway)) {
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        const api = gatewayClient(e2e.gatewayUrls[gateway]!);
        try {
          const q = await api.getQuote({
            src_chain: 'base',
            dst_chain: 'arbitrum',
            src_token: BASE_USDC,
            dst_token: T.arbitrum.USDC,
            trade_type: 'TRADE_TYPE_EXACT_INPUT',
            amount: '5000000',
            gas_drop: '',
            recipient: filler.address,
            refund_address: filler.address,
          });
          quotes.push(crossChainOf(q).quote_hash);
          answers.push({ at: Date.now(), status: 200, gateway });
        } catch (err) {
          const status = unreachable(err) ? 'unreachable' : ((err as { httpStatus?: number }).httpStatus ?? -1);
          answers.push({ at: Date.now(), status, gateway });
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    };
    const loops = [loop(0), loop(1)];
    return {
      answers,
      async stop() {
        running = false;
        await Promise.all(loops);
        return answers;
      },
    };
  };

  /** The order's event stream on every gateway instance. */
  const watch = async (hash: string) => {
    for (const url of e2e.gatewayUrls) {
      const sse = await SseClient.open(`${url}/json/v1/orders/${hash}/events`);
      expect(sse.status).toBe(200);
      streams.push({ hash, sse });
    }
  };
  /**
   * Every stream saw its order fulfilled, and no view twice (an event's id is a digest of its
   * view); then they are closed, as a wallet does, which keeps the suite under the per-caller cap.
   */
  const checkStreams = async () => {
    for (const { hash, sse } of streams.splice(0)) {
      await sse.next((e) => e.event === 'order' && JSON.parse(e.data).status === 'fulfilled', 0, 10_000);
      const ids = sse.events.filter((e) => e.event === 'order').map((e) => e.id);
      expect({ hash, repeated: ids.length - new Set(ids).size }).toEqual({ hash, repeated: 0 });
      sse.close();
    }
  };

  const kill = async (name: ServiceSpec['name'], index: number) => {
    const proc = e2e.stack.instances.get(name)![index]!;
    const exited = new Promise((r) => proc.child.once('exit', r));
    proc.child.kill('SIGKILL');
    await exited;
  };

  const fulfilled = (hash: string) => onGateway((g) => g.waitOrder(hash, (v) => v.status === 'fulfilled', 5_000)).catch(() => undefined);
  const allFulfilled = async (orders: Sent[], timeoutMs: number) => {
    let open = orders;
    await until(
      'every order fulfilled',
      async () => {
        const views = await Promise.all(open.map((o) => fulfilled(o.hash)));
        open = open.filter((_, i) => views[i] === undefined);
        return open.length === 0;
      },
      { timeoutMs, everyMs: 0, failOnError: true },
    ).catch(async (err: unknown) => {
      if (!(err instanceof UntilTimeout)) throw err;
      const last = await Promise.all(open.map((o) => onGateway((g) => g.order(o.hash))));
      throw new Error(`${open.length} orders not fulfilled within ${timeoutMs} ms: ${JSON.stringify(last.map((l) => l.body))}`);
    });
  };

  beforeAll(async () => {
    ({ e2e, s } = await startSettlementStack({}, { replicas: 2, devnet: { chains: [...CHAINS] } }));
    const rpcUrls = new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl]));
    gws = e2e.gatewayUrls.map((url) => new GaslessClient(url, rpcUrls));
    // The operator fills on both chains: arbitrum USDC (the fixture approved its router) and base USDC.
    await s.setInventory(PLENTY);
    await gws[0]!.mint('base', BASE_USDC, filler.address, PLENTY);
    await gws[0]!.send('base', { to: BASE_USDC, data: approveCalldata(s.routers['base']!, maxUint256) }, filler);
    hook = await receiver();
    const partner = await PartnerSession.create(e2e, 'replicas@example.com', { key: 'main' });
    apiKey = partner.key;
    await partner.session.setPartnerWebhook({ url: hook.url });
  }, 300_000);

  afterAll(async () => {
    for (const { sse } of streams) sse.close();
    await hook?.close();
    await e2e?.stop();
  });

  it('serves orders from both gateways with both instances of everything alive', async () => {
    expect(e2e.gatewayUrls).toHaveLength(2);
    const batch = await Promise.all([
      gaslessOrder('base', true),
      gaslessOrder('arbitrum', false),
      gaslessOrder('base', false),
      gaslessOrder('arbitrum', true),
    ]);
    for (const o of batch) await watch(o.hash);
    await allFulfilled(batch, 120_000);
    await checkStreams();
  });

  for (const victim of VICTIMS) {
    it(`finishes every order when one ${victim} instance is killed mid-flight`, async () => {
      const running = load();
      // The relayer gets more: every lane busy on both instances when one dies.
      const n = victim === 'gasless-relayer' ? 4 : 1;
      const before = await Promise.all([
        ...Array.from({ length: n }, (_, i) => gaslessOrder('base', i % 2 === 0)),
        ...Array.from({ length: n }, (_, i) => gaslessOrder('arbitrum', i % 2 === 1)),
        gaslessOrder('base', false),
      ]);
      if (victim !== 'gateway') for (const o of before.slice(0, 3)) await watch(o.hash);
      const killedAt = Date.now();
      if (victim === 'gateway') down.add(1);
      await kill(victim, 1);
      const after = await Promise.all([
        ...Array.from({ length: n }, () => gaslessOrder('arbitrum', false)),
        ...Array.from({ length: n }, () => gaslessOrder('base', true)),
      ]);
      await allFulfilled([...before, ...after], 120_000);
      await checkStreams();
      const answers = await running.stop();

      // Requests fail only around the kill (in flight to the dead instance, or its queue-group
      // share until the bus notices), with a documented 503 or 504, never a 500.
      const failed = answers.filter((a) => a.status !== 200 && a.status !== 'unreachable');
      expect(failed.filter((a) => a.status !== 503 && a.status !== 504)).toEqual([]);
      expect(failed.filter((a) => a.at > killedAt + 15_000)).toEqual([]);
      expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);

      await e2e.stack.restart(victim, 1);
      down.delete(1);
    });
  }

  it('did everything exactly once: on chain, in webhooks, in order states, and lost no answered quote', async () => {
    // Claims come after fills, in batches: wait until every order's deposit went to the treasury.
    const claimedOnce = async () => {
      for (const o of sent) if ((await s.routerEvents(o.src, 'Claimed', o.hash)).length !== 1) return false;
      return true;
    };
    await until('every order claimed once', claimedOnce, { timeoutMs: 60_000, everyMs: 500, failOnError: true });

    // Each order: deposited once on its source, filled once on its destination, never cancelled or refunded.
    for (const o of sent) {
      const dst: Chain = o.src === 'base' ? 'arbitrum' : 'base';
      expect({ hash: o.hash, deposited: (await gws[0]!.deposits(o.src, s.routers[o.src]! as Address, o.hash as Hex)).length }).toEqual({
        hash: o.hash,
        deposited: 1,
      });
      expect({ hash: o.hash, filled: (await s.routerEvents(dst, 'Filled', o.hash)).length }).toEqual({ hash: o.hash, filled: 1 });
      expect((await s.routerEvents(dst, 'Cancelled', o.hash)).length + (await s.routerEvents(o.src, 'Refunded', o.hash)).length).toBe(0);
    }

    // Every transaction the relayer's wallets and the operator sent, in every block of both chains:
    // none reverted (a second send of anything would), and the relayer sent one per gasless order.
    for (const chain of CHAINS) {
      const client = gws[0]!.client(chain);
      const head = await client.getBlockNumber();
      const senders = new Set([...e2e.relayerWallets, filler.address].map((a) => a.toLowerCase()));
      const ours: { from: string; hash: Hex }[] = [];
      for (let n = 0n; n <= head; n++) {
        const block = await client.getBlock({ blockNumber: n, includeTransactions: true });
        for (const tx of block.transactions)
          if (senders.has(tx.from.toLowerCase())) ours.push({ from: tx.from.toLowerCase(), hash: tx.hash });
      }
      const receipts = await Promise.all(ours.map((t) => client.getTransactionReceipt({ hash: t.hash })));
      const reverted = receipts.filter((r) => r.status !== 'success').map((r) => r.transactionHash);
      expect({ chain, reverted }).toEqual({ chain, reverted: [] });
      const relayed = ours.filter((t) => t.from !== filler.address.toLowerCase()).length;
      expect({ chain, relayed }).toEqual({ chain, relayed: sent.filter((o) => o.src === chain).length });
      // The operator's router calls each did something: a fill, a claim (one or more orders), nothing else.
      const operatorLogs = receipts.filter(
        (r) => r.from.toLowerCase() === filler.address.toLowerCase() && r.to?.toLowerCase() === s.routers[chain]!.toLowerCase(),
      );
      for (const r of operatorLogs) {
        const events = parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: r.logs }).map((l) => l.eventName);
        expect(events.some((e) => e === 'Filled' || e === 'Claimed')).toBe(true);
      }
    }

    // The partner's webhooks: every event delivered once; no order state published twice.
    const partnerOrders = new Set(hook.got.map((d) => d.body.data.quote_hash as string));
    expect(partnerOrders.size).toBeGreaterThan(0);
    const ids = hook.got.map((d) => d.eventId);
    expect(ids.length).toBe(new Set(ids).size);
    const states = hook.got.map((d) => `${d.body.data.quote_hash} ${stateOf(d.body.data)}`);
    expect(
      hook.got.filter((d, i) => states.indexOf(states[i]!) !== i).map((d) => ({ event: d.eventId, status: d.body.data.status })),
    ).toEqual([]);
    for (const hash of partnerOrders)
      expect({ hash, fulfilled: hook.got.some((d) => d.body.data.quote_hash === hash && d.body.data.status === 'fulfilled') }).toEqual({
        hash,
        fulfilled: true,
      });

    // Every quote answered 200 under load is still there, whichever instance stored it.
    const answered = quotes.filter((q) => q !== '');
    expect(answered.length).toBeGreaterThan(0);
    for (const hash of answered) expect((await onGateway((g) => g.order(hash))).status).toBe(200);
  });
});

/** An order view without what changes by itself over time: two equal ones are one state published twice. */
function stateOf(order: Record<string, unknown>): string {
  const { updated_at: _u, ...rest } = order;
  return JSON.stringify(rest);
}

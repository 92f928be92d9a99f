import { writeFileSync } from 'node:fs';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { XchainApiError } from '@xchain/client';
import {
  GASLESS_EVENT_CONSUMERS,
  GASLESS_EVENTS_STREAM,
  ORDER_EVENT_CONSUMERS,
  ORDER_EVENTS_STREAM,
  ORDER_UPDATE_CONSUMERS,
  ORDER_UPDATES_STREAM,
  PRICES_BUCKET,
} from '@xchain/contracts';
import type { NatsConnection } from '@xchain/messaging';
import { type NatsClusterMember, until } from '@xchain/stack';
import type { PrivateKeyAccount } from 'viem/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { gatewayClient } from '../support/http';
import { EVM_REFUND, EVM_USER, USDC_ETH_TO_ARB } from '../support/registry-fixture';
import { SseClient } from '../support/sse';

jest.setTimeout(420_000);

const USDC = (n: number) => BigInt(n) * 10n ** 6n;
const KV_STREAM = `KV_${PRICES_BUCKET}`;
const STREAMS = [ORDER_EVENTS_STREAM, ORDER_UPDATES_STREAM, GASLESS_EVENTS_STREAM, KV_STREAM];
/** The durable consumers of the system, each read as the service that owns it (its user may read only its own). */
const DURABLES = [
  { user: 'quote-engine', stream: ORDER_EVENTS_STREAM, durable: ORDER_EVENT_CONSUMERS.quoteEngine },
  { user: 'quote-engine', stream: GASLESS_EVENTS_STREAM, durable: GASLESS_EVENT_CONSUMERS.orderUpdates },
  { user: 'partner-service', stream: ORDER_EVENTS_STREAM, durable: ORDER_EVENT_CONSUMERS.referrals },
  { user: 'partner-service', stream: ORDER_UPDATES_STREAM, durable: ORDER_UPDATE_CONSUMERS.webhooks },
] as const;

/**
 * Reads the order updates stream from the start with an ordered consumer, as nothing in the system does yet (the
 * partner-service's durable acks them away): only what that needs, on that one stream.
 */
const UPDATES_READER = 'test-updates-reader';
const UPDATES_API = `$JS.API.CONSUMER`;
const READER = {
  [UPDATES_READER]: {
    publish: [
      '$JS.API.INFO',
      `$JS.API.STREAM.INFO.${ORDER_UPDATES_STREAM}`,
      `${UPDATES_API}.CREATE.${ORDER_UPDATES_STREAM}`,
      `${UPDATES_API}.CREATE.${ORDER_UPDATES_STREAM}.>`,
      `${UPDATES_API}.INFO.${ORDER_UPDATES_STREAM}.>`,
      `${UPDATES_API}.DELETE.${ORDER_UPDATES_STREAM}.>`,
      `${UPDATES_API}.MSG.NEXT.${ORDER_UPDATES_STREAM}.>`,
      `$JS.FC.${ORDER_UPDATES_STREAM}.>`,
    ],
  },
};

/** Load before the first kill; how long each member stays down; load after the last one is back. */
const BEFORE_MS = 8_000;
const DOWN_MS = 10_000;
const TAIL_MS = 5_000;
const QUOTE_WORKERS = 4;
const GASLESS_WORKERS = 2;
const ORDERS = 60;
/** One gasless order due every this often (over both workers): 60 cover about 80 s of load. */
const ORDER_EVERY_MS = 1_300;
/** Loose on purpose (a shared, loaded machine): answers come back within this of the kill. */
const RECOVERY_BOUND_MS = 15_000;

interface Call {
  kind: 'quote' | 'gasless';
  /** ms since the load began, when sent and when answered. */
  sent: number;
  ms: number;
  status: number;
  reason?: string;
}

/**
 * NATS as a three-member JetStream cluster, streams and the prices bucket at three replicas. Under
 * a steady load of stored quotes and gasless orders through the gateway, each member in turn is
 * killed with kill -9, stays down 10 s and is restarted, one down at a time: first the one leading
 * the most streams (the hard case: those streams elect new leaders), and since every member dies
 * once, every service's connection is cut once, whichever member it chose. Nothing accepted is
 * lost, every durable consumer resumes, and answers come back within seconds; a request caught in
 * between fails with a documented 503 or 504, never a 500.
 */
describe('a NATS cluster member killed with kill -9 under quote and gasless load', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let qe: NatsConnection;
  let ps: NatsConnection;
  const jsmOf = async (user: string): Promise<JetStreamManager> => jetstreamManager(user === 'partner-service' ? ps : qe);

  beforeAll(async () => {
    e2e = await startE2eStack(
      // Prices keep being written (every second) so the bucket is under load too; a generous age keeps quotes from failing on a late one.
      { PRICE_MAX_AGE_SECS: '7200', RELAY_POLL_MS: '200', RELAY_SWEEP_MS: '1000', CHAIN_WATCH_POLL_MS: '300' },
      { devnet: { chains: ['ethereum', 'base'] }, natsCluster: true, testUsers: READER },
    );
    g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
    qe = await e2e.connectAs('quote-engine');
    ps = await e2e.connectAs('partner-service');
  }, 300_000);

  afterAll(async () => {
    await qe?.close().catch(() => undefined);
    await ps?.close().catch(() => undefined);
    await e2e?.stop();
  });

  it('runs three members, the services given every member’s URL, and every stream and the prices bucket at three replicas', async () => {
    const cluster = e2e.stack.natsCluster!;
    expect(cluster.members.map((m) => m.running())).toEqual([true, true, true]);
    expect(e2e.stack.env['NATS_URL']!.split(',')).toHaveLength(3);
    expect(e2e.stack.env['NATS_STREAM_REPLICAS']).toBe('3');
    // One order through, so that every stream exists (the relay events stream is made by the first status).
    const warm = await fundedOrder('base');
    expect((await g.submit(warm.body)).status).toBe(200);
    await g.waitOrder(warm.q['quote_hash'], (v) => v.gasless?.status === 'confirmed' && v.status === 'deposited', 90_000);
    const jsm = await jsmOf('quote-engine');
    for (const s of STREAMS) {
      await until(
        `${s} with three current copies`,
        async () => {
          const info = await jsm.streams.info(s);
          return info.config.num_replicas === 3 && (info.cluster?.replicas ?? []).filter((r) => r.current).length === 2;
        },
        { timeoutMs: 30_000, everyMs: 100 },
      );
    }
  });

  it('loses no accepted quote or order, resumes every durable consumer and answers again within seconds, whichever member dies', async () => {
    const cluster = e2e.stack.natsCluster!;
    const api = gatewayClient(e2e.gatewayUrl);
    const jsm = await jsmOf('quote-engine');

    // Funded wallets first (minting is one transaction at a time per chain): the load then only quotes, signs and submits.
    const prepared = await Promise.all(Array.from({ length: ORDERS }, (_, i) => fundedWallet(i % 2 ? 'base' : 'ethereum')));

    const calls: Call[] = [];
    const quotes: string[] = [];
    const accepted: { hash: string; at: number }[] = [];
    const t0 = performance.now();
    const now = () => performance.now() - t0;
    let stopped = false;
    const record = (kind: Call['kind'], sent: number, status: number, reason?: string) =>
      calls.push({ kind, sent, ms: now() - sent, status, ...(reason !== undefined ? { reason } : {}) });
    const failure = (err: unknown): { status: number; reason?: string } => {
      if (err instanceof XchainApiError) return { status: err.httpStatus, ...(err.reason !== undefined ? { reason: err.reason } : {}) };
      // Not an HTTP answer at all (the gateway unreachable): counted as a failure of its own kind.
      return { status: 0, reason: err instanceof Error ? err.name : String(err) };
    };

    const quoteWorker = async () => {
      const body = { ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND };
      while (!stopped) {
        const sent = now();
        try {
          const q = await api.getQuote(body);
          quotes.push(('cross_chain' in q ? q.cross_chain : q.same_chain_swap).quote_hash.toLowerCase());
          record('quote', sent, 200);
        } catch (err) {
          const f = failure(err);
          record('quote', sent, f.status, f.reason);
          await sleep(100);
        }
      }
    };
    let next = 0;
    const gaslessWorker = async () => {
      while (!stopped && next < prepared.length) {
        // Paced, so that orders are made before, during and after each kill.
        const k = next++;
        const { user, chain } = prepared[k]!;
        await sleep(Math.max(0, k * ORDER_EVERY_MS - now()));
        const token = chain === 'base' ? LOCAL_TOKENS.base.USDC : LOCAL_TOKENS.ethereum.USDC;
        // A wallet quotes, signs and submits; a 503 or 504 is retried as any client would (the same quote is one order, D7).
        for (let attempt = 1; attempt <= 40; attempt++) {
          const sent = now();
          try {
            const q = await g.gaslessQuote(chain, token, user.address, USDC(5).toString());
            record('gasless', sent, 200);
            const body = await g.evmBody(user, q, true);
            let done = false;
            for (let submit = 1; submit <= 40 && !done; submit++) {
              const s0 = now();
              const r = await g.submit(body);
              record('gasless', s0, r.status, r.status === 200 ? undefined : r.body?.details?.find((d: any) => d.reason)?.reason);
              if (r.status === 200) {
                accepted.push({ hash: q['quote_hash'], at: s0 });
                done = true;
              } else if (r.status === 503 || r.status === 504) await sleep(250);
              else throw new Error(`submit refused: ${r.status} ${JSON.stringify(r.body)}`);
            }
            break;
          } catch (err) {
            if (err instanceof Error && err.message.startsWith('submit refused')) throw err;
            const f = failure(err);
            record('gasless', sent, f.status, f.reason);
            await sleep(250);
          }
        }
      }
    };

    const load = Promise.all([
      ...Array.from({ length: QUOTE_WORKERS }, quoteWorker),
      ...Array.from({ length: GASLESS_WORKERS }, gaslessWorker),
    ]);
    const rounds: { victim: NatsClusterMember; leaderOf: string[]; killAt: number; until: number }[] = [];
    let seqBefore: Record<string, number> = {};
    try {
      await sleep(BEFORE_MS);
      // Every member in turn, one down at a time, so that every service's connection is cut once whichever member it
      // chose; first the one leading the most streams (prices bucket included): they all elect new leaders.
      const order: NatsClusterMember[] = [];
      for (let round = 0; round < cluster.members.length; round++) {
        const leaders = await Promise.all(STREAMS.map(async (s) => (await jsm.streams.info(s)).cluster!.leader!));
        const left = cluster.members.filter((m) => !order.includes(m));
        const led = (m: NatsClusterMember) => leaders.filter((l) => l === m.serverName).length;
        const victim = [...left].sort((a, b) => led(b) - led(a))[0]!;
        order.push(victim);
        if (round === 0)
          seqBefore = Object.fromEntries(
            await Promise.all(STREAMS.map(async (s) => [s, (await jsm.streams.info(s)).state.last_seq] as const)),
          );
        const killAt = now();
        await victim.kill();
        expect(victim.running()).toBe(false);
        await sleep(DOWN_MS);
        // Back on its store; the next kill waits until it holds a current copy of every stream again (never two down).
        await victim.restart();
        for (const s of STREAMS) {
          await until(
            `${s} current on ${victim.serverName} again`,
            async () => {
              const info = await jsm.streams.info(s);
              return (
                info.cluster?.leader === victim.serverName ||
                (info.cluster?.replicas ?? []).some((r) => r.name === victim.serverName && r.current)
              );
            },
            { timeoutMs: 60_000, everyMs: 100 },
          );
        }
        rounds.push({ victim, leaderOf: STREAMS.filter((_, i) => leaders[i] === victim.serverName), killAt, until: now() });
      }
      await sleep(TAIL_MS);
    } finally {
      stopped = true;
      await load;
    }
    // Measured first, so that a failing run still says what happened.
    const report = {
      accepted: accepted.length,
      acceptedAfterFirstKill: accepted.filter((a) => a.at > rounds[0]!.killAt).length,
      rounds: rounds.map((r) => ({
        victim: r.victim.serverName,
        leaderOf: r.leaderOf,
        killAtMs: Math.round(r.killAt),
        downAndCatchUpMs: Math.round(r.until - r.killAt),
        ...recoveryOf(calls, r.killAt, r.until),
      })),
      whole: recoveryOf(calls, rounds[0]!.killAt, now()),
    };
    writeFileSync(`/tmp/natscluster-e2e-report-${process.pid}.json`, JSON.stringify({ ...report, calls }, null, 1));
    console.log(JSON.stringify(report, null, 1));

    // An order after the kills, followed over its event stream from before it is relayed: the relay events reach the
    // quote-engine's durable consumer, whose pushed views reach the gateway.
    const late = await fundedOrder('ethereum');
    const sse = await SseClient.open(`${e2e.gatewayUrl}/json/v1/orders/${late.q['quote_hash']}/events`);
    expect((await g.submit(late.body)).status).toBe(200);
    const confirmed = await sse.next((e) => e.event === 'order' && JSON.parse(e.data).gasless?.status === 'confirmed', 0, 90_000);
    sse.close();
    expect(JSON.parse(confirmed.data).quote_hash).toBe(late.q['quote_hash']);

    // --- Nothing accepted is lost. ---
    expect(quotes.length).toBeGreaterThan(0);
    expect(new Set(quotes).size).toBe(quotes.length);
    const missing: string[] = [];
    for (let i = 0; i < quotes.length; i += 32) {
      const batch = quotes.slice(i, i + 32);
      const answers = await Promise.all(batch.map((h) => g.order(h)));
      answers.forEach((a, j) => {
        if (a.status !== 200 || a.body.quote_hash?.toLowerCase() !== batch[j]) missing.push(`${batch[j]}: ${a.status}`);
      });
    }
    expect(missing).toEqual([]);
    expect(report.acceptedAfterFirstKill).toBeGreaterThan(0);
    // Every accepted order is relayed, confirmed and its deposit recorded (the chain watcher's events through the
    // order events stream and the quote-engine's durable consumer).
    const views = await Promise.all(
      accepted.map((a) => g.waitOrder(a.hash, (v) => v.gasless?.status === 'confirmed' && v.status === 'deposited', 180_000)),
    );
    expect(views.map((v) => v.gasless.status)).toEqual(accepted.map(() => 'confirmed'));

    // --- Every durable consumer resumed: it read its stream to the end, messages written after the kills included. ---
    for (const d of DURABLES) {
      const m = await jsmOf(d.user);
      await until(
        `${d.durable} caught up`,
        async () => {
          const [c, s] = await Promise.all([m.consumers.info(d.stream, d.durable), m.streams.info(d.stream)]);
          return c.num_pending === 0 && c.num_ack_pending === 0 && c.delivered.stream_seq === s.state.last_seq;
        },
        { timeoutMs: 60_000, everyMs: 100 },
      );
    }
    for (const s of STREAMS) expect([s, (await jsm.streams.info(s)).state.last_seq > seqBefore[s]!]).toEqual([s, true]);

    // --- No order's last pushed view is lost (D13: what webhooks and event streams carry): each accepted order's last
    // update on the stream shows it confirmed and deposited, even where a relay event was due while its leader died. ---
    const lastPushed = await lastUpdates();
    const notPushed = accepted
      .map((a) => ({ hash: a.hash, order: lastPushed.get(a.hash.toLowerCase()) }))
      .filter((x) => x.order?.gasless?.status !== 'confirmed' || x.order?.status !== 'deposited')
      .map((x) => `${x.hash}: ${x.order ? `${x.order.status}/${x.order.gasless?.status}` : 'never pushed'}`);
    expect(notPushed).toEqual([]);

    // --- Answers: only documented failures, and back within seconds of each kill. ---
    const unexpected = calls.filter((c) => c.status !== 200 && c.status !== 503 && c.status !== 504);
    expect(unexpected).toEqual([]);
    expect(rounds.map((r) => r.victim.serverName).sort()).toEqual(['nats-0', 'nats-1', 'nats-2']);
    for (const r of report.rounds) {
      expect({
        victim: r.victim,
        quote: r.quote.firstOkAfterKillMs <= RECOVERY_BOUND_MS,
        gasless: r.gasless.firstOkAfterKillMs <= RECOVERY_BOUND_MS,
      }).toEqual({ victim: r.victim, quote: true, gasless: true });
    }
  });

  /** The last order view pushed for each quote hash on the order updates stream (read to its end). */
  async function lastUpdates(): Promise<Map<string, any>> {
    const reader = await e2e.connectAs(UPDATES_READER);
    // The client retries a refused pull quietly: a bounded wait turns that into a failure that says so.
    const timer = setTimeout(() => void reader.close(), 60_000);
    try {
      const last = new Map<string, any>();
      const consumer = await jetstream(reader).consumers.get(ORDER_UPDATES_STREAM);
      const messages = await consumer.consume();
      let done = false;
      for await (const m of messages) {
        const update = JSON.parse(m.string());
        const hash = update.quote_hash.toLowerCase();
        if ((last.get(hash)?.version ?? 0) < update.version) last.set(hash, { ...update.order, version: update.version });
        if (m.info.pending === 0) {
          done = true;
          break;
        }
      }
      if (!done) throw new Error(`the order updates stream was not read to its end within 60 s (${last.size} orders read)`);
      return last;
    } finally {
      clearTimeout(timer);
      await reader.close();
    }
  }

  async function fundedWallet(chain: 'base' | 'ethereum'): Promise<{ user: PrivateKeyAccount; chain: 'base' | 'ethereum' }> {
    const user = g.newUser();
    await g.mint(chain, chain === 'base' ? LOCAL_TOKENS.base.USDC : LOCAL_TOKENS.ethereum.USDC, user.address, USDC(5));
    return { user, chain };
  }

  async function fundedOrder(chain: 'base' | 'ethereum') {
    const { user } = await fundedWallet(chain);
    const q = await g.gaslessQuote(
      chain,
      chain === 'base' ? LOCAL_TOKENS.base.USDC : LOCAL_TOKENS.ethereum.USDC,
      user.address,
      USDC(5).toString(),
    );
    return { q, body: await g.evmBody(user, q, true) };
  }
});

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

const pct = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);

/**
 * What a kill did to the answers, per kind, over the calls answered from 3 s before it until `until`
 * (the member back and current): the first success sent after it and the end of the last failure
 * (ms from the kill), the longest time between two answered successes, the failures by status and
 * the longest run of consecutive failures, and p50/p99 latency of successes in the 8 s before the
 * kill and from 5 s after it to `until`.
 */
function recoveryOf(calls: Call[], killAt: number, until: number) {
  const of = (kind: Call['kind']) => {
    const all = calls.filter((c) => c.kind === kind).sort((a, b) => a.sent - b.sent);
    // By when each was answered: a call in flight at a kill fails because of that kill, however early it was sent.
    const mine = all.filter((c) => c.sent + c.ms >= killAt - 3000 && c.sent + c.ms < until);
    const ok = mine.filter((c) => c.status === 200);
    const firstOk = ok.find((c) => c.sent >= killAt);
    const answeredAt = ok.map((c) => c.sent + c.ms).sort((a, b) => a - b);
    let longestGapMs = 0;
    for (let i = 1; i < answeredAt.length; i++) longestGapMs = Math.max(longestGapMs, answeredAt[i]! - answeredAt[i - 1]!);
    const failed: Record<string, number> = {};
    for (const c of mine.filter((x) => x.status !== 200))
      failed[`${c.status}${c.reason ? ` ${c.reason}` : ''}`] = (failed[`${c.status}${c.reason ? ` ${c.reason}` : ''}`] ?? 0) + 1;
    let run = 0;
    let longestFailureRun = 0;
    for (const c of mine) {
      run = c.status === 200 ? 0 : run + 1;
      longestFailureRun = Math.max(longestFailureRun, run);
    }
    const lat = (from: number, to: number) =>
      all
        .filter((c) => c.status === 200)
        .filter((c) => c.sent >= from && c.sent < to)
        .map((c) => c.ms)
        .sort((a, b) => a - b);
    const before = lat(killAt - 8000, killAt);
    const after = lat(killAt + 5000, until);
    return {
      calls: mine.length,
      ok: ok.length,
      failed,
      longestFailureRun,
      longestGapBetweenAnswersMs: Math.round(longestGapMs),
      firstOkAfterKillMs: firstOk ? Math.round(firstOk.sent - killAt) : Number.POSITIVE_INFINITY,
      /** When the last failed call of the window got its answer, from the kill (0: none failed). */
      failuresEndMs: Math.round(
        Math.max(0, ...mine.filter((c) => c.status !== 200 && c.sent + c.ms >= killAt).map((c) => c.sent + c.ms - killAt)),
      ),
      slowestAroundKillMs: Math.round(
        Math.max(0, ...ok.filter((c) => c.sent >= killAt - 3000 && c.sent < killAt + 15_000).map((c) => c.ms)),
      ),
      before: { n: before.length, p50: pct(before, 50), p99: pct(before, 99) },
      after: { n: after.length, p50: pct(after, 50), p99: pct(after, 99) },
    };
  };
  return { quote: of('quote'), gasless: of('gasless') };
}

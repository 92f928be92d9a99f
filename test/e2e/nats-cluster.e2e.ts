import { writeFileSync } from 'node:fs';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
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
import { type NatsClusterMember, waitFor } from '@xchain/stack';
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

/** Load before the kill, and after it. */
const BEFORE_MS = 10_000;
const AFTER_MS = 30_000;
const QUOTE_WORKERS = 4;
const GASLESS_WORKERS = 2;
const ORDERS = 36;
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
 * a steady load of stored quotes and gasless orders through the gateway, the member leading the
 * most streams is killed with kill -9 (the hard case: those streams elect new leaders, and the
 * services connected to it reconnect to the others). Nothing accepted is lost, every durable
 * consumer resumes, and answers come back within seconds; a request caught in between fails with
 * a documented 503 or 504, never a 500.
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
      { devnet: { chains: ['ethereum', 'base'] }, natsCluster: true },
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

  it('runs three members, the services connected to all of them and every stream and the prices bucket at three replicas', async () => {
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
      await waitFor(`${s} with three current copies`, async () => {
        const info = await jsm.streams.info(s);
        return info.config.num_replicas === 3 && (info.cluster?.replicas ?? []).filter((r) => r.current).length === 2;
      }, 30_000);
    }
  });

  it('loses no accepted quote or order, resumes every durable consumer and answers again within seconds', async () => {
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
    let killAt = -1;
    let stopAt = Number.POSITIVE_INFINITY;
    const record = (kind: Call['kind'], sent: number, status: number, reason?: string) =>
      calls.push({ kind, sent, ms: now() - sent, status, ...(reason !== undefined ? { reason } : {}) });
    const failure = (err: unknown): { status: number; reason?: string } => {
      if (err instanceof XchainApiError) return { status: err.httpStatus, ...(err.reason !== undefined ? { reason: err.reason } : {}) };
      // Not an HTTP answer at all (the gateway unreachable): counted as a failure of its own kind.
      return { status: 0, reason: err instanceof Error ? err.name : String(err) };
    };

    const quoteWorker = async () => {
      const body = { ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND };
      while (now() < stopAt) {
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
      while (now() < stopAt && next < prepared.length) {
        // Spread over the whole run, before and after the kill: order k is due at k × (run / orders).
        const k = next++;
        const { user, chain } = prepared[k]!;
        await sleep(Math.max(0, (k * (BEFORE_MS + AFTER_MS)) / prepared.length - now()));
        const token = chain === 'base' ? LOCAL_TOKENS.base.USDC : LOCAL_TOKENS.ethereum.USDC;
        // A wallet quotes, signs and submits; a 503 or 504 is retried as any client would (the same quote is one order, D7).
        for (let attempt = 1; attempt <= 20 && now() < stopAt + 20_000; attempt++) {
          const sent = now();
          try {
            const q = await g.gaslessQuote(chain, token, user.address, USDC(5).toString());
            record('gasless', sent, 200);
            const body = await g.evmBody(user, q, true);
            let done = false;
            for (let submit = 1; submit <= 20 && !done; submit++) {
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

    // Updates keep flowing to a stream opened before the kill, for an order submitted after it (checked below).
    const load = Promise.all([...Array.from({ length: QUOTE_WORKERS }, quoteWorker), ...Array.from({ length: GASLESS_WORKERS }, gaslessWorker)]);
    await sleep(BEFORE_MS);

    // The member leading the most streams (prices bucket included): they all elect new leaders.
    const leaders = await Promise.all(STREAMS.map(async (s) => (await jsm.streams.info(s)).cluster!.leader!));
    const count = new Map<string, number>();
    for (const l of leaders) count.set(l, (count.get(l) ?? 0) + 1);
    const victim: NatsClusterMember = cluster.member([...count.entries()].sort((a, b) => b[1] - a[1])[0]![0]);
    const seqBefore = Object.fromEntries(await Promise.all(STREAMS.map(async (s) => [s, (await jsm.streams.info(s)).state.last_seq] as const)));
    killAt = now();
    await victim.kill();
    expect(victim.running()).toBe(false);

    stopAt = killAt + AFTER_MS;
    await load;
    // Measured first, so that a failing run still says what happened.
    const recovery = recoveryOf(calls, killAt);
    const report = { victim: victim.serverName, leaderOf: STREAMS.filter((_, i) => leaders[i] === victim.serverName), killAtMs: Math.round(killAt), accepted: accepted.length, acceptedAfterKill: accepted.filter((a) => a.at > killAt).length, ...recovery };
    writeFileSync(`/tmp/natscluster-e2e-report-${process.pid}.json`, JSON.stringify({ ...report, calls }, null, 1));
    console.log(JSON.stringify(report, null, 1));

    // An order after the kill, followed over the event stream from before it is relayed: the relay events reach the
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
    for (let i = 0; i < quotes.length; i += 16) {
      const batch = quotes.slice(i, i + 16);
      const answers = await Promise.all(batch.map((h) => g.order(h)));
      answers.forEach((a, j) => {
        if (a.status !== 200 || a.body.quote_hash?.toLowerCase() !== batch[j]) missing.push(`${batch[j]}: ${a.status}`);
      });
    }
    expect(missing).toEqual([]);
    const acceptedAfterKill = accepted.filter((a) => a.at > killAt).length;
    expect(accepted.length).toBeGreaterThan(0);
    expect(acceptedAfterKill).toBeGreaterThan(0);
    // Every accepted order is relayed, confirmed and its deposit recorded (the chain watcher's events through the
    // order events stream and the quote-engine's durable consumer).
    const views = await Promise.all(accepted.map((a) => g.waitOrder(a.hash, (v) => v.gasless?.status === 'confirmed' && v.status === 'deposited', 180_000)));
    expect(views.map((v) => v.gasless.status)).toEqual(accepted.map(() => 'confirmed'));

    // --- Every durable consumer resumed: it read the stream to its end, messages written after the kill included. ---
    for (const d of DURABLES) {
      const m = await jsmOf(d.user);
      await waitFor(`${d.durable} caught up`, async () => {
        const [c, s] = await Promise.all([m.consumers.info(d.stream, d.durable), m.streams.info(d.stream)]);
        return c.num_pending === 0 && c.num_ack_pending === 0 && c.delivered.stream_seq === s.state.last_seq;
      }, 60_000);
    }
    for (const s of STREAMS) expect([s, (await jsm.streams.info(s)).state.last_seq > seqBefore[s]!]).toEqual([s, true]);

    // --- Answers: only documented failures, and back within seconds. ---
    const unexpected = calls.filter((c) => c.status !== 200 && c.status !== 503 && c.status !== 504);
    expect(unexpected).toEqual([]);
    expect(recovery.quote.firstOkAfterKillMs).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
    expect(recovery.gasless.firstOkAfterKillMs).toBeLessThanOrEqual(RECOVERY_BOUND_MS);

    // --- The member comes back, and catches up. ---
    await victim.restart();
    for (const s of STREAMS) {
      await waitFor(`${s} current on ${victim.serverName} again`, async () => {
        const info = await jsm.streams.info(s);
        return info.cluster?.leader === victim.serverName || (info.cluster?.replicas ?? []).some((r) => r.name === victim.serverName && r.current);
      }, 60_000);
    }
  });

  async function fundedWallet(chain: 'base' | 'ethereum'): Promise<{ user: PrivateKeyAccount; chain: 'base' | 'ethereum' }> {
    const user = g.newUser();
    await g.mint(chain, chain === 'base' ? LOCAL_TOKENS.base.USDC : LOCAL_TOKENS.ethereum.USDC, user.address, USDC(5));
    return { user, chain };
  }

  async function fundedOrder(chain: 'base' | 'ethereum') {
    const { user } = await fundedWallet(chain);
    const q = await g.gaslessQuote(chain, chain === 'base' ? LOCAL_TOKENS.base.USDC : LOCAL_TOKENS.ethereum.USDC, user.address, USDC(5).toString());
    return { q, body: await g.evmBody(user, q, true) };
  }
});

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

const pct = (sorted: number[], p: number) => (sorted.length === 0 ? NaN : Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!));

/**
 * What the kill did to the answers, per kind: the first success sent after it (ms from the kill),
 * the longest time between two successes around it (every call in between failed or was slow), the
 * failures by status, and p50/p99 latency of successes before the kill and from 5 s after it.
 */
function recoveryOf(calls: Call[], killAt: number) {
  const of = (kind: Call['kind']) => {
    const mine = calls.filter((c) => c.kind === kind).sort((a, b) => a.sent - b.sent);
    const ok = mine.filter((c) => c.status === 200);
    const firstOk = ok.find((c) => c.sent >= killAt);
    const answeredAt = ok.map((c) => c.sent + c.ms).sort((a, b) => a - b);
    let longestGapMs = 0;
    for (let i = 1; i < answeredAt.length; i++) longestGapMs = Math.max(longestGapMs, answeredAt[i]! - answeredAt[i - 1]!);
    const failed: Record<string, number> = {};
    for (const c of mine.filter((x) => x.status !== 200)) failed[`${c.status}${c.reason ? ` ${c.reason}` : ''}`] = (failed[`${c.status}${c.reason ? ` ${c.reason}` : ''}`] ?? 0) + 1;
    let run = 0;
    let longestFailureRun = 0;
    for (const c of mine) {
      run = c.status === 200 ? 0 : run + 1;
      longestFailureRun = Math.max(longestFailureRun, run);
    }
    const lat = (from: number, to: number) => ok.filter((c) => c.sent >= from && c.sent < to).map((c) => c.ms).sort((a, b) => a - b);
    const before = lat(0, killAt);
    const after = lat(killAt + 5000, Number.POSITIVE_INFINITY);
    return {
      calls: mine.length,
      ok: ok.length,
      failed,
      longestFailureRun,
      longestGapBetweenAnswersMs: Math.round(longestGapMs),
      firstOkAfterKillMs: firstOk ? Math.round(firstOk.sent - killAt) : Number.POSITIVE_INFINITY,
      slowestAroundKillMs: Math.round(Math.max(0, ...ok.filter((c) => c.sent >= killAt - 3000 && c.sent < killAt + 15_000).map((c) => c.ms))),
      before: { n: before.length, p50: pct(before, 50), p99: pct(before, 99) },
      after: { n: after.length, p50: pct(after, 50), p99: pct(after, 99) },
    };
  }
  return { quote: of('quote'), gasless: of('gasless') };
}

import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startDevnet } from '@xchain/devnet';
import { ROOT, freeStackPorts, startStack } from '@xchain/stack';
import type { Address, PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { usdcOf } from './chain-bench';
import {
  type PreparedOrder,
  RawSender,
  chainClient,
  freshFundedAccount,
  minedNonces,
  nowMs,
  pool,
  postJson,
  prepareOrders,
  sleep,
  waitForNonces,
} from './gasless-users';

/**
 * `npm run bench:gasless`: the gasless relayer against a local Base (anvil, a block per
 * transaction). Per section (a fresh chain and stack with 1, then optionally 2, relayer keys):
 * anvil's raw single-sender throughput and relayed deposits per second against it; the first
 * section also measures the accept latency of SubmitGaslessOrder at a fixed arrival rate.
 * Prints figures only; never a test. Always its own stack and chain (BENCH_URL is not used).
 *
 * BENCH_N relayed orders (default 300), BENCH_BASELINE_N raw transactions (default 300: longer bursts of 32 in flight sometimes wedge anvil's pool),
 * BENCH_RELAYER_KEYS sections (default `1`; `1,2` adds a two-wallet run).
 */
const envInt = (name: string, fallback: number, max: number) => {
  const n = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`${name} must be a whole number from 1 to ${max}`);
  return n;
};
const N = envInt('BENCH_N', 300, 2000);
const BASELINE_N = envInt('BENCH_BASELINE_N', 300, 5000);
const KEY_COUNTS = (process.env['BENCH_RELAYER_KEYS'] ?? '1').split(',').map((k) => Number(k.trim()));
if (KEY_COUNTS.some((k) => !Number.isInteger(k) || k < 1 || k > 4))
  throw new Error('BENCH_RELAYER_KEYS: 1 to 4 keys per section, e.g. 1,2');

const IN_FLIGHT = 32;
const POLL_MS = 50;
const WARM_UP = 10;
const RATE_PER_SEC = 100;
const RATE_SECS = 5;
const AMOUNT = 10_000_000n; // 10 USDC per order
const CHAIN = 'base';

const nudged = (n: number) => (n ? `; anvil stalls nudged: ${n}` : '');
const say = (line: string) => console.error(`[bench] ${line}`);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

/** Anvil alone: one EOA, locally signed USDC transfers, 32 in flight, until its mined nonce reaches the count. */
async function baseline(client: PublicClient, rpcUrl: string, usdc: Address): Promise<{ perSec: number; secs: number; nudges: number }> {
  const account = await freshFundedAccount(rpcUrl, 1000n);
  const minter = await RawSender.open(client, await freshFundedAccount(rpcUrl, 10n));
  await minter.send((await minter.signCalls(usdc, 'mint', [account.address], AMOUNT * BigInt(BASELINE_N)))[0]!);
  if ((await waitForNonces(client, [minter.account.address], 1, 20, 10_000)).atMs === undefined) throw new Error('baseline mint not mined');
  const sender = await RawSender.open(client, account);
  const to = Array.from({ length: BASELINE_N }, () => privateKeyToAddress(generatePrivateKey()));
  const raws = await sender.signCalls(usdc, 'transfer', to, 1n);
  const stop = new AbortController();
  const t0 = nowMs();
  // A fresh account starts at nonce 0: the transaction of nonce n is raws[n]. One the node lost is sent again.
  const watch = waitForNonces(client, [account.address], BASELINE_N, POLL_MS, 60_000, stop.signal, async (mined) => {
    if (raws[mined]) await sender.send(raws[mined]);
  });
  try {
    await pool(raws, IN_FLIGHT, (raw) => sender.send(raw));
  } catch (err) {
    stop.abort();
    await watch;
    throw err;
  }
  const done = await watch;
  if (done.atMs === undefined)
    throw new Error(`baseline stalled at ${done.last} of ${BASELINE_N} mined; ${await poolState(client, account.address)}`);
  const secs = (done.atMs - t0) / 1000;
  return { perSec: BASELINE_N / secs, secs, nudges: done.nudges };
}

/** What the node holds for a sender, for a stall's message. */
async function poolState(client: PublicClient, address: Address): Promise<string> {
  const [pending, status, block] = await Promise.all([
    client.getTransactionCount({ address, blockTag: 'pending' }),
    client.request({ method: 'txpool_status' as never, params: [] as never }),
    client.getBlock(),
  ]);
  return `pending nonce ${pending}, txpool ${JSON.stringify(status)}, block ${block.number} base fee ${block.baseFeePerGas} gas used ${block.gasUsed}`;
}

interface Relayed {
  perSec: number;
  secs: number;
  accepted: number;
  nudges: number;
  confirmed: number;
  other: Record<string, number>;
}

/** Submits every order (32 in flight) and times until the relayer wallets' mined nonces grew by the count. */
async function relayed(gatewayUrl: string, client: PublicClient, wallets: Address[], orders: PreparedOrder[]): Promise<Relayed> {
  const before = await minedNonces(client, wallets);
  const stop = new AbortController();
  const t0 = nowMs();
  const watch = waitForNonces(client, wallets, before + orders.length, POLL_MS, 300_000, stop.signal);
  // postJson never rejects: a refused or failed submit shows as its status.
  const answers = await pool(orders, IN_FLIGHT, (o) => postJson(`${gatewayUrl}/json/v1/gasless/orders`, o.body));
  const accepted = answers.filter((a) => a.status === 200).length;
  const refused = answers.find((a) => a.status !== 200);
  if (refused) {
    say(`a submit was answered ${refused.status}: ${JSON.stringify(refused.body).slice(0, 300)}`);
    stop.abort();
  }
  const done = await watch;
  if (done.atMs === undefined)
    throw new Error(`relayed deposits incomplete: ${accepted} of ${orders.length} accepted, mined nonces ${done.last - before}`);
  const secs = (done.atMs - t0) / 1000;
  const views = await confirmedViews(gatewayUrl, orders);
  return { perSec: orders.length / secs, secs, accepted, nudges: done.nudges, ...views };
}

/** Untimed check: every order's view reaches gasless.status `confirmed` (bounded wait). */
async function confirmedViews(gatewayUrl: string, orders: PreparedOrder[]): Promise<{ confirmed: number; other: Record<string, number> }> {
  const deadline = Date.now() + 60_000;
  const other: Record<string, number> = {};
  let confirmed = 0;
  await pool(orders, 8, async (o) => {
    for (;;) {
      let status = 'unanswered';
      try {
        const res = await fetch(`${gatewayUrl}/json/v1/orders/${o.quoteHash}`, { signal: AbortSignal.timeout(10_000) });
        const view = (await res.json()) as { gasless?: { status?: string } };
        status = view.gasless?.status ?? `http ${res.status}, no gasless part`;
      } catch (err) {
        status = err instanceof Error ? err.message : String(err);
      }
      if (status === 'confirmed') return void confirmed++;
      if (Date.now() > deadline) return void (other[status] = (other[status] ?? 0) + 1);
      await sleep(200);
    }
  });
  return { confirmed, other };
}

interface Latency {
  sent: number;
  non200: Record<string, number>;
  p50: number;
  p99: number;
  max: number;
  maxLagMs: number;
  drainSecs?: number;
  nudges: number;
}

/** Open loop: one submit every 1/RATE s whatever is outstanding; latency of each answer. */
async function acceptLatency(gatewayUrl: string, client: PublicClient, wallets: Address[], orders: PreparedOrder[]): Promise<Latency> {
  const before = await minedNonces(client, wallets);
  const intervalMs = 1000 / RATE_PER_SEC;
  const t0 = nowMs();
  let maxLagMs = 0;
  const inFlight: Promise<{ status: number; ms: number }>[] = [];
  for (let i = 0; i < orders.length; i++) {
    const due = t0 + i * intervalMs;
    const wait = due - nowMs();
    if (wait > 0) await sleep(wait);
    maxLagMs = Math.max(maxLagMs, nowMs() - due);
    inFlight.push(postJson(`${gatewayUrl}/json/v1/gasless/orders`, orders[i]!.body));
  }
  const answers = await Promise.all(inFlight);
  const ms = answers.map((a) => a.ms).sort((a, b) => a - b);
  const non200: Record<string, number> = {};
  for (const a of answers) if (a.status !== 200) non200[a.status] = (non200[a.status] ?? 0) + 1;
  const accepted = answers.filter((a) => a.status === 200).length;
  // Not part of the latency figure: how long the relayer took to send everything it accepted.
  const drained = await waitForNonces(client, wallets, before + accepted, POLL_MS, 180_000);
  return {
    sent: answers.length,
    non200,
    p50: pct(ms, 0.5),
    p99: pct(ms, 0.99),
    max: ms[ms.length - 1] ?? NaN,
    maxLagMs,
    nudges: drained.nudges,
    ...(drained.atMs !== undefined ? { drainSecs: (drained.atMs - t0) / 1000 } : {}),
  };
}

async function section(keys: number, withLatency: boolean): Promise<string[]> {
  const relayerKeys = Array.from({ length: keys }, () => generatePrivateKey());
  const wallets = relayerKeys.map((k) => privateKeyToAddress(k));
  say(`section with ${keys} relayer key(s): starting a local ${CHAIN} (a block per transaction) and a stack`);
  const devnet = await startDevnet({ chains: [CHAIN], fund: wallets, blockTimeSecs: 0 });
  const dataDir = join(ROOT, '.test-data', `bench-gasless-${process.pid}-${keys}`);
  const ports = await freeStackPorts();
  try {
    const stack = await startStack({
      dataDir,
      ports,
      persistent: false,
      logDir: join(dataDir, 'logs'),
      extraEnv: {
        LOG_LEVEL: 'warn',
        KEYLESS_POINTS_PER_MIN: '1000000',
        EVM_RPC_URLS: devnet.rpcUrls,
        RELAYER_PRIVATE_KEYS: relayerKeys.join(','),
        CHAIN_WATCH_CONFIRMATIONS: '0',
        RELAY_POLL_MS: '100',
      },
    });
    try {
      return await measure(`http://127.0.0.1:${ports.gateway}`, devnet.chains.get(CHAIN)!.rpcUrl, wallets, withLatency);
    } finally {
      await stack.stop();
    }
  } finally {
    await devnet.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measure(gatewayUrl: string, rpcUrl: string, wallets: Address[], withLatency: boolean): Promise<string[]> {
  const client = chainClient(rpcUrl);
  const usdc = usdcOf(CHAIN);
  const lat = withLatency ? RATE_PER_SEC * RATE_SECS : 0;
  const prepStart = Date.now();
  say(`preparing ${WARM_UP + N + lat} users (mint, gasless quote, permit2 + erc2612 signatures), untimed`);
  const orders = await prepareOrders(WARM_UP + N + lat, {
    gatewayUrl,
    client,
    minter: await freshFundedAccount(rpcUrl, 1000n),
    srcChain: CHAIN,
    srcToken: usdc,
    dstChain: 'arbitrum',
    dstToken: usdcOf('arbitrum'),
    amount: AMOUNT,
  });
  say(`prepared in ${((Date.now() - prepStart) / 1000).toFixed(1)} s; warming up with ${WARM_UP} relayed orders`);
  await relayed(gatewayUrl, client, wallets, orders.slice(0, WARM_UP));
  say(`baseline: ${BASELINE_N} raw transfers`);
  const base = await baseline(client, rpcUrl, usdc);
  say(`relayed: ${N} orders`);
  const r = await relayed(gatewayUrl, client, wallets, orders.slice(WARM_UP, WARM_UP + N));
  const k = wallets.length;
  const rows = [
    `anvil baseline, 1 sender, ERC-20 transfer   ${base.perSec.toFixed(1).padStart(8)} tx/s        (${BASELINE_N} tx in ${base.secs.toFixed(2)} s${nudged(base.nudges)})`,
    `relayed deposits, ${k} relayer wallet${k > 1 ? 's' : ' '}        ${r.perSec.toFixed(1).padStart(8)} deposits/s  (${N} in ${r.secs.toFixed(2)} s; ${(
      (100 * r.perSec) /
      base.perSec
    ).toFixed(1)} % of baseline, aim ≥ 90 %${nudged(r.nudges)})`,
    `  order views confirmed                     ${`${r.confirmed}/${N}`.padStart(8)}${Object.keys(r.other).length ? `  others: ${JSON.stringify(r.other)}` : ''}`,
  ];
  if (withLatency) {
    say(`accept latency: ${lat} submits at ${RATE_PER_SEC}/s`);
    const l = await acceptLatency(gatewayUrl, client, wallets, orders.slice(WARM_UP + N));
    const non200 = Object.values(l.non200).reduce((a, b) => a + b, 0);
    rows.push(
      `SubmitGaslessOrder at ${RATE_PER_SEC}/s for ${RATE_SECS} s, open loop  p50 ${l.p50.toFixed(1)} ms  p99 ${l.p99.toFixed(1)} ms  max ${l.max.toFixed(1)} ms (aim p99 ≤ 50 ms)`,
      `  non-200 answers                           ${`${non200}/${l.sent}`.padStart(8)}${non200 ? `  ${JSON.stringify(l.non200)}` : ''}  (client send lag max ${l.maxLagMs.toFixed(1)} ms)`,
      `  relayer sent all accepted                 ${l.drainSecs === undefined ? 'not within 180 s' : `${l.drainSecs.toFixed(2)} s after the first submit${nudged(l.nudges)}`.padStart(8)}`,
    );
  }
  return rows;
}

async function main(): Promise<void> {
  const out = [
    `machine: nproc ${execFileSync('nproc', { encoding: 'utf8' }).trim()}; N ${N} relayed orders, ${BASELINE_N} baseline transfers, ${IN_FLIGHT} in flight, nonces polled every ${POLL_MS} ms`,
  ];
  for (const [i, keys] of KEY_COUNTS.entries()) out.push(...(await section(keys, i === 0)));
  console.log(out.join('\n'));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DEV_FILLER, DEV_FILLER_KEY, equipFiller, readDevnetPlan, startDevnet } from '@xchain/devnet';
import { approveCalldata, depositTx } from '@xchain/evm-gasless';
import { type OrderWire, orderFromWire } from '@xchain/order-codec';
import { ROOT, freeStackPorts, startStack } from '@xchain/stack';
import { Pool } from 'pg';
import {
  type Address,
  type Hex,
  createWalletClient,
  encodeAbiParameters,
  encodeFunctionData,
  http,
  keccak256,
  maxUint256,
  toHex,
} from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { MINT_ABI, fmt, usdcOf } from './chain-bench';
import { chainClient, freshFundedAccount, pool, sleep } from './gasless-users';

/**
 * `npm run bench:settlement`: how fast the system acts on a deposit once it is deep enough, on local
 * chains with real blocks (anvil, one block a second) and the whole stack with its operator wallet.
 * BENCH_N orders (default 100) are deposited 5 a second from base to arbitrum with inventory for all
 * of them, then BENCH_REFUNDS more (default 100) with the operator's arbitrum USDC set to zero, so
 * each of those is refunded (cancelled on arbitrum, then refunded on base). In percentiles:
 *  - deposit at depth (its block `confirmations` deep, seen by this bench) → fill decided and → fill
 *    transaction sent (the relayer's first signed transaction for it, stored before the broadcast);
 *  - refund decided → cancel sent on arbitrum, and → refund sent on base (which waits for the
 *    cancel's confirmation).
 * The times on the service side are the rows' own timestamps (same machine, same clock). Prints
 * figures only; never a test. Always its own chains and stack.
 */
const N = Number(process.env['BENCH_N'] ?? 100);
const REFUNDS = Number(process.env['BENCH_REFUNDS'] ?? 100);
const CONFIRMATIONS = Number(process.env['BENCH_CONFIRMATIONS'] ?? 2);
const WATCH_POLL_MS = Number(process.env['BENCH_WATCH_POLL_MS'] ?? 250);
const BLOCK_SECS = 1;
const RATE_PER_SEC = 5;
const AMOUNT = 10_000_000n;
const say = (line: string) => console.error(`[bench] ${line}`);
/** The relayer's operator transactions of every kind, by kind and key, with their lane transactions. */
const WORK = `WITH work AS (
  SELECT 'fill' AS kind, quote_hash AS key, lane_tx_id FROM fill_txs
  UNION ALL SELECT 'cancel', quote_hash, lane_tx_id FROM cancel_txs
  UNION ALL SELECT 'refund', quote_hash, lane_tx_id FROM refund_txs
  UNION ALL SELECT 'claim', batch_key, lane_tx_id FROM claim_txs)`;

async function main(): Promise<void> {
  for (const [name, v] of [
    ['BENCH_N', N],
    ['BENCH_REFUNDS', REFUNDS],
  ] as const) {
    if (!Number.isInteger(v) || v < 0 || v > 1000) throw new Error(`${name} must be a whole number from 0 to 1000`);
  }
  say(`local base and arbitrum (a block every ${BLOCK_SECS} s), ${CONFIRMATIONS} confirmations, watcher poll ${WATCH_POLL_MS} ms`);
  const devnet = await startDevnet({ chains: ['base', 'arbitrum'], blockTimeSecs: BLOCK_SECS });
  await equipFiller(devnet.rpcUrls, readDevnetPlan(['base', 'arbitrum']), DEV_FILLER_KEY);
  const dataDir = join(ROOT, '.test-data', `bench-settlement-${process.pid}`);
  const ports = await freeStackPorts();
  const stack = await startStack({
    dataDir,
    ports,
    persistent: false,
    logDir: join(dataDir, 'logs'),
    extraEnv: {
      LOG_LEVEL: 'warn',
      KEYLESS_POINTS_PER_MIN: '1000000',
      EVM_RPC_URLS: devnet.rpcUrls,
      FILLER_PRIVATE_KEYS: DEV_FILLER_KEY,
      CHAIN_WATCH_CONFIRMATIONS: String(CONFIRMATIONS),
      CHAIN_WATCH_POLL_MS: String(WATCH_POLL_MS),
    },
  });
  const qe = new Pool({ connectionString: stack.databaseUrl('quote_engine'), max: 2 });
  const relayer = new Pool({ connectionString: stack.databaseUrl('gasless_relayer'), max: 2 });
  const gateway = `http://127.0.0.1:${ports.gateway}`;
  try {
    const base = devnet.chains.get('base')!.rpcUrl;
    const client = chainClient(base);
    const chains = ((await (await fetch(`${gateway}/json/v1/chains`)).json()) as { chains: { chain: string; deposit_target: Address }[] })
      .chains;
    const router = chains.find((c) => c.chain === 'base')!.deposit_target;
    const usdc = usdcOf('base');
    const arbUsdc = usdcOf('arbitrum');

    const depositor = await freshFundedAccount(base, 1000n);
    const wallet = createWalletClient({ account: depositor, transport: http(base) });
    const total = BigInt(N + REFUNDS);
    await client.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({
        to: usdc,
        data: encodeFunctionData({ abi: MINT_ABI, functionName: 'mint', args: [depositor.address, AMOUNT * total] }),
        chain: null,
      }),
    });
    await client.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ to: usdc, data: approveCalldata(router, maxUint256), chain: null }),
    });

    say(`quoting ${N + REFUNDS} orders (untimed)`);
    const quotes = await pool(Array.from({ length: N + REFUNDS }), 8, async () => {
      const who = privateKeyToAddress(generatePrivateKey());
      const res = await fetch(`${gateway}/json/v1/quote`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          src_chain: 'base',
          dst_chain: 'arbitrum',
          src_token: usdc,
          dst_token: arbUsdc,
          trade_type: 'TRADE_TYPE_EXACT_INPUT',
          amount: AMOUNT.toString(),
          gas_drop: '',
          recipient: who,
          refund_address: who,
        }),
      });
      const body = (await res.json()) as { cross_chain: { quote_hash: Hex; order: OrderWire } };
      if (res.status !== 200) throw new Error(`quote failed: ${res.status} ${JSON.stringify(body)}`);
      return { hash: body.cross_chain.quote_hash, order: orderFromWire(body.cross_chain.order).order };
    });

    // Blocks as they come: when each deposit was first seen mined, and when its block got deep enough.
    const minedIn = new Map<Hex, bigint>();
    const deepAt = new Map<bigint, number>();
    let stop = false;
    const watching = (async () => {
      let seen = await client.getBlockNumber({ cacheTime: 0 });
      while (!stop) {
        const head = await client.getBlockNumber({ cacheTime: 0 });
        const at = Date.now();
        for (let b = seen + 1n; b <= head; b++) {
          const block = await client.getBlock({ blockNumber: b });
          for (const tx of block.transactions) minedIn.set(tx, b);
          if (b - BigInt(CONFIRMATIONS) >= 0n) deepAt.set(b - BigInt(CONFIRMATIONS), at);
        }
        seen = head;
        await sleep(20);
      }
    })();

    let nonce = await client.getTransactionCount({ address: depositor.address, blockTag: 'pending' });
    const depositTxs = new Map<string, Hex>();
    const depositAll = async (batch: typeof quotes) => {
      for (const q of batch) {
        depositTxs.set(q.hash, await wallet.sendTransaction({ ...depositTx(q.order, router), nonce: nonce++, gas: 300_000n, chain: null }));
        await sleep(1000 / RATE_PER_SEC);
      }
    };
    const doneCount = async (kind: string, hashes: string[]) =>
      Number(
        (
          await relayer.query<{ n: string }>(
            `${WORK} SELECT COUNT(*) AS n FROM work w JOIN lane_txs l ON l.id = w.lane_tx_id WHERE w.kind = $1 AND w.key = ANY($2) AND l.status IN ('confirmed', 'failed')`,
            [kind, hashes],
          )
        ).rows[0]!.n,
      );
    // Until each has its final outcome: the inventory must not change under a fill still in flight.
    const waitDone = async (kind: string, hashes: string[]) => {
      const deadline = Date.now() + 120_000;
      while ((await doneCount(kind, hashes)) < hashes.length && Date.now() < deadline) await sleep(250);
    };

    const fills = quotes.slice(0, N);
    const refunds = quotes.slice(N);
    say(`depositing ${N} orders at ${RATE_PER_SEC}/s with inventory for all`);
    await depositAll(fills);
    await waitDone(
      'fill',
      fills.map((q) => q.hash),
    );
    if (refunds.length > 0) {
      say(`operator's arbitrum USDC set to zero; depositing ${REFUNDS} more`);
      const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [DEV_FILLER, 0n]));
      await chainClient(devnet.chains.get('arbitrum')!.rpcUrl).request({
        method: 'anvil_setStorageAt' as never,
        params: [arbUsdc, slot, toHex(0n, { size: 32 })] as never,
      });
      await depositAll(refunds);
      await waitDone(
        'refund',
        refunds.map((q) => q.hash),
      );
    }
    stop = true;
    await watching;

    // The service side's own times: each decision, and each operator transaction's first signed send.
    const decided = new Map(
      (
        await qe.query<{ quote_hash: string; decision: string; reason: string | null; error: string | null; decided_at: Date }>(
          'SELECT quote_hash, decision, reason, error, decided_at FROM settlements',
        )
      ).rows.map((r) => [r.quote_hash, r]),
    );
    const sends = new Map(
      (
        await relayer.query<{ kind: string; order_hash: string; sent: Date }>(
          `${WORK} SELECT w.kind, w.key AS order_hash, MIN(t.sent_at) AS sent FROM work w JOIN relay_txs t ON t.lane_tx_id = w.lane_tx_id GROUP BY w.kind, w.key`,
        )
      ).rows.map((r) => [`${r.kind}:${r.order_hash}`, r.sent.getTime()]),
    );
    const deepOf = (hash: string) => {
      const block = minedIn.get(depositTxs.get(hash)!);
      return block === undefined ? undefined : deepAt.get(block);
    };
    const series = {
      depthToFillDecided: [] as number[],
      depthToFillSent: [] as number[],
      depthToRefundDecided: [] as number[],
      decidedToCancelSent: [] as number[],
      decidedToRefundSent: [] as number[],
    };
    const missing = { depth: 0, decision: 0, send: 0 };
    const miss = (deep: number | undefined, decision: boolean, sent: boolean) => {
      if (deep === undefined) missing.depth++;
      else if (!decision) missing.decision++;
      else if (!sent) missing.send++;
    };
    for (const q of fills) {
      const deep = deepOf(q.hash);
      const d = decided.get(q.hash);
      const sent = sends.get(`fill:${q.hash}`);
      if (deep === undefined || d?.decision !== 'fill' || sent === undefined) {
        miss(deep, d?.decision === 'fill', sent !== undefined);
        if (d && d.decision !== 'fill') say(`fill #${fills.indexOf(q)} was decided ${d.decision} (${d.reason}: ${d.error})`);
        continue;
      }
      if (d.decided_at.getTime() - deep > 800) say(`fill #${fills.indexOf(q)} decided ${d.decided_at.getTime() - deep} ms after depth`);
      series.depthToFillDecided.push(d.decided_at.getTime() - deep);
      series.depthToFillSent.push(sent - deep);
    }
    for (const q of refunds) {
      const deep = deepOf(q.hash);
      const d = decided.get(q.hash);
      const cancel = sends.get(`cancel:${q.hash}`);
      const refund = sends.get(`refund:${q.hash}`);
      if (deep === undefined || d?.decision !== 'refund' || cancel === undefined || refund === undefined) {
        miss(deep, d?.decision === 'refund', cancel !== undefined && refund !== undefined);
        continue;
      }
      series.depthToRefundDecided.push(d.decided_at.getTime() - deep);
      series.decidedToCancelSent.push(cancel - d.decided_at.getTime());
      series.decidedToRefundSent.push(refund - d.decided_at.getTime());
    }
    console.log(
      `settlement latency, ${N} fills and ${REFUNDS} refunds, local base → arbitrum (a block every ${BLOCK_SECS} s, ${CONFIRMATIONS} confirmations, watcher poll ${WATCH_POLL_MS} ms)`,
    );
    console.log(`  deposit at depth → fill decided       ${fmt(series.depthToFillDecided)}`);
    console.log(`  deposit at depth → fill tx sent       ${fmt(series.depthToFillSent)}   aim p99 ≤ 1000 ms`);
    console.log(`  deposit at depth → refund decided     ${fmt(series.depthToRefundDecided)}`);
    console.log(`  refund decided → cancel tx sent       ${fmt(series.decidedToCancelSent)}   (destination)`);
    console.log(`  refund decided → refund tx sent       ${fmt(series.decidedToRefundSent)}   (source; after the cancel's confirmation)`);
    if (missing.depth + missing.decision + missing.send > 0) {
      // No depth: the bench did not see the deposit's block deepen (it was mined before its block watch began).
      console.log(
        `  not measured: ${missing.depth} without a depth seen, ${missing.decision} without the expected decision, ${missing.send} without a send`,
      );
    }
  } finally {
    await qe.end();
    await relayer.end();
    await stack.stop();
    await devnet.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

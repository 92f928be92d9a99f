import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { XchainClient } from '@xchain/client';
import { ORDER_UPDATE_SUBJECTS, OrderUpdateSchema } from '@xchain/contracts';
import { startDevnet } from '@xchain/devnet';
import { approveCalldata, depositTx } from '@xchain/evm-gasless';
import { connectNats } from '@xchain/messaging';
import { type OrderWire, orderFromWire } from '@xchain/order-codec';
import { ROOT, freeStackPorts, startStack } from '@xchain/stack';
import { type Address, type Hex, createWalletClient, encodeFunctionData, http, maxUint256 } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { MINT_ABI, fmt, usdcOf } from './chain-bench';
import { chainClient, freshFundedAccount, nowMs, pool, sleep } from './gasless-users';
import { SseTap } from './sse-tap';

/**
 * `npm run bench:lifecycle`: how fast an order's steps reach the people waiting for them, on local
 * chains with real blocks (anvil, one block a second) and the whole stack. For BENCH_N deposits
 * (default 60, sent 5 a second) it prints, in percentiles:
 *  - deposit mined → the order view shows it (observed as the `deposited` event of a server-sent
 *    event stream opened before the deposit, which the gateway sends only after the view changed),
 *    next to the confirmation delay itself (mined → the block `confirmations` deeper observed);
 *  - view change (the update's `occurred_at`, stamped when the quote-engine pushes it) → the SSE
 *    event at the client, and → the first webhook attempt at a local receiver of the partner whose
 *    API key quoted the orders.
 * Prints figures only; never a test. Always its own chains and stack.
 */
const N = Number(process.env['BENCH_N'] ?? 60);
const CONFIRMATIONS = Number(process.env['BENCH_CONFIRMATIONS'] ?? 2);
const BLOCK_SECS = 1;
const WATCH_POLL_MS = Number(process.env['BENCH_WATCH_POLL_MS'] ?? 250);
const RATE_PER_SEC = 5;
const AMOUNT = 10_000_000n;
const say = (line: string) => console.error(`[bench] ${line}`);

async function main(): Promise<void> {
  if (!Number.isInteger(N) || N < 1 || N > 1000) throw new Error('BENCH_N must be a whole number from 1 to 1000');
  say(
    `local base and arbitrum (a block every ${BLOCK_SECS} s), stack with ${CONFIRMATIONS} confirmations, watcher poll ${WATCH_POLL_MS} ms`,
  );
  const devnet = await startDevnet({ chains: ['base', 'arbitrum'], blockTimeSecs: BLOCK_SECS });
  const dataDir = join(ROOT, '.test-data', `bench-lifecycle-${process.pid}`);
  const ports = await freeStackPorts();
  const stack = await startStack({
    dataDir,
    ports,
    persistent: false,
    logDir: join(dataDir, 'logs'),
    extraEnv: {
      LOG_LEVEL: 'warn',
      KEYLESS_POINTS_PER_MIN: '1000000',
      SSE_MAX_STREAMS_PER_CALLER: '10000',
      EVM_RPC_URLS: devnet.rpcUrls,
      CHAIN_WATCH_CONFIRMATIONS: String(CONFIRMATIONS),
      CHAIN_WATCH_POLL_MS: String(WATCH_POLL_MS),
    },
    testUsers: { 'bench-updates': { subscribe: [ORDER_UPDATE_SUBJECTS] } },
  });
  const gateway = `http://127.0.0.1:${ports.gateway}`;
  const taps: SseTap[] = [];
  const closers: (() => Promise<void>)[] = [];
  try {
    const rpcUrl = devnet.chains.get('base')!.rpcUrl;
    const client = chainClient(rpcUrl);
    const chains = ((await (await fetch(`${gateway}/json/v1/chains`)).json()) as { chains: { chain: string; deposit_target: Address }[] })
      .chains;
    const router = chains.find((c) => c.chain === 'base')!.deposit_target;
    const usdc = usdcOf('base');
    const arbUsdc = usdcOf('arbitrum');

    // One depositor for every order (the router takes funds from whoever sends the deposit).
    const depositor = await freshFundedAccount(rpcUrl, 1000n);
    const wallet = createWalletClient({ account: depositor, transport: http(rpcUrl) });
    await client.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({
        to: usdc,
        data: encodeFunctionData({ abi: MINT_ABI, functionName: 'mint', args: [depositor.address, AMOUNT * BigInt(N)] }),
        chain: null,
      }),
    });
    await client.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ to: usdc, data: approveCalldata(router, maxUint256), chain: null }),
    });

    // A partner with an API key and a webhook to a local receiver that notes when each deposit's update arrives.
    const webhookAt = new Map<string, number>();
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = Date.now();
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { quote_hash: string; status: string } };
          if (body.data.status === 'deposited' && !webhookAt.has(body.data.quote_hash)) webhookAt.set(body.data.quote_hash, at);
        } catch {
          // not ours
        }
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise<void>((r) => receiver.close(() => r())));
    const adminEnv = { ...stack.env, ...stack.bus.envFor('operator') };
    const admin = (...args: string[]) =>
      new Promise<Record<string, string>>((resolve, reject) =>
        execFile(
          process.execPath,
          [join(ROOT, 'dist/tools/partner-admin/src/main.js'), ...args],
          { env: adminEnv, timeout: 20_000 },
          (err, out) => (err ? reject(err) : resolve(JSON.parse(out) as Record<string, string>)),
        ),
      );
    await admin('create-partner', '--email', 'bench@example.com');
    const { token } = await admin('issue-session', '--email', 'bench@example.com');
    const bearer = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const key = (await (
      await fetch(`${gateway}/json/v1/partner/keys`, { method: 'POST', headers: bearer, body: JSON.stringify({ name: 'bench' }) })
    ).json()) as { secret: string };
    const hook = await fetch(`${gateway}/json/v1/partner/webhook`, {
      method: 'PUT',
      headers: bearer,
      body: JSON.stringify({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` }),
    });
    if (hook.status !== 200) throw new Error(`webhook not set: ${hook.status} ${await hook.text()}`);

    say(`quoting ${N} orders with the partner's key and opening a stream for each (untimed)`);
    const quotes = await pool(Array.from({ length: N }), 8, async () => {
      const who = privateKeyToAddress(generatePrivateKey());
      const res = await fetch(`${gateway}/json/v1/quote`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key.secret },
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
      const r = { status: res.status, body: (await res.json()) as unknown };
      if (r.status !== 200) throw new Error(`quote failed: ${r.status} ${JSON.stringify(r.body)}`);
      const q = (r.body as { cross_chain: { quote_hash: Hex; order: OrderWire } }).cross_chain;
      return { hash: q.quote_hash, order: orderFromWire(q.order).order };
    });
    const streams = new XchainClient({ baseUrl: gateway, timeoutMs: 10_000 });
    for (const q of quotes) taps.push(await SseTap.open(streams, q.hash));

    // What the quote-engine pushed, and when it stamped it.
    const nc = await connectNats({
      url: `nats://127.0.0.1:${ports.nats}`,
      name: 'bench-updates',
      connectTimeoutMs: 5000,
      ...stack.bus.credentials('bench-updates'),
    });
    const pushedAt = new Map<string, number>();
    nc.subscribe(ORDER_UPDATE_SUBJECTS, {
      callback: (_err, msg) => {
        const u = OrderUpdateSchema.safeParse(msg.json());
        if (u.success && u.data.order.status === 'deposited' && !pushedAt.has(u.data.quote_hash))
          pushedAt.set(u.data.quote_hash, Date.parse(u.data.occurred_at));
      },
    });

    // Blocks as they come: when each of our transactions was first seen mined, and when its block got deep enough.
    const minedAt = new Map<Hex, { block: bigint; at: number }>();
    const deepAt = new Map<bigint, number>();
    let stop = false;
    const watching = (async () => {
      let seen = await client.getBlockNumber({ cacheTime: 0 });
      while (!stop) {
        const head = await client.getBlockNumber({ cacheTime: 0 });
        const at = nowMs();
        for (let b = seen + 1n; b <= head; b++) {
          const block = await client.getBlock({ blockNumber: b });
          for (const tx of block.transactions) minedAt.set(tx, { block: b, at });
          if (b - BigInt(CONFIRMATIONS) >= 0n) deepAt.set(b - BigInt(CONFIRMATIONS), at);
        }
        seen = head;
        await sleep(20);
      }
    })();

    say(`depositing ${N} orders at ${RATE_PER_SEC}/s`);
    let nonce = await client.getTransactionCount({ address: depositor.address, blockTag: 'pending' });
    const sent: { hash: Hex; tx: Hex }[] = [];
    for (const q of quotes) {
      const tx = depositTx(q.order, router);
      sent.push({ hash: q.hash, tx: await wallet.sendTransaction({ ...tx, nonce: nonce++, gas: 300_000n, chain: null }) });
      await sleep(1000 / RATE_PER_SEC);
    }
    const deadline = Date.now() + 60_000;
    while ((taps.some((t) => t.firstWithStatus('deposited') === undefined) || webhookAt.size < N) && Date.now() < deadline)
      await sleep(100);
    stop = true;
    await watching;
    await nc.close();

    const toView: number[] = [];
    const confirmDelay: number[] = [];
    const afterDeep: number[] = [];
    const changeToSse: number[] = [];
    const changeToWebhook: number[] = [];
    let missing = 0;
    quotes.forEach((q, i) => {
      const tap = taps[i]!;
      const seen = tap.firstWithStatus('deposited');
      const mined = minedAt.get(sent[i]!.tx);
      if (seen === undefined || !mined) return void missing++;
      toView.push(seen.atMs - mined.at);
      const deep = deepAt.get(mined.block);
      if (deep !== undefined) {
        confirmDelay.push(deep - mined.at);
        afterDeep.push(seen.atMs - deep);
      }
      const pushed = pushedAt.get(q.hash);
      if (pushed !== undefined) changeToSse.push(seen.wallMs - pushed);
      const hooked = webhookAt.get(q.hash);
      if (pushed !== undefined && hooked !== undefined) changeToWebhook.push(hooked - pushed);
    });
    const aim = CONFIRMATIONS * BLOCK_SECS * 1000 + 1000;
    console.log(
      `order lifecycle latency, ${N} deposits on local base (a block every ${BLOCK_SECS} s, ${CONFIRMATIONS} confirmations, watcher poll ${WATCH_POLL_MS} ms)`,
    );
    console.log(`  deposit mined → view shows it (SSE)   ${fmt(toView)}   aim p99 ≤ confirmation delay + 1 s ≈ ${aim} ms`);
    console.log(`  confirmation delay (mined → deep)     ${fmt(confirmDelay)}`);
    console.log(`  deep → view shows it (SSE)            ${fmt(afterDeep)}`);
    console.log(`  view change → SSE event at client     ${fmt(changeToSse)}   aim p99 ≤ 200 ms`);
    console.log(`  view change → first webhook attempt   ${fmt(changeToWebhook)}   aim p99 ≤ 200 ms`);
    if (missing) console.log(`  not seen within 60 s                  ${missing}`);
  } finally {
    for (const t of taps) t.close();
    for (const c of closers) await c();
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

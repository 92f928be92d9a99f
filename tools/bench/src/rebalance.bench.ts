import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEV_FILLER, DEV_FILLER_KEY, equipFiller, readDevnetPlan, startDevnet, type Devnet } from '@xchain/devnet';
import { ROOT } from '@xchain/stack';
import { Pool } from 'pg';
import { type Address, encodeAbiParameters, erc20Abi, keccak256, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { startBenchStack } from './bench-stack';
import { pct, usdcOf } from './chain-bench';
import { chainClient, sleep } from './gasless-users';

/**
 * `npm run bench:rebalance`: how fast the quote-engine's rebalancer (issue 47) refills a chain whose
 * filler USDC fell below its threshold, through Circle's CCTP V2 stand-ins on local base and
 * arbitrum (anvil, a block a second) and the attestation stand-in, the whole stack with its operator
 * wallet and REBALANCE_ENABLED. The filler starts with USDC_EACH on each chain; then BENCH_N rounds
 * (default 10), alternately arbitrum and base:
 *  - wait until the rebalancer is quiet (no move open, its last picture of both chains equal to the
 *    balances on chain, none below its threshold);
 *  - credit the other chain with what this one is about to lose, as a run of fills one way would
 *    leave it (the deposits come back on the source), so every round moves about the same amount;
 *    wait until the service's inventory has read the credit, then a random pause within one
 *    inventory refresh, so the drain does not fall at the same point of the refresh cycle every round;
 *  - drain: the filler's balance on the chain is set (anvil_setStorageAt) to a tenth of the total.
 *    That moment is "threshold crossed";
 *  - until the move planned into that chain is `received` and the filler's balance there is back at
 *    or above its threshold (read on chain every RESTORE_POLL_MS).
 * Printed, in percentiles: crossed → planned, planned → burned, burned → attested, attested →
 * received (the move row's own timestamps, same machine clock), crossed → destination restored on
 * chain (the headline); the fee executed and the amount of each move. The drain is a storage write,
 * so the service sees it at its next periodic reading (INVENTORY_REFRESH_MS); a fill's settlement
 * reads its chain again at once. The services keep their own INVENTORY_REFRESH_MS, REBALANCE_POLL_MS
 * and CHAIN_WATCH_CONFIRMATIONS unless BENCH_INVENTORY_REFRESH_MS, BENCH_REBALANCE_POLL_MS or
 * BENCH_CONFIRMATIONS sets them; the values used are printed. Prints figures only, asserts nothing;
 * exits non-zero on a move failed or stuck, or a round not done within ROUND_TIMEOUT_MS. Always its
 * own chains and stack.
 */
const N = Number(process.env['BENCH_N'] ?? 10);
const REFRESH_MS = optionalMs('BENCH_INVENTORY_REFRESH_MS');
const POLL_MS = optionalMs('BENCH_REBALANCE_POLL_MS');
const CONFIRMATIONS = optionalCount('BENCH_CONFIRMATIONS');
const BLOCK_SECS = 1;
const CHAINS = ['base', 'arbitrum'] as const;
type Chain = (typeof CHAINS)[number];
const ROUND_TIMEOUT_MS = 120_000;
const QUIET_TIMEOUT_MS = 120_000;
const RESTORE_POLL_MS = 100;
const say = (line: string) => console.error(`[bench] ${line}`);

function optionalMs(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === '') return undefined;
  const v = Number(text);
  if (!Number.isInteger(v) || v < 1 || v > 600_000) throw new Error(`${name} must be a whole number of milliseconds from 1 to 600000`);
  return v;
}

function optionalCount(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === '') return undefined;
  const v = Number(text);
  if (!Number.isInteger(v) || v < 0 || v > 1000) throw new Error(`${name} must be a whole number from 0 to 1000`);
  return v;
}

/** A quote-engine setting's default as docs/configuration.md lists it (generated from the env schemas, checked by a unit spec). */
function serviceDefault(name: string): number {
  const doc = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
  const row = new RegExp(`^\\| \`${name}\` \\| [^|]* \\| (\\d+) \\|`, 'm').exec(doc);
  if (!row) throw new Error(`no default for ${name} in docs/configuration.md`);
  return Number(row[1]);
}

/** The registry's USDC decimals and quoting.json's threshold share per chain. */
function usdcTerms(): { unit: bigint; thresholdBps: Record<Chain, bigint> } {
  const registry = JSON.parse(readFileSync(join(ROOT, 'config/registry.json'), 'utf8')) as {
    tokens: { chain: string; symbol: string; decimals: number }[];
  };
  const quoting = JSON.parse(readFileSync(join(ROOT, 'config/quoting.json'), 'utf8')) as {
    inventory_targets: Record<string, Record<string, { threshold_bps: string }>>;
  };
  const decimals = new Set(registry.tokens.filter((t) => t.symbol === 'USDC' && CHAINS.includes(t.chain as Chain)).map((t) => t.decimals));
  if (decimals.size !== 1) throw new Error('base and arbitrum USDC differ in decimals in the registry');
  const targets = quoting.inventory_targets['USDC'];
  const thresholdBps = Object.fromEntries(
    CHAINS.map((c) => {
      const t = targets?.[c];
      if (!t) throw new Error(`quoting.json has no USDC inventory target on ${c}`);
      return [c, BigInt(t.threshold_bps)];
    }),
  ) as Record<Chain, bigint>;
  return { unit: 10n ** BigInt([...decimals][0]!), thresholdBps };
}

type Move = {
  id: string;
  src_chain: string;
  dst_chain: string;
  amount: string;
  fee_executed: string | null;
  state: string;
  error: string | null;
  planned_at: Date;
  burned_at: Date | null;
  attested_at: Date | null;
  received_at: Date | null;
};
const MOVES = `SELECT id, src_chain, dst_chain, amount::text, fee_executed::text, state, error, planned_at, burned_at, attested_at, received_at
  FROM rebalance_moves ORDER BY planned_at`;
const OPEN = ['planned', 'approved', 'burned', 'attested'];

interface Round {
  dst: Chain;
  crossedMs: number;
  move: Move;
  restoredMs: number;
}

async function main(): Promise<void> {
  if (!Number.isInteger(N) || N < 1 || N > 100) throw new Error('BENCH_N must be a whole number from 1 to 100');
  const refreshMs = REFRESH_MS ?? serviceDefault('INVENTORY_REFRESH_MS');
  const pollMs = POLL_MS ?? serviceDefault('REBALANCE_POLL_MS');
  const confirmations = CONFIRMATIONS ?? serviceDefault('CHAIN_WATCH_CONFIRMATIONS');
  const settings =
    `INVENTORY_REFRESH_MS ${refreshMs}${REFRESH_MS === undefined ? ' (default)' : ''}, ` +
    `REBALANCE_POLL_MS ${pollMs}${POLL_MS === undefined ? ' (default)' : ''}, ` +
    `CHAIN_WATCH_CONFIRMATIONS ${confirmations}${CONFIRMATIONS === undefined ? ' (default)' : ''}`;
  const { unit, thresholdBps } = usdcTerms();
  const USDC_EACH = 100_000n * unit;
  const usdc = (amount: bigint) => `${amount / unit}.${(amount % unit).toString().padStart(unit.toString().length - 1, '0')}`;
  say(`local base and arbitrum (a block every ${BLOCK_SECS} s); ${settings}; ${N} rounds`);

  const relayerKeys = [generatePrivateKey(), generatePrivateKey()];
  let devnet: Devnet | undefined;
  let stopStack: (() => Promise<void>) | undefined;
  let qe: Pool | undefined;
  let cleaning: Promise<void> | undefined;
  const cleanUp = () =>
    (cleaning ??= (async () => {
      await qe?.end().catch(() => undefined);
      await stopStack?.().catch((err: unknown) => say(`stopping the stack: ${String(err)}`));
      await devnet?.stop().catch((err: unknown) => say(`stopping the chains: ${String(err)}`));
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      say(`${signal}: stopping the stack and the chains`);
      void cleanUp().finally(() => process.exit(130));
    });
  }

  try {
    devnet = await startDevnet({ chains: [...CHAINS], fund: relayerKeys.map((k) => privateKeyToAddress(k)), blockTimeSecs: BLOCK_SECS });
    if (!devnet.attestationUrl) throw new Error('the devnet started no CCTP attestation stand-in');
    // Gas, every dev token and the routers' approvals on both chains.
    await equipFiller(devnet.rpcUrls, readDevnetPlan([...CHAINS]), DEV_FILLER_KEY);
    const up = devnet.chains;
    const clients = new Map(CHAINS.map((c) => [c, chainClient(up.get(c)!.rpcUrl)] as const));
    const token = new Map(CHAINS.map((c) => [c, usdcOf(c)] as const));
    const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [DEV_FILLER, 0n]));

    const balance = (c: Chain) =>
      clients.get(c)!.readContract({ address: token.get(c)! as Address, abi: erc20Abi, functionName: 'balanceOf', args: [DEV_FILLER] });
    /** The dev token keeps balances in its first storage slot's mapping. */
    const setBalance = async (c: Chain, amount: bigint) => {
      await clients.get(c)!.request({
        method: 'anvil_setStorageAt' as never,
        params: [token.get(c)!, slot, toHex(amount, { size: 32 })] as never,
      });
    };
    // Before the stack starts: a reading between two of these writes would plan a move from the other's old balance.
    for (const c of CHAINS) await setBalance(c, USDC_EACH);
    say(`filler USDC set to ${usdc(USDC_EACH)} on each chain`);
    const bench = await startBenchStack({}, undefined, {
      EVM_RPC_URLS: devnet.rpcUrls,
      FILLER_PRIVATE_KEYS: DEV_FILLER_KEY,
      RELAYER_PRIVATE_KEYS: relayerKeys.join(','),
      CCTP_ATTESTATION_URL: devnet.attestationUrl,
      REBALANCE_ENABLED: 'true',
      ...(REFRESH_MS !== undefined ? { INVENTORY_REFRESH_MS: String(REFRESH_MS) } : {}),
      ...(POLL_MS !== undefined ? { REBALANCE_POLL_MS: String(POLL_MS) } : {}),
      ...(CONFIRMATIONS !== undefined ? { CHAIN_WATCH_CONFIRMATIONS: String(CONFIRMATIONS) } : {}),
    });
    stopStack = bench.stop;
    say(`stack up in ${(bench.coldStartMs / 1000).toFixed(1)} s`);
    qe = new Pool({ connectionString: bench.stack.databaseUrl('quote_engine'), max: 2 });
    const db = qe;
    const metricsUrl = `${bench.serviceUrls.get('quote-engine')!}/metrics`;
    const moves = async () => (await db.query<Move>(MOVES)).rows;
    const ended = (m: Move) => m.state === 'failed' || m.state === 'stuck';
    const failIfEnded = (rows: Move[]) => {
      const bad = rows.find(ended);
      if (bad)
        throw new Error(
          `move ${bad.id} (${bad.src_chain} → ${bad.dst_chain}, ${usdc(BigInt(bad.amount))} USDC) is ${bad.state}: ${bad.error}`,
        );
    };
    /**
     * The quote-engine's USDC gauges per chain: the rebalancer's last picture (`rebalance_holding`,
     * `rebalance_below_threshold`) and the inventory's last reading (`inventory_available`), keyed
     * `name:chain`. A gauge is a double: an integer below 2^53 prints exactly.
     */
    const gauges = async () => {
      const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5_000) })).text();
      const out = new Map<string, string>();
      for (const line of text.split('\n')) {
        const m = /^(rebalance_holding|rebalance_below_threshold|inventory_available)\{([^}]*)\} (\S+)$/.exec(line);
        const chain = m && /token="USDC"/.test(m[2]!) ? /chain="([^"]+)"/.exec(m[2]!)?.[1] : undefined;
        if (m && chain) out.set(`${m[1]}:${chain}`, m[3]!);
      }
      return out;
    };
    const shows = (value: string | undefined, amount: bigint) => value !== undefined && /^\d+$/.test(value) && BigInt(value) === amount;
    /** No move open, and the rebalancer's last pass saw what the chains hold, neither below its threshold. */
    const waitQuiet = async (what: string) => {
      const deadline = Date.now() + QUIET_TIMEOUT_MS;
      for (;;) {
        const rows = await moves();
        failIfEnded(rows);
        if (!rows.some((m) => OPEN.includes(m.state))) {
          const [g, ...held] = await Promise.all([gauges(), ...CHAINS.map(balance)]);
          if (CHAINS.every((c, i) => g.get(`rebalance_below_threshold:${c}`) === '0' && shows(g.get(`rebalance_holding:${c}`), held[i]!)))
            return;
        }
        if (Date.now() > deadline) throw new Error(`the rebalancer was not quiet ${what} within ${QUIET_TIMEOUT_MS / 1000} s`);
        await sleep(250);
      }
    };
    /** Until the quote-engine's inventory has read `amount` of the filler's USDC on `chain`. */
    const waitReading = async (chain: Chain, amount: bigint) => {
      const deadline = Date.now() + QUIET_TIMEOUT_MS;
      while (!shows((await gauges()).get(`inventory_available:${chain}`), amount)) {
        if (Date.now() > deadline) throw new Error(`the inventory did not read ${chain}'s new balance within ${QUIET_TIMEOUT_MS / 1000} s`);
        await sleep(250);
      }
    };

    say("waiting for the rebalancer's first quiet picture");
    await waitQuiet('at the start');
    if ((await moves()).length > 0) say(`odd: ${(await moves()).length} move(s) planned before the first drain`);

    const rounds: Round[] = [];
    for (let r = 0; r < N; r++) {
      const dst: Chain = r % 2 === 0 ? 'arbitrum' : 'base';
      const src: Chain = dst === 'arbitrum' ? 'base' : 'arbitrum';
      if (r > 0) await waitQuiet(`before round ${r + 1}`);
      const known = new Set((await moves()).map((m) => m.id));
      const [dstHeld, srcHeld] = await Promise.all([balance(dst), balance(src)]);
      const total = dstHeld + srcHeld;
      const drained = total / 10n;
      const threshold = (total * thresholdBps[dst]) / 10_000n;
      // The credit first (neither chain is below its threshold then), and read by the service before the
      // drain: a drain read while the source's last reading is older than the credit would be planned
      // against the source's balance before it (a smaller move).
      await setBalance(src, total - drained);
      await waitReading(src, total - drained);
      await sleep(Math.floor(Math.random() * refreshMs));
      const crossedMs = Date.now();
      await setBalance(dst, drained);
      say(
        `round ${r + 1}/${N}: ${dst} drained to ${usdc(drained)} USDC (threshold ${usdc(threshold)}), ${src} at ${usdc(total - drained)}`,
      );

      const deadline = crossedMs + ROUND_TIMEOUT_MS;
      let restoredMs: number | undefined;
      let move: Move | undefined;
      let oddSaid = false;
      while (restoredMs === undefined || move?.state !== 'received') {
        if (Date.now() > deadline) {
          throw new Error(
            `round ${r + 1}: ${dst} not refilled within ${ROUND_TIMEOUT_MS / 1000} s (move ${move ? `${move.id} ${move.state}` : 'not planned'}, ` +
              `balance ${restoredMs === undefined ? 'below' : 'back at or above'} its threshold)`,
          );
        }
        if (restoredMs === undefined && (await balance(dst)) >= threshold) restoredMs = Date.now();
        const fresh = (await moves()).filter((m) => !known.has(m.id));
        failIfEnded(fresh);
        const into = fresh.filter((m) => m.dst_chain === dst);
        if (!oddSaid && (fresh.length > into.length || into.length > 1)) {
          oddSaid = true;
          say(`odd: round ${r + 1} planned ${fresh.map((m) => `${m.src_chain} → ${m.dst_chain}`).join(', ')}`);
        }
        move = into[0];
        await sleep(RESTORE_POLL_MS);
      }
      rounds.push({ dst, crossedMs, move, restoredMs });
      say(
        `round ${r + 1}/${N}: ${usdc(BigInt(move.amount))} USDC ${move.src_chain} → ${move.dst_chain}, fee ${usdc(BigInt(move.fee_executed ?? '0'))}; ` +
          `restored ${((restoredMs - crossedMs) / 1000).toFixed(2)} s after the crossing`,
      );
    }

    const secs = (xs: number[]) => {
      const f = (ms: number) => `${(ms / 1000).toFixed(2).padStart(6)} s`;
      return `p50 ${f(pct(xs, 0.5))}  p99 ${f(pct(xs, 0.99))}  min ${f(Math.min(...xs))}  max ${f(Math.max(...xs))}  (${xs.length})`;
    };
    const at = (d: Date | null, what: string, m: Move) => {
      if (!d) throw new Error(`move ${m.id} is received without its ${what} time`);
      return d.getTime();
    };
    const s = {
      planned: rounds.map((x) => x.move.planned_at.getTime() - x.crossedMs),
      burned: rounds.map((x) => at(x.move.burned_at, 'burned', x.move) - x.move.planned_at.getTime()),
      attested: rounds.map((x) => at(x.move.attested_at, 'attested', x.move) - at(x.move.burned_at, 'burned', x.move)),
      received: rounds.map((x) => at(x.move.received_at, 'received', x.move) - at(x.move.attested_at, 'attested', x.move)),
      restored: rounds.map((x) => x.restoredMs - x.crossedMs),
    };
    const bigs = (xs: bigint[]) => {
      const sorted = [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
      return `p50 ${usdc(at(0.5))}  min ${usdc(sorted[0]!)}  max ${usdc(sorted[sorted.length - 1]!)} USDC`;
    };
    const amounts = rounds.map((x) => BigInt(x.move.amount));
    const fees = rounds.map((x) => BigInt(x.move.fee_executed ?? '0'));
    // Hundredths of a basis point, rounded, in integers.
    const centiBps = rounds.map((x, i) => (fees[i]! * 1_000_000n + BigInt(x.move.amount) / 2n) / BigInt(x.move.amount));
    const bps = (cb: bigint) => `${cb / 100n}.${(cb % 100n).toString().padStart(2, '0')}`;
    const cbSorted = [...centiBps].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    console.log(
      `rebalancing latency, ${N} move${N === 1 ? '' : 's'} alternately into arbitrum and base, local chains (a block every ${BLOCK_SECS} s), ${settings}`,
    );
    console.log(`  threshold crossed → move planned          ${secs(s.planned)}`);
    console.log(`  move planned → burned (approve, burn)     ${secs(s.burned)}`);
    console.log(`  burned → attested                         ${secs(s.attested)}`);
    console.log(`  attested → received (mint)                ${secs(s.received)}`);
    console.log(`  threshold crossed → destination restored  ${secs(s.restored)}   (on chain: at or above its threshold)`);
    console.log(`  amount per move                           ${bigs(amounts)}`);
    console.log(
      `  fee executed per move                     ${bigs(fees)}  (${bps(cbSorted[0]!)}–${bps(cbSorted[cbSorted.length - 1]!)} bps of the amount)`,
    );
  } finally {
    await cleanUp();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);

import type { Hex } from 'viem';
import { untilHolds } from '@xchain/stack';
import type { E2eStack } from '../support/e2e-stack';
import type { GaslessClient } from '../support/gasless-client';
import { type MoveRow, RebalancingProbe } from '../support/rebalancing';
import { startSettlementStack } from '../support/settlement-fixture';

jest.setTimeout(240_000);

const USDC = 1_000_000n;
/** A burn unattested for 4 s is overdue: the suite's withheld attestation shows it without waiting half an hour. */
const STUCK_AFTER_MS = 4_000;
const REBALANCE_ENV = { REBALANCE_ENABLED: 'true', REBALANCE_POLL_MS: '300', REBALANCE_STUCK_AFTER_MS: String(STUCK_AFTER_MS) };

/**
 * Inventory rebalancing through CCTP on the local stack (issue 47): the devnet's CCTP V2 stand-ins
 * at Circle's addresses and its attestation stand-in. quoting.json's targets give base and arbitrum
 * half of the USDC each and plan a move into a chain below a quarter. A chain that falls below is
 * refilled from the other: approve and burn on base, the attestation fetched, the mint on arbitrum,
 * each once, through the relayer's lanes; kill -9 of the relayer between burn and mint changes nothing,
 * nor does kill -9 of the quote-engine while a burn waits for its attestation. A burn whose
 * attestation does not come (the stand-in withholds it) is shown overdue and never burned again.
 */
describe('rebalancing: a chain below its threshold is refilled through CCTP', () => {
  let e2e: E2eStack;
  let g: GaslessClient;

  let p: RebalancingProbe;

  /** The n-th move (from 1) once it is burned and the attester has withheld its attestation at least once. */
  const burnedAndWithheld = (n: number) =>
    untilHolds(
      `move ${n} burned, its attestation withheld`,
      async () => (await p.moves())[n - 1],
      (m) => m !== undefined && m.state === 'burned' && m.burn_tx !== null && attester().withheld(m.burn_tx as Hex) > 0,
      { timeoutMs: 60_000, everyMs: 200 },
    ) as Promise<MoveRow & { burn_tx: Hex }>;
  const attester = () => e2e.devnet!.attester!;
  /** A sample of the quote-engine's /metrics, as Prometheus scrapes it: `name{labels}` or `name` alone. */
  const metric = async (series: string): Promise<number | undefined> => {
    const text = await (await fetch(`http://127.0.0.1:${e2e.ports['quote-engine']}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  /** Arbitrum drained to a tenth of what base holds: well below its quarter of the whole. */
  const drainArbitrum = async () => {
    const left = (await p.usdc('base')) / 10n;
    await p.setUsdc('arbitrum', left);
    return left;
  };

  beforeAll(async () => {
    ({ e2e, g } = await startSettlementStack(REBALANCE_ENV));
    p = new RebalancingProbe(e2e, g);
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it('moves what arbitrum lacks of its half from base, once: burned amount − the fee executed arrives, and nothing more is planned', async () => {
    await p.setUsdc('base', 1_000n * USDC);
    await p.setUsdc('arbitrum', 100n * USDC);
    const [m] = await p.received(1);
    // 1,100 USDC in all: arbitrum's half is 550, it holds 100, below its quarter (275): 450 comes from base.
    expect(m).toMatchObject({ src_chain: 'base', dst_chain: 'arbitrum', amount: (450n * USDC).toString(), max_fee: '90000' });
    const fee = BigInt(m!.fee_executed!);
    expect(fee).toBe(45_000n); // the stand-in's Fast Transfer fee: 1 bps, within maxFee (2 bps, rounded up)
    expect(await p.usdc('base')).toBe(550n * USDC);
    expect(await p.usdc('arbitrum')).toBe(550n * USDC - fee);
    expect((await p.relayerRows(m!.id)).map((r) => [r.kind, r.chain, r.status])).toEqual([
      ['approve', 'base', 'confirmed'],
      ['burn', 'base', 'confirmed'],
      ['mint', 'arbitrum', 'confirmed'],
    ]);
    // Balanced now: several passes later, still one move.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await p.moves()).toHaveLength(1);

    const report = await untilHolds(
      'the report showing arbitrum at its target',
      () => e2e.admin('settlement'),
      (r) => r.code !== 0 || r.out.rebalancing?.[0]?.chains.every((c: { below_threshold: boolean }) => !c.below_threshold),
      { timeoutMs: 10_000, everyMs: 300 },
    );
    expect(report.code).toBe(0);
    const usdcReport = report.out.rebalancing.find((t: { token: string }) => t.token === 'USDC');
    expect(usdcReport).toMatchObject({ moved: true, unread: [] });
    expect(usdcReport.moves[0]).toMatchObject({ id: m!.id, state: 'received', fee_executed: '45000', overdue: false });
  });

  it('kill -9 of the relayer with the mint in flight: the move completes once', async () => {
    const before = await p.usdc('arbitrum');
    const rpc = (method: string, params: unknown[] = []) =>
      g.client('arbitrum').request({ method: method as never, params: params as never });
    // arbitrum stops mining, so the mint waits in its mempool.
    await rpc('evm_setAutomine', [false]);
    await rpc('evm_setIntervalMining', [0]);
    try {
      await p.setUsdc('arbitrum', before - 400n * USDC);
      const open = await untilHolds(
        'the second move attested and its mint sent',
        async () => {
          const rows = await p.moves();
          const m = rows[1];
          return m && m.state === 'attested' ? { m, rows: await p.relayerRows(m.id) } : undefined;
        },
        (x) => x !== undefined && x.rows.some((r) => r.kind === 'mint' && r.status === 'submitted'),
        { timeoutMs: 90_000, everyMs: 200 },
      );
      const victim = e2e.stack.services.get('gasless-relayer')!;
      const exited = new Promise((r) => victim.child.once('exit', r));
      victim.child.kill('SIGKILL');
      await exited;
      await rpc('evm_setIntervalMining', [1]);
      await e2e.stack.restart('gasless-relayer');
      const [, m] = await p.received(2);
      expect(m!.id).toBe(open!.m.id);
      expect((await p.relayerRows(m!.id)).map((r) => [r.kind, r.status])).toEqual([
        ['approve', 'confirmed'],
        ['burn', 'confirmed'],
        ['mint', 'confirmed'],
      ]);
      expect(await p.usdc('arbitrum')).toBe(before - 400n * USDC + BigInt(m!.amount) - BigInt(m!.fee_executed!));
    } finally {
      // Back to the devnet's block every second. Not evm_setAutomine(true): that mines only when a
      // transaction comes, so a transaction mined last never gets the block on top the relayer waits for.
      await rpc('evm_setIntervalMining', [1]);
    }
  });

  it('after the relayer was killed and restarted, the next move is sent and received like any other', async () => {
    const before = await drainArbitrum();
    const [, , m] = await p.received(3);
    expect((await p.relayerRows(m!.id)).map((r) => [r.kind, r.chain, r.status])).toEqual([
      ['approve', 'base', 'confirmed'],
      ['burn', 'base', 'confirmed'],
      ['mint', 'arbitrum', 'confirmed'],
    ]);
    expect(await p.usdc('arbitrum')).toBe(before + BigInt(m!.amount) - BigInt(m!.fee_executed!));
  });

  it('kill -9 of the quote-engine while a burn waits for its attestation: the restarted one completes the move, once', async () => {
    const baseBefore = await p.usdc('base');
    attester().withhold();
    let m: MoveRow & { burn_tx: Hex };
    try {
      const arbBefore = await drainArbitrum();
      m = await burnedAndWithheld(4);
      const victim = e2e.stack.services.get('quote-engine')!;
      const exited = new Promise((r) => victim.child.once('exit', r));
      victim.child.kill('SIGKILL');
      await exited;
      const askedBefore = attester().withheld(m.burn_tx);
      await e2e.stack.restart('quote-engine');
      // The restarted quote-engine takes the burned move up where it was: it asks for its attestation.
      await untilHolds(
        'the restarted quote-engine asking for the attestation',
        async () => attester().withheld(m.burn_tx),
        (n) => n > askedBefore,
        {
          timeoutMs: 60_000,
          everyMs: 200,
        },
      );
      expect((await p.moves())[3]).toMatchObject({ id: m.id, state: 'burned' });
      attester().release();
      const [, , , done] = await p.received(4);
      expect(done!.id).toBe(m.id);
      expect((await p.relayerRows(m.id)).map((r) => [r.kind, r.chain, r.status])).toEqual([
        ['approve', 'base', 'confirmed'],
        ['burn', 'base', 'confirmed'],
        ['mint', 'arbitrum', 'confirmed'],
      ]);
      // Burned once out of base, minted once into arbitrum.
      expect(await p.usdc('base')).toBe(baseBefore - BigInt(done!.amount));
      expect(await p.usdc('arbitrum')).toBe(arbBefore + BigInt(done!.amount) - BigInt(done!.fee_executed!));
      expect(await p.moves()).toHaveLength(4);
    } finally {
      attester().release();
    }
  });

  it('a burn whose attestation does not come stays burned, overdue in the report and past the limit in the metrics, and is never burned again', async () => {
    const baseBefore = await p.usdc('base');
    attester().withhold();
    try {
      const arbBefore = await drainArbitrum();
      const m = await burnedAndWithheld(5);
      const report = await untilHolds(
        'the report showing the burn overdue',
        () => e2e.admin('settlement'),
        (r) =>
          r.code !== 0 ||
          r.out.rebalancing
            ?.find((t: { token: string }) => t.token === 'USDC')
            ?.moves.some((v: { id: string; overdue: boolean }) => v.id === m.id && v.overdue),
        { timeoutMs: 30_000, everyMs: 500 },
      );
      expect(report.code).toBe(0);
      const view = report.out.rebalancing
        .find((t: { token: string }) => t.token === 'USDC')
        .moves.find((v: { id: string }) => v.id === m.id);
      expect(view).toMatchObject({ state: 'burned', overdue: true, burn_tx: m.burn_tx, mint_tx: null, error: null });

      // What an alert compares: the oldest burn's age over the limit.
      const limit = await metric('rebalance_stuck_after_seconds');
      expect(limit).toBe(STUCK_AFTER_MS / 1000);
      const age = await metric('rebalance_oldest_burn_age_seconds{token="USDC"}');
      expect(age).toBeGreaterThan(limit!);

      // Five more passes ask for the attestation past the limit: none burns again.
      const asked = attester().withheld(m.burn_tx);
      await untilHolds(
        'five more passes asking for the attestation',
        async () => attester().withheld(m.burn_tx),
        (n) => n >= asked + 5,
        {
          timeoutMs: 30_000,
          everyMs: 200,
        },
      );
      expect((await p.moves())[4]).toMatchObject({ id: m.id, state: 'burned' });
      expect((await p.relayerRows(m.id)).map((r) => [r.kind, r.status])).toEqual([
        ['approve', 'confirmed'],
        ['burn', 'confirmed'],
      ]);
      expect(await p.usdc('base')).toBe(baseBefore - BigInt(m.amount));
      expect(await p.usdc('arbitrum')).toBe(arbBefore);

      // Released, the attestation comes and the move completes.
      attester().release();
      const [, , , , done] = await p.received(5);
      expect(await p.usdc('arbitrum')).toBe(arbBefore + BigInt(done!.amount) - BigInt(done!.fee_executed!));
      expect(await metric('rebalance_oldest_burn_age_seconds{token="USDC"}')).toBe(0);
    } finally {
      attester().release();
    }
  });
});

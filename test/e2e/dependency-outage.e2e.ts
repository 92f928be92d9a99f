import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { until, type UntilOptions } from '@xchain/stack';
import type { E2eStack } from '../support/e2e-stack';
import { type GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { PLENTY, type SettlementFixture, startSettlementStack } from '../support/settlement-fixture';

jest.setTimeout(180_000);

interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

/** The quote-engine's log lines written after byte `from`. */
function quoteEngineLog(e2e: E2eStack, from: number): LogLine[] {
  return readFileSync(join(e2e.logDir, 'quote-engine.log'))
    .subarray(from)
    .toString('utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

/** Sum of the quote-engine's Prometheus samples whose line matches `pattern`. */
async function metric(e2e: E2eStack, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${e2e.ports['quote-engine']}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
  return text
    .split('\n')
    .filter((l) => pattern.test(l))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

const POLL: UntilOptions = { timeoutMs: 60_000, everyMs: 250, failOnError: true };

/**
 * The relayer away is one warning in the quote-engine's log, not one per failed call: while it is
 * down, settlement asks it for the inventory every pass, the deposit's order event is redelivered
 * every second (its view needs the relayer's state) and order views ask it for the relay state.
 * When it is back, one line says how long it was away and how many failures there were.
 */
describe('quote-engine: the relayer away and back', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let s: SettlementFixture;

  const rpc = (chain: string, method: string, params: unknown[] = []) =>
    g.client(chain).request({ method: method as never, params: params as never });

  beforeAll(async () => {
    ({ e2e, g, s } = await startSettlementStack());
  }, 240_000);

  afterAll(async () => {
    await e2e?.stop();
  });

  it('logs one warning while many calls fail, one line with the count when it is back, and the order that waited is filled', async () => {
    await s.setInventory(PLENTY);
    const user = g.newUser();
    await g.mint('base', LOCAL_TOKENS.base.USDC, user.address, 50_000_000n);
    const q = await s.retryingInventory(() => g.gaslessQuote('base', LOCAL_TOKENS.base.USDC, user.address, '40000000'));
    const body = await g.evmBody(user, q, true);

    // The relay transaction is sent but not mined; then the relayer dies.
    await rpc('base', 'evm_setIntervalMining', [0]);
    const relayer = e2e.stack.services.get('gasless-relayer')!;
    let from: number;
    try {
      expect((await g.submit(body)).body.status).toBe('queued');
      await g.waitOrder(q['quote_hash'], (v) => v.gasless?.status === 'submitted');
      from = statSync(join(e2e.logDir, 'quote-engine.log')).size;
      relayer.child.kill('SIGKILL');
      await new Promise((r) => relayer.child.once('exit', r));
    } finally {
      await rpc('base', 'evm_setIntervalMining', [1]);
    }

    // The deposit lands: the quote-engine records it and pushes its view (which needs the relayer),
    // and settlement asks the relayer for the inventory. Wait until both have failed many times.
    await g.waitOrder(q['quote_hash'], (v) => v.status === 'deposited', 30_000);
    await until('many failed calls to the relayer', async () => {
      const retries = await metric(e2e, /^nats_consumer_messages_total\{.*outcome="retry"/);
      const balances = await metric(
        e2e,
        /^nats_client_request_duration_seconds_count\{subject="gasless\.v1\.operator_balance",outcome="(?!ok")/,
      );
      return retries >= 5 && balances >= 10 ? true : undefined;
    });
    const warnings = quoteEngineLog(e2e, from!).filter((l) => l.level === 'warn');
    // A failure to see: every warning logged while the relayer was away.
    expect(warnings.map((w) => w.msg).length).toBeLessThanOrEqual(3);
    expect(warnings.map((w) => w.msg)).toContain('gasless unreachable; calls to it fail until it is back');

    // The same relayer again: its port, log and environment (its own database and Redis users).
    await e2e.stack.restart('gasless-relayer');
    const back = await until(
      'the relayer logged as back',
      () => quoteEngineLog(e2e, from).find((l) => l.msg === 'gasless reachable again'),
      POLL,
    );
    expect(back['failures']).toBeGreaterThanOrEqual(15);
    expect(back['down_ms']).toBeGreaterThan(0);
    await g.waitOrder(q['quote_hash'], (v) => v.status === 'fulfilled', 60_000);
    // Still one warning for the whole outage, and one line back.
    expect(quoteEngineLog(e2e, from).filter((l) => l.msg === 'gasless unreachable; calls to it fail until it is back')).toHaveLength(1);
    expect(quoteEngineLog(e2e, from).filter((l) => l.msg === 'gasless reachable again')).toHaveLength(1);
  });
});

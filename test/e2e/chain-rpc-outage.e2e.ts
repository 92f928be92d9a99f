import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XchainApiError } from '@xchain/client';
import { until, type UntilOptions } from '@xchain/stack';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';

jest.setTimeout(120_000);

const USDC = (n: number) => BigInt(n) * 10n ** 6n;

/** The relayer's log lines, parsed. */
function relayerLog(e2e: E2eStack): { level: string; msg: string; raw: string; [k: string]: unknown }[] {
  return readFileSync(join(e2e.logDir, 'gasless-relayer.log'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((raw) => ({ ...JSON.parse(raw), raw }));
}

const POLL: UntilOptions = { everyMs: 200, failOnError: true };

/**
 * A chain RPC that hangs (its anvil stopped with SIGSTOP: connections are accepted, nothing is
 * answered) while SubmitGaslessOrder checks the order on chain: the answer is 503
 * CHAIN_RPC_UNAVAILABLE with Retry-After, well before the gateway's deadline (which would be a
 * 504), and the relayer logs the outage in one short line naming the RPC host. Once the chain
 * answers again, the same submission is accepted.
 */
describe('gasless submission while the source chain RPC hangs', () => {
  let e2e: E2eStack;
  let g: GaslessClient;

  beforeAll(async () => {
    e2e = await startE2eStack(
      {
        PRICE_POLL_MS: '600000',
        PRICE_MAX_AGE_SECS: '7200',
        RELAY_POLL_MS: '200',
        RELAY_SWEEP_MS: '1000',
        CHAIN_WATCH_POLL_MS: '300',
        SETTLEMENT_ENABLED: 'false',
      },
      { devnet: { chains: ['base'] } },
    );
    g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
  }, 180_000);

  afterAll(async () => {
    const anvil = e2e?.devnet?.chains.get('base')?.proc.child;
    if (anvil?.pid) process.kill(anvil.pid, 'SIGCONT');
    await e2e?.stop();
  });

  it('answers 503 CHAIN_RPC_UNAVAILABLE with Retry-After and logs one short line, then accepts the same order once the chain answers', async () => {
    const user = g.newUser();
    await g.mint('base', LOCAL_TOKENS.base.USDC, user.address, USDC(100));
    const q = await g.gaslessQuote('base', LOCAL_TOKENS.base.USDC, user.address, USDC(60).toString());
    const body = await g.evmBody(user, q, true);
    const rpcHost = new URL(e2e.devnet!.chains.get('base')!.rpcUrl).host;
    const logged = relayerLog(e2e).length;

    const anvil = e2e.devnet!.chains.get('base')!.proc.child;
    process.kill(anvil.pid!, 'SIGSTOP');
    let refusal: unknown;
    try {
      refusal = await g.api.call('SubmitGaslessOrder', body as never).then(
        (ok) => ok,
        (err: unknown) => err,
      );
    } finally {
      process.kill(anvil.pid!, 'SIGCONT');
    }
    // Before the gateway's deadline (GASLESS_SUBMIT_TIMEOUT_MS): past it the answer would be 504 UPSTREAM_TIMEOUT.
    expect(refusal).toBeInstanceOf(XchainApiError);
    const err = refusal as XchainApiError;
    expect({
      http: err.httpStatus,
      code: err.code,
      reason: err.reason,
      metadata: err.metadata,
      retryAfter: err.headers.get('retry-after'),
    }).toEqual({
      http: 503,
      code: 14,
      reason: 'CHAIN_RPC_UNAVAILABLE',
      metadata: { chain: 'base' },
      retryAfter: '2',
    });
    expect(err.status.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retry_delay: '2s' });
    expect(err.status.message).not.toContain(rpcHost); // the RPC's address is the operator's, not the client's

    // One warning for the outage naming the host, short; then the probe sees the chain answer again.
    const back = await until(
      'the relayer logs the RPC reachable again',
      () =>
        relayerLog(e2e)
          .slice(logged)
          .find((l) => l.msg === `chain RPC ${rpcHost} reachable again`),
      POLL,
    );
    const warnings = relayerLog(e2e)
      .slice(logged)
      .filter((l) => l.msg === `chain RPC ${rpcHost} unreachable; calls to it fail until it is back`);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 'warn', host: rpcHost, chain: 'base', subject: 'gasless.v1.submit' });
    expect(warnings[0]!.raw.length).toBeLessThan(600);
    expect(back['failures']).toBeGreaterThanOrEqual(1);
    // No line of the request path quotes a whole viem error (those run to kilobytes with the request body).
    expect(
      relayerLog(e2e)
        .slice(logged)
        .filter((l) => l.msg === 'handler failed'),
    ).toEqual([]);

    const accepted = await g.submit(body);
    expect(accepted).toMatchObject({ status: 200, body: { quote_hash: q['quote_hash'], status: 'queued' } });
    await g.waitOrder(q['quote_hash'], (v) => v.gasless?.status === 'confirmed', 60_000);
  });
});

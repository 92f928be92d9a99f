import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Address, Hex } from 'viem';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { gatewayClient } from '../support/http';

jest.setTimeout(240_000);

const { base } = LOCAL_TOKENS;
const USDC = (n: number) => BigInt(n) * 10n ** 6n;

/**
 * A second `npm start` whose local chains start afresh while the databases keep everything: the
 * relayer remembers nonces the new chains never saw, the deposit watchers positions past the new
 * chains' heads. Each notices the replaced chain, resets its state there once, and gasless orders
 * relay and deposit again.
 */
describe('a restart on fresh local chains (databases kept)', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let router: Address;

  /** A funded user's gasless order on base: quoted, signed, submitted, followed to `confirmed` and `deposited`. */
  let relays = 0;
  /**
   * One gasless order from a fresh wallet. The relayer gives an owner's orders to the wallet at its
   * address modulo the wallet count (two here): the owners alternate between the two, so the orders
   * take turns between the relayer's wallets.
   */
  const relay = async () => {
    const lane = BigInt(relays++ % 2);
    let user = g.newUser();
    while (BigInt(user.address) % 2n !== lane) user = g.newUser();
    await g.mint('base', base.USDC, user.address, USDC(50));
    const q = await g.gaslessQuote('base', base.USDC, user.address, USDC(50).toString());
    expect(await g.submit(await g.evmBody(user, q, true))).toMatchObject({ status: 200, body: { status: 'queued' } });
    const view = await g.waitOrder(q['quote_hash'], (v) => v.gasless?.status === 'confirmed' && v.status === 'deposited', 60_000);
    const tx = await g.client('base').getTransaction({ hash: view.gasless.tx_hash as Hex });
    expect(await g.deposits('base', router, q['quote_hash'])).toHaveLength(1);
    return { view, tx };
  };
  const logLines = (service: string, text: string) =>
    readFileSync(join(e2e.logDir, `${service}.log`), 'utf8')
      .split('\n')
      .filter((l) => l.includes(text));

  beforeAll(async () => {
    e2e = await startE2eStack(
      { PRICE_POLL_MS: '600000', PRICE_MAX_AGE_SECS: '7200', RELAY_POLL_MS: '200', RELAY_SWEEP_MS: '1000', CHAIN_WATCH_POLL_MS: '300' },
      { devnet: { chains: ['ethereum', 'base'] } },
    );
    g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
    router = (await gatewayClient(e2e.gatewayUrl).getChains()).chains.find((c) => c.chain === 'base')!.deposit_target as Address;
  }, 240_000);

  afterAll(async () => {
    await e2e?.stop();
  });

  it('relays and deposits gasless orders again after the restart, each service resetting once per chain', async () => {
    // First run: a few orders, so each relayer wallet's remembered nonces are ahead of a fresh chain.
    const before = [];
    for (let i = 0; i < 4; i++) before.push(await relay());
    const wallet = before[0]!.tx.from;
    expect(before.filter((b) => b.tx.from === wallet).map((b) => b.tx.nonce)).toEqual([0, 1]);

    await e2e.restartOnFreshChains();
    expect(await g.client('base').getTransactionCount({ address: wallet })).toBe(0);

    // The relayer's first nonce take for the wallet finds the chain replaced, the watcher reads it from its start.
    const after = await relay();
    expect(after.tx.from).toBe(wallet); // the owners take turns from the first wallet again
    expect(after.tx.nonce).toBe(0);
    const second = await relay();
    expect(second.tx.nonce).toBe(0); // the other wallet: its own reset
    expect((await relay()).tx.nonce).toBe(1);

    // One warning per wallet whose state was reset, one per chain watcher; none before the restart.
    const relayerResets = logLines('gasless-relayer', 'chain replaced');
    expect(relayerResets).toHaveLength(2);
    expect(new Set(relayerResets.map((l) => (JSON.parse(l) as { wallet: string }).wallet))).toEqual(new Set(e2e.relayerWallets));
    const watcherResets = logLines('quote-engine', 'chain replaced under the watcher');
    expect(watcherResets.filter((l) => l.includes('deposits:base:'))).toHaveLength(1);
    expect(watcherResets.filter((l) => l.includes('deposits:ethereum:')).length).toBeLessThanOrEqual(1);
    // The orders of the first run stay as they were recorded.
    for (const b of before)
      expect((await g.order(b.view.quote_hash)).body).toMatchObject({
        status: 'deposited',
        gasless: { status: 'confirmed', tx_hash: b.view.gasless.tx_hash },
      });
  });
});

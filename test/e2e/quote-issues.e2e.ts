import type { XchainClient } from '@xchain/client';
import { PERMIT2_ADDRESS, approveCalldata } from '@xchain/evm-gasless';
import { until } from '@xchain/stack';
import { type Address, maxUint256 } from 'viem';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { crossChainOf, expectApiError, gatewayClient } from '../support/http';
import { T } from '../support/registry-fixture';

jest.setTimeout(120_000);

const { ethereum } = LOCAL_TOKENS;
const USDC = (n: number) => BigInt(n) * 10n ** 6n;
type QuoteBody = Parameters<XchainClient['getQuote']>[0];

/**
 * GetQuote tells the wallet whether it can execute the quote as it stands (issue 39 §1), read
 * from a real chain (anvil with our router, Permit2 and dev tokens): what is short, by how much,
 * and what fixes it; a chain that hangs costs the check, never the quote. Every quote carries its
 * price impact, and a caller's limit on it refuses rather than quotes worse.
 */
describe('quotes that say whether they can execute', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let api: XchainClient;
  let router: Address;

  const body = (owner: Address, over: Partial<QuoteBody> = {}): QuoteBody => ({
    src_chain: 'ethereum',
    dst_chain: 'arbitrum',
    src_token: ethereum.USDC,
    dst_token: T.arbitrum.USDC,
    trade_type: 'TRADE_TYPE_EXACT_INPUT',
    amount: USDC(50).toString(),
    gas_drop: '',
    recipient: owner,
    refund_address: owner,
    ...over,
  });
  const quote = async (b: QuoteBody) => crossChainOf(await api.getQuote(b));
  const codes = (q: { issues?: { code: string }[] }) => (q.issues ?? []).map((i) => i.code);

  beforeAll(async () => {
    e2e = await startE2eStack(
      { PRICE_POLL_MS: '600000', PRICE_MAX_AGE_SECS: '7200', SETTLEMENT_ENABLED: 'false', QUOTE_CHECKS_CACHE_MS: '1000' },
      { devnet: { chains: ['ethereum'] } },
    );
    g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
    api = gatewayClient(e2e.gatewayUrl);
    router = (await api.getChains()).chains.find((c) => c.chain === 'ethereum')!.deposit_target as Address;
  }, 180_000);

  afterAll(async () => {
    const anvil = e2e?.devnet?.chains.get('ethereum')?.proc.child;
    if (anvil?.pid) process.kill(anvil.pid, 'SIGCONT');
    await e2e?.stop();
  });

  it('tells an empty wallet everything it lacks, with the figures and the fix', async () => {
    const user = g.newUser();
    const q = await quote(body(user.address));
    expect(codes(q)).toEqual(['BALANCE_SHORT', 'ROUTER_ALLOWANCE_SHORT', 'NATIVE_GAS_SHORT']);
    const [balance, allowance, gas] = q.issues!;
    expect(balance).toMatchObject({ chain: 'ethereum', needed: q.amount_in, have: '0' });
    expect(balance!.fix).toContain(`${q.amount_in} more`);
    expect(allowance).toMatchObject({ needed: q.approval!.amount, have: '0' });
    expect(gas).toMatchObject({ have: '0' });
    expect(BigInt(gas!.needed!)).toBeGreaterThan(0n);
  });

  it('names the missing allowance of a funded wallet: the router for a deposit, Permit2 for a gasless token without a permit', async () => {
    const user = g.newUser();
    await g.mint('ethereum', ethereum.USDC, user.address, USDC(100));
    await g.mint('ethereum', ethereum.USDT, user.address, USDC(100));
    await g.setNativeBalance('ethereum', user.address, 10n ** 18n);
    const deposit = await quote(body(user.address));
    expect(deposit.issues).toEqual([
      expect.objectContaining({ code: 'ROUTER_ALLOWANCE_SHORT', needed: deposit.approval!.amount, have: '0' }),
    ]);
    const gasless = await quote(body(user.address, { src_token: ethereum.USDT, gasless: true }));
    expect(gasless.erc2612).toBeUndefined();
    expect(gasless.issues).toEqual([expect.objectContaining({ code: 'PERMIT2_ALLOWANCE_SHORT', needed: gasless.amount_in, have: '0' })]);
    expect(gasless.issues![0]!.fix).toBe(`approve Permit2 for at least ${gasless.amount_in} base units of USDT`);
    // A permit token needs no Permit2 approval: the quote offers the EIP-2612 permit instead.
    const permit = await quote(body(user.address, { gasless: true }));
    expect(permit.erc2612).toBeDefined();
    expect(permit.issues).toEqual([]);
  });

  it('finds nothing to say to a funded wallet that approved', async () => {
    const user = g.newUser();
    await g.mint('ethereum', ethereum.USDC, user.address, USDC(100));
    await g.mint('ethereum', ethereum.USDT, user.address, USDC(100));
    await g.setNativeBalance('ethereum', user.address, 10n ** 18n);
    await g.send('ethereum', { to: ethereum.USDC, data: approveCalldata(router, maxUint256) }, user);
    await g.send('ethereum', { to: ethereum.USDT, data: approveCalldata(PERMIT2_ADDRESS, maxUint256) }, user);
    expect((await quote(body(user.address))).issues).toEqual([]);
    expect((await quote(body(user.address, { src_token: ethereum.USDT, gasless: true }))).issues).toEqual([]);
  });

  it('still quotes while the chain RPC hangs, saying the checks could not be made; checks again once it answers', async () => {
    const user = g.newUser();
    const anvil = e2e.devnet!.chains.get('ethereum')!.proc.child;
    process.kill(anvil.pid!, 'SIGSTOP');
    let q: Awaited<ReturnType<typeof quote>>;
    try {
      q = await quote(body(user.address));
    } finally {
      process.kill(anvil.pid!, 'SIGCONT');
    }
    expect(q.quote_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(q.issues).toEqual([expect.objectContaining({ code: 'CHAIN_UNAVAILABLE', chain: 'ethereum' })]);
    expect(q.issues![0]!.reason).toContain('could not be made');
    // Once the chain answers (and the failure is no longer remembered), the same wallet is checked again.
    await until('the checks on a chain that answers again', async () => codes(await quote(body(user.address)))[0] === 'BALANCE_SHORT', {
      timeoutMs: 20_000,
      everyMs: 300,
    });
  });

  it('carries price_impact_bps on previews and quotes, and refuses a quote past max_price_impact_bps', async () => {
    const user = g.newUser();
    const { recipient: _r, refund_address: _a, ...previewBody } = body(user.address);
    const preview = await api.previewQuote(previewBody);
    expect(preview.price_impact_bps).toBeGreaterThan(0);
    expect((preview as { issues?: unknown }).issues).toBeUndefined();
    const q = await quote(body(user.address));
    expect(q.price_impact_bps).toBe(preview.price_impact_bps);
    // At the figure it quotes; one below it, or 0, it refuses with the figure and the limit.
    expect((await quote(body(user.address, { max_price_impact_bps: q.price_impact_bps }))).quote_hash).toMatch(/^0x/);
    for (const limit of [q.price_impact_bps! - 1, 0]) {
      await expectApiError(api.getQuote(body(user.address, { max_price_impact_bps: limit })), {
        http: 400,
        reason: 'PRICE_IMPACT_TOO_HIGH',
        metadata: { price_impact_bps: String(q.price_impact_bps), max_price_impact_bps: String(limit) },
      });
    }
    await expectApiError(api.previewQuote({ ...previewBody, max_price_impact_bps: 0 }), { http: 400, reason: 'PRICE_IMPACT_TOO_HIGH' });
  });
});

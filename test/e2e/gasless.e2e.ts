import { ERC20_PERMIT_ABI, PERMIT2_ADDRESS, XCHAIN_ROUTER_ABI, approveCalldata } from '@xchain/evm-gasless';
import { orderFromWire } from '@xchain/order-codec';
import type { XchainClient } from '@xchain/client';
import { type Address, type Hex, encodeFunctionData, getAddress, maxUint256 } from 'viem';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { apiErrorView, crossChainOf, gatewayClient } from '../support/http';
import { T } from '../support/registry-fixture';

jest.setTimeout(120_000);

const { base, ethereum } = LOCAL_TOKENS;
const USDC = (n: number) => BigInt(n) * 10n ** 6n;

/** Gasless EVM orders end to end: quote, sign with viem as a wallet would, submit, watch the order view. */
describe('gasless EVM orders through the gateway', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let api: XchainClient;
  /** Submits a body that must be refused; what the refusal says. The bodies are built loosely (by GaslessClient), some malformed on purpose. */
  const refused = (body: unknown) =>
    api.submitGaslessOrder(body as Parameters<XchainClient['submitGaslessOrder']>[0]).then((ok) => {
      throw new Error(`expected a refusal, the order was accepted: ${JSON.stringify(ok)}`);
    }, apiErrorView);
  let chains: Record<string, { deposit_target: Address; gasless_executor: Address }>;
  let feeRecipient: Address;

  const relayerBalances = async () =>
    Promise.all(
      e2e.relayerWallets.map(async (w) => [
        await g.client('base').getBalance({ address: w }),
        await g.client('ethereum').getBalance({ address: w }),
      ]),
    );

  beforeAll(async () => {
    e2e = await startE2eStack(
      { PRICE_POLL_MS: '600000', PRICE_MAX_AGE_SECS: '7200', RELAY_POLL_MS: '200', RELAY_SWEEP_MS: '1000', CHAIN_WATCH_POLL_MS: '300' },
      { devnet: { chains: ['ethereum', 'base'] } },
    );
    g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
    feeRecipient = e2e.devnet!.feeRecipient;
    api = gatewayClient(e2e.gatewayUrl);
    const listed = await api.getChains();
    chains = Object.fromEntries(
      listed.chains.map((c) => [c.chain, { deposit_target: c.deposit_target as Address, gasless_executor: c.gasless_executor as Address }]),
    );
  }, 180_000);

  afterAll(async () => {
    await e2e?.stop();
  });

  it('relays a permit token with no prior approval and no native gas: the balances reconcile to the unit', async () => {
    const user = g.newUser();
    await g.mint('base', base.USDC, user.address, USDC(500));
    const q = await g.gaslessQuote('base', base.USDC, user.address, '250000000');
    expect(q['permit2'].message.spender).toBe(getAddress(chains['base']!.gasless_executor));
    expect(q['erc2612']).toBeDefined();
    const [router0, fee0] = await Promise.all([
      g.balanceOf('base', base.USDC, chains['base']!.deposit_target),
      g.balanceOf('base', base.USDC, feeRecipient),
    ]);

    const r = await g.submit(await g.evmBody(user, q, true));
    expect(r).toMatchObject({ status: 200, body: { quote_hash: q['quote_hash'], status: 'queued' } });
    const view = await g.waitOrder(q['quote_hash'], (v) => v.gasless?.status === 'confirmed' && v.status === 'deposited');
    expect(view.gasless.tx_hashes).toEqual([view.gasless.tx_hash]);
    expect(view.deposit).toMatchObject({ chain: 'base', tx_hash: view.gasless.tx_hash });

    const sponsorGas = BigInt(q['order'].sponsor_gas);
    expect(sponsorGas).toBeGreaterThan(0n);
    expect(await g.balanceOf('base', base.USDC, user.address)).toBe(USDC(500) - 250_000_000n);
    expect(await g.balanceOf('base', base.USDC, feeRecipient)).toBe(fee0 + sponsorGas);
    expect(await g.balanceOf('base', base.USDC, chains['base']!.deposit_target)).toBe(router0 + 250_000_000n - sponsorGas);
    const [dep] = await g.deposits('base', chains['base']!.deposit_target, q['quote_hash']);
    expect(dep!.args).toMatchObject({ depositor: user.address, token: getAddress(base.USDC), amount: 250_000_000n - sponsorGas });
    expect(await g.client('base').getBalance({ address: user.address })).toBe(0n); // never needed gas
  });

  it('relays a token without permit once Permit2 is approved', async () => {
    const user = g.newUser();
    await g.mint('ethereum', ethereum.USDT, user.address, USDC(100));
    await g.setNativeBalance('ethereum', user.address, 10n ** 17n);
    await g.send('ethereum', { to: ethereum.USDT, data: approveCalldata(PERMIT2_ADDRESS, maxUint256) }, user);
    const q = await g.gaslessQuote('ethereum', ethereum.USDT, user.address, '100000000');
    expect(q['erc2612']).toBeUndefined();
    expect((await g.submit(await g.evmBody(user, q))).body.status).toBe('queued');
    const view = await g.waitOrder(q['quote_hash'], (v) => v.gasless?.status === 'confirmed' && v.status === 'deposited');
    expect(view.deposit.block_number).toMatch(/^[1-9][0-9]*$/);
    expect(await g.balanceOf('ethereum', ethereum.USDT, user.address)).toBe(0n);
  });

  it('sends one transaction for a quote submitted twice at once with two different valid bodies, and answers its state after', async () => {
    const user = g.newUser();
    await g.mint('base', base.USDC, user.address, USDC(50));
    const q = await g.gaslessQuote('base', base.USDC, user.address, '20000000');
    const [a, b] = await Promise.all([
      g.submit(await g.evmBody(user, q, true)),
      g.submit(await g.evmBody(user, q, true).then((x) => ({ ...x, evm: { ...(x['evm'] as object), permit_signature: undefined } }))),
    ]);
    // One of them may be refused (no allowance without the permit) or both accepted; never two orders.
    expect([a.status, b.status]).toContain(200);
    const view = await g.waitOrder(q['quote_hash'], (v) => v.gasless?.status === 'confirmed');
    expect(view.gasless.tx_hashes).toHaveLength(1);
    const again = await g.submit(await g.evmBody(user, q, true));
    expect(again.body).toEqual({ quote_hash: q['quote_hash'], status: 'confirmed', tx_hash: view.gasless.tx_hash });
    expect(await g.deposits('base', chains['base']!.deposit_target, q['quote_hash'])).toHaveLength(1);
  });

  it('refuses, before any gas is spent: a forged signature, another nonce, a short balance, an unknown or non-gasless quote, a body for the wrong VM', async () => {
    const before = await relayerBalances();
    const user = g.newUser();
    const forger = g.newUser();
    await g.mint('base', base.USDC, user.address, USDC(10));
    const q = await g.gaslessQuote('base', base.USDC, user.address, '10000000');
    const good = await g.evmBody(user, q, true);
    const evm = good['evm'] as Record<string, string>;
    expect(await refused({ ...good, evm: { ...evm, signature: await g.sign(forger, q['permit2']) } })).toMatchObject({
      http: 400,
      reason: 'INVALID_SIGNATURE',
    });
    expect(await refused({ ...good, evm: { ...evm, permit2_nonce: '1' } })).toMatchObject({ http: 400, reason: 'INVALID_SIGNATURE' });
    expect(await refused({ ...good, evm: { ...evm, permit_signature: await g.sign(forger, q['erc2612']) } })).toMatchObject({
      http: 400,
      reason: 'INVALID_PERMIT_SIGNATURE',
    });
    expect(await refused({ ...good, svm: { tx_base64: 'AA==' }, evm: undefined })).toMatchObject({ http: 400, reason: 'WRONG_VM' });
    expect(await refused({ ...good, quote_hash: `0x${'ab'.repeat(32)}` })).toMatchObject({ http: 404, reason: 'QUOTE_NOT_FOUND' });

    const poor = g.newUser();
    const pq = await g.gaslessQuote('base', base.USDC, poor.address, '10000000');
    expect(await refused(await g.evmBody(poor, pq, true))).toMatchObject({
      http: 400,
      code: 9,
      reason: 'INSUFFICIENT_BALANCE',
      metadata: { balance: '0', required: '10000000' },
    });

    const plain = crossChainOf(
      await api.getQuote({
        src_chain: 'base',
        dst_chain: 'arbitrum',
        src_token: base.USDC,
        dst_token: T.arbitrum.USDC,
        trade_type: 'TRADE_TYPE_EXACT_INPUT',
        amount: '10000000',
        gas_drop: '',
        recipient: user.address,
        refund_address: user.address,
      }),
    );
    expect(await refused({ quote_hash: plain.quote_hash, evm })).toMatchObject({ http: 400, reason: 'NOT_GASLESS' });

    // Without the permit and without an allowance: told what is missing.
    const { permit_signature: _omit, ...noPermit } = evm;
    expect(await refused({ ...good, evm: noPermit })).toMatchObject({ http: 400, reason: 'INSUFFICIENT_ALLOWANCE' });
    expect(await relayerBalances()).toEqual(before);
    expect((await g.order(q['quote_hash'])).body.gasless).toBeUndefined();
  });

  it('refuses an order whose relayed call would revert, with the revert reason (already deposited by someone else)', async () => {
    const user = g.newUser();
    await g.mint('base', base.USDC, user.address, USDC(100));
    const q = await g.gaslessQuote('base', base.USDC, user.address, '30000000');
    // Someone deposits the gasless order through the router directly first.
    const { order } = orderFromWire(q['order']);
    await g.setNativeBalance('base', user.address, 10n ** 17n);
    await g.send('base', { to: base.USDC, data: approveCalldata(chains['base']!.deposit_target, maxUint256) }, user);
    await g.send(
      'base',
      {
        to: chains['base']!.deposit_target,
        data: encodeFunctionData({ abi: XCHAIN_ROUTER_ABI, functionName: 'deposit', args: [order as never] }),
      },
      user,
    );
    const r = await refused(await g.evmBody(user, q, true));
    expect(r).toMatchObject({ http: 400, code: 9, reason: 'SIMULATION_REVERTED' });
    expect(r.metadata?.['revert_reason']).toMatch(/^AlreadyDeposited/);
  });

  it('serves deposit_tx and approval on a quote that is not gasless; sending them deposits the order', async () => {
    const user = g.newUser();
    await g.mint('ethereum', ethereum.USDC, user.address, USDC(40));
    await g.setNativeBalance('ethereum', user.address, 10n ** 18n);
    const q = crossChainOf(
      await api.getQuote({
        src_chain: 'ethereum',
        dst_chain: 'arbitrum',
        src_token: ethereum.USDC,
        dst_token: T.arbitrum.USDC,
        trade_type: 'TRADE_TYPE_EXACT_INPUT',
        amount: '40000000',
        gas_drop: '',
        recipient: user.address,
        refund_address: user.address,
      }),
    );
    if (!q.approval || !q.deposit_tx) throw new Error('a non-gasless EVM quote carries approval and deposit_tx');
    expect(q.approval).toEqual({
      token: getAddress(ethereum.USDC),
      spender: getAddress(chains['ethereum']!.deposit_target),
      amount: '40000000',
    });
    expect(q.deposit_tx).toMatchObject({ to: getAddress(chains['ethereum']!.deposit_target), value: '0' });
    await g.send(
      'ethereum',
      {
        to: q.approval.token as Address,
        data: encodeFunctionData({
          abi: ERC20_PERMIT_ABI,
          functionName: 'approve',
          args: [q.approval.spender as Address, BigInt(q.approval.amount)],
        }),
      },
      user,
    );
    await g.send('ethereum', { to: q.deposit_tx.to as Address, data: q.deposit_tx.data as Hex, value: BigInt(q.deposit_tx.value) }, user);
    const view = await g.waitOrder(q.quote_hash, (v) => v.status === 'deposited');
    expect(view).toMatchObject({ src_chain: 'ethereum', amount_in: '40000000', deposit: { chain: 'ethereum' } });
    expect(view.gasless).toBeUndefined();
  });
});

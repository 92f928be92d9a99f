import { ANVIL_DEV_KEY, compileXchainContracts, deployContract } from '@xchain/chain-tools';
import { XCHAIN_ROUTER_ABI, destinationCallSalt, fillWithCallTx } from '@xchain/evm-gasless';
import { hashOrder, orderFromWire } from '@xchain/order-codec';
import { type Address, type Hex, BaseError, decodeErrorResult, encodeFunctionData, getAddress, parseAbi } from 'viem';
import type { E2eStack } from '../support/e2e-stack';
import type { GaslessClient } from '../support/gasless-client';
import { LOCAL_TOKENS } from '../support/gasless-client';
import { crossChainOf, expectApiError } from '../support/http';
import { SOL_USER, T } from '../support/registry-fixture';
import { ARB_USDC, PLENTY, type SettlementFixture, filler, startSettlementStack } from '../support/settlement-fixture';

jest.setTimeout(180_000);

const VAULT_ABI = parseAbi([
  'function deposit(address token, address beneficiary)',
  'function balanceOf(address beneficiary, address token) view returns (uint256)',
  'function setPaused(bool value)',
]);
const GAS_LIMIT = 250_000;
const AMOUNT = 25_000_000n;
const BASE_USDC = LOCAL_TOKENS.base.USDC;

/**
 * Destination calls (issue 39 §4) through the gateway on the real stack: a quote binds a call to a
 * vault on arbitrum, the user deposits on base, settlement fills with `fillWithCall`, and the vault
 * credits the beneficiary; a vault paused after the quote makes the fill fall back to the recipient;
 * a call that reverts in simulation is refused at quote time.
 */
describe('destination calls: the fill delivers to a contract and calls it, or falls back', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let s: SettlementFixture;
  let vault: Address;
  let reverter: Address;
  const owner = { key: ANVIL_DEV_KEY };

  beforeAll(async () => {
    ({ e2e, g, s } = await startSettlementStack());
    const compiled = compileXchainContracts();
    const rpcUrl = e2e.devnet!.chains.get('arbitrum')!.rpcUrl;
    vault = getAddress(await deployContract({ rpcUrl, deployerKey: owner.key, contract: compiled['DevVault']! }));
    reverter = getAddress(await deployContract({ rpcUrl, deployerKey: owner.key, contract: compiled['DevReverter']! }));
    await s.setInventory(PLENTY);
  }, 240_000);

  afterAll(async () => {
    await e2e?.stop();
  });

  const credited = (beneficiary: Address) =>
    g.client('arbitrum').readContract({ address: vault, abi: VAULT_ABI, functionName: 'balanceOf', args: [beneficiary, ARB_USDC] });
  const setPaused = (paused: boolean) =>
    g.send('arbitrum', { to: vault, data: encodeFunctionData({ abi: VAULT_ABI, functionName: 'setPaused', args: [paused] }) });
  const request = (recipient: Address, amount = AMOUNT) => ({
    src_chain: 'base',
    dst_chain: 'arbitrum',
    src_token: BASE_USDC,
    dst_token: ARB_USDC,
    trade_type: 'TRADE_TYPE_EXACT_INPUT' as const,
    amount: amount.toString(),
    gas_drop: '',
    recipient,
    refund_address: recipient,
  });
  const vaultCall = (beneficiary: Address) => ({
    target: vault,
    calldata: encodeFunctionData({ abi: VAULT_ABI, functionName: 'deposit', args: [ARB_USDC, beneficiary] }),
    gas_limit: GAS_LIMIT,
  });
  /** A user who holds AMOUNT of base USDC, quoted with a call to the vault for `beneficiary`. */
  const quoteWithCall = async (beneficiary: Address) => {
    const user = g.newUser();
    await g.mint('base', BASE_USDC, user.address, AMOUNT);
    await g.setNativeBalance('base', user.address, 10n ** 17n);
    const q = crossChainOf(
      await s.retryingInventory(() =>
        g.api.getQuote({ ...request(user.address), destination_call: { ...vaultCall(beneficiary), fallback_recipient: user.address } }),
      ),
    );
    return { user, q, order: orderFromWire(q.order).order };
  };

  it('binds the call into the quote hash, prices its gas, fills through the vault, and the view says executed', async () => {
    const beneficiary = g.newUser().address;
    const { recipient: _r, refund_address: _f, ...priced } = request(beneficiary);
    const preview = await s.retryingInventory(() => g.api.previewQuote(priced));
    const o = await quoteWithCall(beneficiary);

    // The call a client can check: the order's salt commits to it, and the quote hash covers the salt.
    const call = o.q.destination_call!;
    expect(call).toMatchObject({ target: vault, gas_limit: String(GAS_LIMIT), calldata: vaultCall(beneficiary).calldata.toLowerCase() });
    const committed = { target: getAddress(call.target), gasLimit: BigInt(call.gas_limit), data: call.calldata as Hex };
    expect(o.order.salt).toBe(destinationCallSalt(call.call_salt as Hex, committed));
    expect(hashOrder(o.order)).toBe(o.q.quote_hash);
    expect(getAddress(`0x${o.order.recipient.slice(26)}`)).toBe(o.user.address);
    // Its gas is priced in: gas_limit × the destination's gas price on top of the fulfilment gas.
    const extra = BigInt(o.q.fee_breakdown.dst_gas_native) - BigInt(preview.fee_breakdown.dst_gas_native);
    expect(extra).toBeGreaterThan(0n);
    expect(extra % BigInt(GAS_LIMIT)).toBe(0n);
    // PreviewQuote prices the same gas from the target and gas_limit.
    const previewed = await s.retryingInventory(() =>
      g.api.previewQuote({ ...priced, destination_call: { target: vault, gas_limit: GAS_LIMIT } }),
    );
    const previewExtra = BigInt(previewed.fee_breakdown.dst_gas_native) - BigInt(preview.fee_breakdown.dst_gas_native);
    expect(previewExtra).toBeGreaterThan(0n);
    expect(previewExtra % BigInt(GAS_LIMIT)).toBe(0n);
    expect(BigInt(previewed.amount_out)).toBeLessThan(BigInt(preview.amount_out));

    // A filler that tampers with the call or the salt cannot fill the order.
    const router = s.routers['arbitrum']!;
    const other = { ...committed, data: vaultCall(g.newUser().address).calldata };
    for (const [bad, salt] of [
      [other, call.call_salt],
      [committed, `0x${'11'.repeat(32)}`],
    ] as const) {
      const tx = fillWithCallTx(o.order, o.order.amountOut, bad, salt as Hex, router);
      const err = await g
        .client('arbitrum')
        .call({ account: filler.address, to: tx.to, data: tx.data, value: tx.value })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      const data = (
        err instanceof BaseError ? (err.walk((x) => typeof (x as { data?: unknown }).data === 'string') as { data?: Hex } | null) : null
      )?.data;
      expect(data && decodeErrorResult({ abi: XCHAIN_ROUTER_ABI, data }).errorName).toBe('BadCallCommitment');
    }

    await s.deposit(o);
    const view = await g.waitOrder(o.q.quote_hash, (v) => v.status === 'fulfilled', 60_000);
    expect(view.fulfillment).toMatchObject({ amount: o.q.amount_out, destination_call: { target: vault, status: 'executed' } });
    expect(await credited(beneficiary)).toBe(BigInt(o.q.amount_out));
    expect(await g.balanceOf('arbitrum', ARB_USDC, o.user.address)).toBe(0n);
    const [ran] = await s.routerEvents('arbitrum', 'Filled', o.q.quote_hash);
    expect(ran?.args).toMatchObject({ recipient: vault, amount: BigInt(o.q.amount_out) });
  });

  it('falls back to the recipient when the target reverts at fill time (the vault paused after the quote): fulfilled, fell_back', async () => {
    const beneficiary = g.newUser().address;
    const o = await quoteWithCall(beneficiary);
    await setPaused(true);
    try {
      await s.deposit(o);
      const view = await g.waitOrder(o.q.quote_hash, (v) => v.status === 'fulfilled', 60_000);
      expect(view.fulfillment).toMatchObject({ destination_call: { target: vault, status: 'fell_back' } });
      expect(view.settlement).toMatchObject({ decision: 'fill' });
      expect(await g.balanceOf('arbitrum', ARB_USDC, o.user.address)).toBe(BigInt(o.q.amount_out));
      expect(await credited(beneficiary)).toBe(0n);
    } finally {
      await setPaused(false);
    }
  });

  it('refuses a quote whose call reverts in simulation, with the revert reason, and one to a Solana destination', async () => {
    const user = g.newUser().address;
    const err = await expectApiError(
      g.api.getQuote({ ...request(user), destination_call: { target: reverter, calldata: '0x12345678', gas_limit: GAS_LIMIT } }),
      { http: 400, reason: 'DESTINATION_CALL_REVERTS' },
    );
    expect(err.message).toContain('DevReverter: no');
    // Paused vault: the same refusal, before anyone deposits.
    await setPaused(true);
    try {
      await expectApiError(g.api.getQuote({ ...request(user), destination_call: vaultCall(user) }), {
        http: 400,
        reason: 'DESTINATION_CALL_REVERTS',
      });
    } finally {
      await setPaused(false);
    }
    await expectApiError(
      g.api.getQuote({
        ...request(user),
        dst_chain: 'solana',
        dst_token: T.solana.USDC,
        recipient: SOL_USER,
        destination_call: vaultCall(user),
      }),
      { http: 400, reason: 'DESTINATION_CALL_UNSUPPORTED', fields: ['destination_call'] },
    );
    await expectApiError(g.api.getQuote({ ...request(user), destination_call: { ...vaultCall(user), gas_limit: 2_000_001 } }), {
      http: 400,
      reason: 'INVALID_DESTINATION_CALL',
      fields: ['destination_call.gas_limit'],
    });
  });
});

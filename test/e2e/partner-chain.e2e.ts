import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { ANVIL_DEV_KEY, compileContracts, startAnvil } from '@xchain/chain-tools';
import { buildFundingCall } from '@xchain/partner-chain';
import { ROOT, until, type UntilOptions } from '@xchain/stack';
import { Client } from 'pg';
import { type Address, type Hex, createPublicClient, createWalletClient, getAddress, http, pad, zeroAddress } from 'viem';
import { privateKeyToAccount, privateKeyToAddress } from 'viem/accounts';
import { type E2eStack, startE2eStack } from '../support/e2e-stack';
import { crossChainOf, expectApiError, gatewayClient } from '../support/http';
import { FULFILMENT_STAND_IN, publishFulfilled } from '../support/order-events';
import { EVM_REFUND, EVM_USER, T, USDC_ETH_TO_ARB } from '../support/registry-fixture';
import { PartnerSession, partnerAdmin } from '../support/partner-session';

// Jest's default 5 s per test is a wall-clock bound these chain-reading tests (each polling with its own
// 15 s deadlines, several admin-tool runs) cannot promise on a shared machine.
jest.setTimeout(120_000);

const CONFIRMATIONS = 2;
const partners = JSON.parse(readFileSync(join(ROOT, 'config/partners.json'), 'utf8')) as {
  funding: { router_address: Address };
  voucher_routers: Record<string, Address>;
};
const ROUTER = getAddress(partners.funding.router_address);
const VOUCHER_ROUTER = getAddress(partners.voucher_routers['ethereum']!);
const USDC = getAddress(T.base.USDC);
const DEV_VOUCHER_SIGNER = privateKeyToAddress('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

/** One anvil playing a listed chain, with viem clients on it. */
async function evm(chainId: number) {
  const anvil = await startAnvil(chainId);
  return {
    anvil,
    client: createPublicClient({ transport: http(anvil.rpcUrl) }),
    wallet: createWalletClient({ transport: http(anvil.rpcUrl) }),
  };
}
type Evm = Awaited<ReturnType<typeof evm>>;

const POLL: UntilOptions = { timeoutMs: 15_000, everyMs: 100, failOnError: true };

/**
 * The partner-service reading chains, end to end through the gateway. Two anvils play Base
 * (8453, the funding chain) and Ethereum (1, a voucher chain), with the reference routers and a
 * test ERC-20 placed at the addresses config/partners.json and the registry name. A partner's
 * funding transaction is credited from the router's `Funded` event once it has CONFIRMATIONS
 * blocks on top; a voucher redeemed on its router shows as redeemed.
 */
describe('partners on chain: funding deposits and voucher redemptions', () => {
  let e2e: E2eStack;
  let base: Evm;
  let eth: Evm;
  let db: Client;
  let nc: NatsConnection;
  const account = privateKeyToAccount(ANVIL_DEV_KEY);
  let client: Evm['client'];
  let compiled: ReturnType<typeof compileContracts>;
  let stray: Address; // an ERC-20 that is not a funding token
  let fin: string;
  let bob: string;

  /** The gateway as a partner session sees it. */
  const as = (token: string) => gatewayClient(e2e.gatewayUrl, { sessionToken: token });
  const admin = (...args: string[]) => partnerAdmin(e2e)(...args);
  const mine = (on: Evm, blocks: number) => on.client.request({ method: 'anvil_mine' as any, params: [`0x${blocks.toString(16)}`] as any });
  const sendOn = async (on: Evm, to: Address, data: Hex, value = 0n) => {
    const hash = await on.wallet.sendTransaction({ to, data, value, account, chain: null });
    const receipt = await on.client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    return receipt;
  };
  const send = (to: Address, data: Hex, value = 0n) => sendOn(base, to, data, value);
  const tokenOn = (on: Evm, address: Address, functionName: string, args: unknown[]) =>
    on.wallet
      .writeContract({ address, abi: compiled['TestToken']!.abi, functionName, args, account, chain: null })
      .then((hash) => on.client.waitForTransactionReceipt({ hash }));
  const token = (address: Address, functionName: string, args: unknown[]) => tokenOn(base, address, functionName, args);
  /** Deploys `name` and moves its runtime code to `at` (the address the registry and config name). */
  const placeAt = async (on: Evm, name: string, at?: Address, args: unknown[] = []): Promise<Address> => {
    const c = compiled[name]!;
    const hash = await on.wallet.deployContract({ abi: c.abi, bytecode: c.bytecode, args, account, chain: null });
    const deployed = (await on.client.waitForTransactionReceipt({ hash })).contractAddress!;
    if (!at) return getAddress(deployed);
    await on.client.request({ method: 'anvil_setCode' as any, params: [at, await on.client.getCode({ address: deployed })] as any });
    return at;
  };
  const balance = async (session: string) => BigInt((await as(session).getPartnerFunding()).balance_usd_micros);
  /** The base funding watcher's gauges, as the partner-service serves them at /metrics. */
  const fundingWatcher = async () => {
    const text = await (
      await fetch(`http://127.0.0.1:${e2e.ports['partner-service']}/metrics`, { signal: AbortSignal.timeout(5000) })
    ).text();
    const gauge = (name: string) => {
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`${name}{`) && l.includes('watcher="funding:base:') && l.includes('chain="base"'));
      return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    return { head: gauge('chain_watcher_head_block'), lastPass: gauge('chain_watcher_last_pass_timestamp_seconds') };
  };
  /**
   * Resolves once the funding watcher completed a pass that began with `block` at or under the head:
   * a pass that saw the head there, then a later clean pass (the head a pass saw is set as it starts).
   */
  const fundingPassOver = async (block: bigint) => {
    const seen = await until(
      'the funding watcher to see the block',
      async () => {
        const w = await fundingWatcher();
        return w.head !== undefined && w.head >= Number(block) && w.lastPass !== undefined ? w : undefined;
      },
      POLL,
    );
    await until(
      'another clean pass of the funding watcher',
      async () => (((await fundingWatcher()).lastPass ?? 0) > seen.lastPass! ? true : undefined),
      POLL,
    );
  };
  const deposits = async (...filter: string[]) => (await admin('funding-deposits', ...filter)).deposits as any[];

  beforeAll(async () => {
    compiled = compileContracts(['contracts/test/PartnerRoutersHarness.sol'], ROOT);
    [base, eth] = await Promise.all([evm(8453), evm(1)]);
    client = base.client;
    await placeAt(base, 'FundingRouterHarness', ROUTER);
    await placeAt(base, 'TestToken', USDC);
    stray = await placeAt(base, 'TestToken');
    await placeAt(eth, 'VoucherRouterHarness', VOUCHER_ROUTER, [DEV_VOUCHER_SIGNER]);
    await placeAt(eth, 'TestToken', getAddress(T.ethereum.USDC));
    e2e = await startE2eStack(
      {
        EVM_RPC_URLS: `base=${base.anvil.rpcUrl},ethereum=${eth.anvil.rpcUrl}`,
        CHAIN_WATCH_CONFIRMATIONS: String(CONFIRMATIONS),
        CHAIN_WATCH_POLL_MS: '200',
        CHAIN_WATCH_START_BLOCK: '0',
      },
      { testUsers: FULFILMENT_STAND_IN },
    );
    db = new Client({ connectionString: e2e.databaseUrl('partner_service') });
    await db.connect();
    nc = await e2e.connectAs('fulfilment-stand-in');
    fin = (await PartnerSession.create(e2e, 'fin@example.com')).token;
    bob = (await PartnerSession.create(e2e, 'bob@example.com')).token;
  }, 120_000);

  afterAll(async () => {
    await nc?.close();
    await db?.end();
    await e2e?.stop();
    await base?.anvil.proc.stop();
    await eth?.anvil.proc.stop();
  });

  it('credits an ERC-20 deposit at the oracle price, floored, only once it is confirmed', async () => {
    await token(USDC, 'mint', [account.address, 5_000_000n]);
    await token(USDC, 'approve', [ROUTER, 5_000_000n]);
    const tx = await as(fin).buildPartnerFunding({ token: USDC, amount: '5000000' });
    expect(tx.router_address).toBe(ROUTER);
    const receipt = await send(tx.router_address as Address, tx.calldata as Hex, BigInt(tx.value));

    // Not yet buried under CONFIRMATIONS blocks: a whole pass of the funding watcher that saw the
    // deposit's block at the head goes by without a credit.
    await fundingPassOver(receipt.blockNumber);
    expect(await balance(fin)).toBe(0n);
    await mine(base, CONFIRMATIONS);
    const credited = await until('the USDC credit', async () => ((await balance(fin)) > 0n ? balance(fin) : undefined), POLL);

    const [deposit] = await deposits('--email', 'fin@example.com');
    expect(deposit).toMatchObject({
      status: 'credited',
      chain: 'base',
      tx_hash: receipt.transactionHash,
      funding_id: tx.funding_id,
      token: USDC,
      payer: account.address,
      amount: '5000000',
      email: 'fin@example.com',
    });
    // value = floor(amount × price / 10^decimals), in micros: never more than the deposit is worth
    const exact = (5_000_000n * BigInt(deposit.price_e18)) / 10n ** 6n / 10n ** 12n;
    expect(BigInt(deposit.usd_micros)).toBe(exact);
    expect(credited).toBe(exact);
    expect(exact).toBeGreaterThan(4_000_000n); // the file source walks around $1
    expect(exact).toBeLessThan(6_000_000n);
    const view = await as(fin).getPartnerFunding();
    expect(view.balances).toEqual([
      { token: expect.objectContaining({ symbol: 'USDC', address: USDC }), amount: '5000000', usd_micros: String(exact) },
    ]);
    expect(await balance(bob)).toBe(0n);
  });

  it('credits a native deposit in ETH', async () => {
    const before = await balance(fin);
    const tx = await as(fin).buildPartnerFunding({ token: zeroAddress, amount: '1000000000000000' });
    expect(tx.value).toBe('1000000000000000');
    await send(tx.router_address as Address, tx.calldata as Hex, BigInt(tx.value));
    await mine(base, CONFIRMATIONS);
    await until('the ETH credit', async () => ((await balance(fin)) > before ? true : undefined), POLL);
    const [deposit] = await deposits('--email', 'fin@example.com');
    expect(deposit).toMatchObject({ status: 'credited', token: zeroAddress, amount: '1000000000000000', funding_id: tx.funding_id });
    expect(await balance(fin)).toBe(before + BigInt(deposit.usd_micros));
    const eth = (await as(fin).getPartnerFunding()).balances.find((b) => b.token.symbol === 'ETH');
    expect(eth).toMatchObject({ amount: '1000000000000000', usd_micros: deposit.usd_micros });
  });

  it('credits nobody for an unknown funding id or a token that is not a funding token, and tells the operator', async () => {
    const before = await balance(fin);
    const unknown = buildFundingCall({ fundingId: pad('0xdead', { size: 32 }), token: zeroAddress, amount: 12345n });
    const r1 = await send(ROUTER, unknown.calldata, unknown.value);
    // a real funding id of fin's, but paid in a token the router accepts and we do not
    const tx = await as(fin).buildPartnerFunding({ token: USDC, amount: '1000' });
    await token(stray, 'mint', [account.address, 1000n]);
    await token(stray, 'approve', [ROUTER, 1000n]);
    const wrongToken = buildFundingCall({ fundingId: tx.funding_id as Hex, token: stray, amount: 1000n });
    const r2 = await send(ROUTER, wrongToken.calldata);
    await mine(base, CONFIRMATIONS);
    const unmatched = await until(
      'two unmatched deposits',
      async () => {
        const d = await deposits('--status', 'unmatched');
        return d.length >= 2 ? d : undefined;
      },
      POLL,
    );
    expect(unmatched.map((d) => [d.tx_hash, d.detail])).toEqual([
      [r2.transactionHash, 'the token is not a funding token'],
      [r1.transactionHash, 'no funding transaction was built with this funding id'],
    ]);
    expect(unmatched[0]).toMatchObject({ email: 'fin@example.com', token: stray, amount: '1000' });
    expect(unmatched[0].ledger_entry_id).toBeUndefined();
    expect(await balance(fin)).toBe(before);
  });

  it('credits each event once when the chain is read again from the start', async () => {
    const before = await balance(fin);
    const count = (await deposits()).length;
    const head = await client.getBlockNumber();
    await db.query("DELETE FROM chain_cursors WHERE name LIKE 'funding:%'");
    await until(
      'the rescan to reach the head',
      async () => {
        const { rows } = await db.query("SELECT block::text AS block FROM chain_cursors WHERE name LIKE 'funding:%'");
        return rows[0] && BigInt(rows[0].block) >= head - BigInt(CONFIRMATIONS) ? true : undefined;
      },
      POLL,
    );
    expect(await balance(fin)).toBe(before);
    expect(await deposits()).toHaveLength(count);
    const { rows } = await db.query("SELECT count(*)::int AS n FROM ledger_entries WHERE reason LIKE 'funding deposit %'");
    expect(rows[0].n).toBe(2);
  });

  it('marks a voucher redeemed when its router pays it out, and builds no second redemption', async () => {
    // A referral accrued on a fulfilled Ethereum order, vouchered by the operator.
    const ref = (await PartnerSession.create(e2e, 'ref@example.com')).token;
    const key = (await admin('create-key', '--email', 'ref@example.com', '--name', 'ref')).secret;
    const referrer = privateKeyToAddress(pad('0xbeef', { size: 32 }));
    const q = await gatewayClient(e2e.gatewayUrl, { apiKey: key }).getQuote({
      ...USDC_ETH_TO_ARB,
      recipient: EVM_USER,
      refund_address: EVM_REFUND,
      referrers: [{ address: referrer, bps: 10 }],
    });
    await publishFulfilled(nc, crossChainOf(q).quote_hash, 'arbitrum');
    await until('the accrual', async () => ((await as(ref).getPartnerReferrals()).groups.length ? true : undefined), POLL);
    const [voucher] = (await admin('issue-vouchers', '--email', 'ref@example.com')).vouchers;
    expect(voucher).toMatchObject({ chain: 'ethereum', router_address: VOUCHER_ROUTER, amount: '1000000', redeemed: false });

    // The referrer (or anyone) sends the redemption the API builds, to the router on Ethereum.
    await tokenOn(eth, getAddress(T.ethereum.USDC), 'mint', [VOUCHER_ROUTER, 5_000_000n]);
    const built = await as(ref).buildVoucherRedemption({ voucher_id: voucher.id, payer: account.address });
    const receipt = await sendOn(eth, VOUCHER_ROUTER, `0x${Buffer.from(built.tx_base64, 'base64').toString('hex')}`);
    await mine(eth, CONFIRMATIONS);
    const redeemed = await until(
      'the redemption',
      async () => {
        const [v] = (await as(ref).listPartnerVouchers()).vouchers;
        return v?.redeemed ? v : undefined;
      },
      POLL,
    );
    const block = await eth.client.getBlock({ blockNumber: receipt.blockNumber });
    expect(redeemed).toMatchObject({
      id: voucher.id,
      redeemed: true,
      redeem_tx: receipt.transactionHash,
      redeemed_at: new Date(Number(block.timestamp) * 1000).toISOString(),
    });
    const paid = await eth.client.readContract({
      address: getAddress(T.ethereum.USDC),
      abi: compiled['TestToken']!.abi,
      functionName: 'balanceOf',
      args: [referrer],
    });
    expect(paid).toBe(1_000_000n);
    await expectApiError(as(ref).buildVoucherRedemption({ voucher_id: voucher.id, payer: account.address }), {
      http: 400,
      code: 9,
      reason: 'VOUCHER_REDEEMED',
    });
  });

  it('shows the watchers in readiness', async () => {
    const ready = await fetch(`http://127.0.0.1:${e2e.ports['partner-service']}/readyz`).then((r) => r.json() as Promise<any>);
    expect(ready.checks.chain_watchers.ok).toBe(true);
    const detail: string = ready.checks.chain_watchers.detail;
    expect(detail).toMatch(new RegExp(`funding:base:${ROUTER.toLowerCase()}: read up to block \\d+ \\(2 confirmations\\)`));
    expect(detail).toMatch(new RegExp(`vouchers:ethereum:${VOUCHER_ROUTER.toLowerCase()}: read up to block \\d+`));
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ANVIL_DEV_KEY, type Anvil, compileContracts, startAnvil } from '@xchain/chain-tools';
import { buildFundingCall } from '@xchain/partner-chain';
import { ROOT } from '@xchain/stack';
import { Client } from 'pg';
import { type Address, type Hex, createPublicClient, createWalletClient, getAddress, http, pad, zeroAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { type E2eStack, startE2eStack } from '../support/e2e-stack';

const BASE_CHAIN_ID = 8453;
const CONFIRMATIONS = 2;
const partners = JSON.parse(readFileSync(join(ROOT, 'config/partners.json'), 'utf8')) as { funding: { router_address: Address; tokens: Address[] } };
const ROUTER = getAddress(partners.funding.router_address);
const USDC = getAddress('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * On-chain funding, end to end: a partner builds a funding transaction through the gateway, sends
 * it to the funding router on a real EVM (anvil as Base, chain id 8453, with the reference router
 * and a test ERC-20 placed at the configured router and USDC addresses), and the partner-service
 * credits the balance from the router's `Funded` event once it has CONFIRMATIONS blocks on top.
 */
describe('partner funding from the funding router', () => {
  let e2e: E2eStack;
  let anvil: Anvil;
  let db: Client;
  const account = privateKeyToAccount(ANVIL_DEV_KEY);
  let client: ReturnType<typeof createPublicClient>;
  let wallet: ReturnType<typeof createWalletClient>;
  let compiled: ReturnType<typeof compileContracts>;
  let stray: Address; // an ERC-20 that is not a funding token
  let fin: string;
  let bob: string;

  const url = (p: string) => `${e2e.gatewayUrl}/json/v1${p}`;
  const call = async (method: string, p: string, token: string, body?: unknown) => {
    const res = await fetch(url(p), {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const admin = async (...args: string[]) => {
    const r = await e2e.admin(...args);
    if (r.code !== 0) throw new Error(`partner-admin ${args[0]} failed: ${r.err}`);
    return r.out;
  };
  const rpc = (method: string, params: unknown[]) => client.request({ method: method as any, params: params as any });
  const mine = (blocks: number) => rpc('anvil_mine', [`0x${blocks.toString(16)}`]);
  const send = async (to: Address, data: Hex, value = 0n) => {
    const hash = await wallet.sendTransaction({ to, data, value, account, chain: null });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    return receipt;
  };
  const token = (address: Address, functionName: string, args: unknown[]) =>
    wallet.writeContract({ address, abi: compiled['TestToken']!.abi, functionName, args, account, chain: null }).then((hash) => client.waitForTransactionReceipt({ hash }));
  /** Deploys `name` and moves its runtime code to `at` (the address the registry and config name). */
  const placeAt = async (name: string, at?: Address): Promise<Address> => {
    const c = compiled[name]!;
    const hash = await wallet.deployContract({ abi: c.abi, bytecode: c.bytecode, account, chain: null });
    const deployed = (await client.waitForTransactionReceipt({ hash })).contractAddress!;
    if (!at) return getAddress(deployed);
    await rpc('anvil_setCode', [at, await client.getCode({ address: deployed })]);
    return at;
  };
  const balance = async (session: string) => BigInt((await call('GET', '/partner/funding', session)).body.balance_usd_micros);
  const waitFor = async <T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await probe();
      if (v !== undefined) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(100);
    }
  };
  const deposits = async (...filter: string[]) => (await admin('funding-deposits', ...filter)).deposits as any[];

  beforeAll(async () => {
    compiled = compileContracts(['contracts/test/PartnerRoutersHarness.sol'], ROOT);
    anvil = await startAnvil(BASE_CHAIN_ID);
    client = createPublicClient({ transport: http(anvil.rpcUrl) });
    wallet = createWalletClient({ transport: http(anvil.rpcUrl) });
    await placeAt('FundingRouterHarness', ROUTER);
    await placeAt('TestToken', USDC);
    stray = await placeAt('TestToken');
    e2e = await startE2eStack({
      FUNDING_RPC_URL: anvil.rpcUrl,
      FUNDING_CONFIRMATIONS: String(CONFIRMATIONS),
      FUNDING_POLL_MS: '200',
      FUNDING_START_BLOCK: '0',
    });
    db = new Client({ connectionString: e2e.databaseUrl('partner_service') });
    await db.connect();
    for (const email of ['fin@example.com', 'bob@example.com']) await admin('create-partner', '--email', email);
    fin = (await admin('issue-session', '--email', 'fin@example.com')).token;
    bob = (await admin('issue-session', '--email', 'bob@example.com')).token;
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await e2e?.stop();
    await anvil?.proc.stop();
  });

  it('credits an ERC-20 deposit at the oracle price, floored, only once it is confirmed', async () => {
    await token(USDC, 'mint', [account.address, 5_000_000n]);
    await token(USDC, 'approve', [ROUTER, 5_000_000n]);
    const tx = await call('POST', '/partner/funding/tx', fin, { token: USDC, amount: '5000000' });
    expect(tx.status).toBe(200);
    expect(tx.body.router_address).toBe(ROUTER);
    const receipt = await send(tx.body.router_address, tx.body.calldata, BigInt(tx.body.value));

    // Not yet buried under CONFIRMATIONS blocks: several polls go by without a credit.
    await sleep(1000);
    expect(await balance(fin)).toBe(0n);
    await mine(CONFIRMATIONS);
    const credited = await waitFor('the USDC credit', async () => ((await balance(fin)) > 0n ? balance(fin) : undefined));

    const [deposit] = await deposits('--email', 'fin@example.com');
    expect(deposit).toMatchObject({
      status: 'credited',
      chain: 'base',
      tx_hash: receipt.transactionHash,
      funding_id: tx.body.funding_id,
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
    const view = (await call('GET', '/partner/funding', fin)).body;
    expect(view.balances).toEqual([{ token: expect.objectContaining({ symbol: 'USDC', address: USDC }), amount: '5000000', usd_micros: String(exact) }]);
    expect(await balance(bob)).toBe(0n);
  });

  it('credits a native deposit in ETH', async () => {
    const before = await balance(fin);
    const tx = await call('POST', '/partner/funding/tx', fin, { token: zeroAddress, amount: '1000000000000000' });
    expect(tx.body.value).toBe('1000000000000000');
    await send(tx.body.router_address, tx.body.calldata, BigInt(tx.body.value));
    await mine(CONFIRMATIONS);
    await waitFor('the ETH credit', async () => ((await balance(fin)) > before ? true : undefined));
    const [deposit] = await deposits('--email', 'fin@example.com');
    expect(deposit).toMatchObject({ status: 'credited', token: zeroAddress, amount: '1000000000000000', funding_id: tx.body.funding_id });
    expect(await balance(fin)).toBe(before + BigInt(deposit.usd_micros));
    const eth = (await call('GET', '/partner/funding', fin)).body.balances.find((b: any) => b.token.symbol === 'ETH');
    expect(eth).toMatchObject({ amount: '1000000000000000', usd_micros: deposit.usd_micros });
  });

  it('credits nobody for an unknown funding id or a token that is not a funding token, and tells the operator', async () => {
    const before = await balance(fin);
    const unknown = buildFundingCall({ fundingId: pad('0xdead', { size: 32 }), token: zeroAddress, amount: 12345n });
    const r1 = await send(ROUTER, unknown.calldata, unknown.value);
    // a real funding id of fin's, but paid in a token the router accepts and we do not
    const tx = await call('POST', '/partner/funding/tx', fin, { token: USDC, amount: '1000' });
    await token(stray, 'mint', [account.address, 1000n]);
    await token(stray, 'approve', [ROUTER, 1000n]);
    const wrongToken = buildFundingCall({ fundingId: tx.body.funding_id, token: stray, amount: 1000n });
    const r2 = await send(ROUTER, wrongToken.calldata);
    await mine(CONFIRMATIONS);
    const unmatched = await waitFor('two unmatched deposits', async () => {
      const d = await deposits('--status', 'unmatched');
      return d.length >= 2 ? d : undefined;
    });
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
    await db.query('DELETE FROM chain_cursors');
    await waitFor('the rescan to reach the head', async () => {
      const { rows } = await db.query('SELECT block::text AS block FROM chain_cursors');
      return rows[0] && BigInt(rows[0].block) >= head - BigInt(CONFIRMATIONS) ? true : undefined;
    });
    expect(await balance(fin)).toBe(before);
    expect(await deposits()).toHaveLength(count);
    const { rows } = await db.query("SELECT count(*)::int AS n FROM ledger_entries WHERE reason LIKE 'funding deposit %'");
    expect(rows[0].n).toBe(2);
  });

  it('shows the watcher in readiness', async () => {
    const ready = await fetch(`http://127.0.0.1:${e2e.ports['partner-service']}/readyz`).then((r) => r.json() as Promise<any>);
    expect(ready.checks.funding_watcher).toMatchObject({ ok: true, detail: expect.stringMatching(/^read up to block \d+ \(2 confirmations\)$/) });
  });
});

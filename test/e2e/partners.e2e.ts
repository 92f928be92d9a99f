import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { Secp256k1Program, Transaction } from '@solana/web3.js';
import type { XchainClient } from '@xchain/client';
import { PARTNER_FUNDING_ROUTER_ABI, REFERRAL_VOUCHER_ROUTER_ABI, recoverVoucherSigner } from '@xchain/partner-chain';
import { toBytes32 } from '@xchain/order-codec';
import { Client } from 'pg';
import { decodeFunctionData, getAddress, type Hex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { until, untilHolds } from '@xchain/stack';
import { type E2eStack, startE2eStack } from '../support/e2e-stack';
import { apiErrorView, expectApiError, gatewayClient } from '../support/http';
import { FULFILMENT_STAND_IN, publishFulfilled } from '../support/order-events';
import { EVM_REFUND, EVM_USER, SOL_USER, T, USDC_ETH_TO_ARB } from '../support/registry-fixture';
import { startSolanaRpcStub } from '../support/solana-rpc-stub';
import { partnerAdmin } from '../support/partner-session';

const DEV_VOUCHER_SIGNER = privateKeyToAddress('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
// Jest's default 5 s per test is a wall-clock bound that admin-tool runs and 15 s polls cannot keep on a shared machine.
jest.setTimeout(120_000);

const REFERRER_A = '0x3333333333333333333333333333333333333333';
const REFERRER_B = '0x4444444444444444444444444444444444444444';
const SOL_REFERRER = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('partners through the gateway: sessions, keys, funding, referrals, vouchers', () => {
  let e2e: E2eStack;
  let nc: NatsConnection;
  let solana: Awaited<ReturnType<typeof startSolanaRpcStub>>;
  const secrets: string[] = [];
  /** The gateway as a partner session sees it. */
  const as = (token: string) => gatewayClient(e2e.gatewayUrl, { sessionToken: token });
  /** The gateway with an API key, or keyless. */
  const withKey = (apiKey?: string) => gatewayClient(e2e.gatewayUrl, apiKey === undefined ? {} : { apiKey });
  /** The cross-chain part of a quote (every quote here is cross-chain). */
  const cross = (q: Awaited<ReturnType<XchainClient['getQuote']>>) => {
    if (!('cross_chain' in q)) throw new Error(`expected a cross-chain quote, got ${JSON.stringify(q)}`);
    return q.cross_chain;
  };
  const admin = (...args: string[]) => partnerAdmin(e2e)(...args);
  const session = async (email: string, ttl?: number) => {
    const s = await admin('issue-session', '--email', email, ...(ttl ? ['--ttl-secs', String(ttl)] : []));
    secrets.push(s.token);
    return s as { session_id: string; token: string };
  };
  const createKey = async (token: string, name: string) => {
    const k = await as(token).createPartnerKey({ name });
    secrets.push(k.secret);
    return k;
  };
  const quoteBody = { ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND };
  const expectError = expectApiError;
  /**
   * The gateway caches keys for 10 minutes here, so a disabled key is refused only through the
   * key_changed event; the event and the HTTP request race by a few milliseconds at most.
   */
  const previewUntilRefused = (secret: string): Promise<unknown> =>
    until(
      'the key to be refused',
      () =>
        withKey(secret)
          .previewQuote(quoteBody)
          .then(
            () => undefined,
            (e: unknown) => e,
          ),
      // Generous for a shared machine, and still far inside the 10-minute cache TTL it must beat.
      { timeoutMs: 10_000, everyMs: 50, failOnError: true },
    );
  let alice: { session_id: string; token: string };
  let bob: { session_id: string; token: string };

  beforeAll(async () => {
    solana = await startSolanaRpcStub();
    // A long key cache: a disabled key must stop working through the key_changed event, not the TTL.
    e2e = await startE2eStack({ SOLANA_RPC_URL: solana.url, KEY_CACHE_TTL_MS: '600000' }, { testUsers: FULFILMENT_STAND_IN });
    nc = await e2e.connectAs('fulfilment-stand-in');
    await admin('create-partner', '--email', 'alice@example.com', '--max-keys', '3');
    await admin('create-partner', '--email', 'bob@example.com');
    alice = await session('alice@example.com');
    bob = await session('bob@example.com');
  }, 120_000);

  afterAll(async () => {
    await nc?.close();
    await e2e?.stop();
    await solana?.close();
  });

  describe('authentication', () => {
    it('refuses partner operations without a credential, with a garbage token, and with a wrong scheme', async () => {
      await expectError(withKey().getPartner(), { http: 401, code: 16, reason: 'MISSING_CREDENTIALS' });
      await expectError(as('xps_not-a-real-token').getPartner(), { http: 401, code: 16, reason: 'INVALID_SESSION' });
      await expectError(withKey().getPartner({ headers: { authorization: `Basic ${alice.token}` } }), {
        http: 401,
        reason: 'INVALID_SESSION',
      });
      // an API key is not a partner credential (the client would not even send it: force the header)
      await expectError(withKey().getPartner({ headers: { 'x-api-key': 'xk_whatever' } }), { http: 401, reason: 'MISSING_CREDENTIALS' });
    });

    it('refuses an expired session', async () => {
      const short = await session('alice@example.com', 1);
      expect((await as(short.token).getPartner()).email).toBe('alice@example.com');
      // Expiry is the only thing that changes: poll for the refusal rather than sleep past the second.
      await until(
        'the 1 s session to be refused',
        async () =>
          await as(short.token)
            .getPartner()
            .then(
              () => false,
              () => true,
            ),
        { timeoutMs: 15_000, everyMs: 100 },
      );
      await expectError(as(short.token).getPartner(), { http: 401, reason: 'INVALID_SESSION' });
    });

    it("revokes the caller's own session, not another partner's", async () => {
      const second = await session('alice@example.com');
      await expectError(as(bob.token).revokePartnerSession({ id: second.session_id }), { http: 404, code: 5 });
      expect((await as(second.token).getPartner()).email).toBe('alice@example.com');
      const revoked = await as(alice.token).call('RevokePartnerSession', { id: second.session_id });
      expect(revoked).toMatchObject({ status: 200, body: {} });
      await expectError(as(second.token).getPartner(), { http: 401, reason: 'INVALID_SESSION' });
      await expectError(as(alice.token).revokePartnerSession({ id: 'ses_doesnotexist' }), { http: 404 });
      // PostgreSQL cannot hold a NUL: refused as bad input, never an internal error (sent as /sessions/%00)
      await expectError(as(alice.token).revokePartnerSession({ id: '\u0000' }), {
        http: 400,
        code: 3,
        reason: 'INVALID_CHARACTER',
        fields: ['id'],
      });
      await expectError(as(alice.token).createPartnerKey({ name: 'a\u0000b' }), {
        http: 400,
        reason: 'INVALID_CHARACTER',
        fields: ['name'],
      });
      // a session can revoke itself
      const third = await session('alice@example.com');
      expect(await as(third.token).revokePartnerSession({ id: third.session_id })).toEqual({});
      await expectError(as(third.token).getPartner(), { http: 401 });
    });
  });

  describe('API keys', () => {
    it('creates keys shown once, lists them by prefix, and stops at max_keys', async () => {
      const k1 = await createKey(alice.token, 'production');
      expect(k1.secret).toMatch(/^xk_[A-Za-z0-9_-]{43}$/);
      expect(k1.key).toMatchObject({
        key: k1.secret.slice(0, 11),
        name: 'production',
        tier: 'standard',
        points_per_min: '600',
        disabled: false,
      });
      const me = await as(alice.token).call('GetPartner');
      expect(me.data).toMatchObject({ email: 'alice@example.com', max_keys: '3' });
      expect(me.data.keys.map((k) => k.id)).toContain(k1.key.id);
      expect(JSON.stringify(me.body)).not.toContain(k1.secret); // the raw answer, unknown fields included
      await createKey(alice.token, 'staging');
      await createKey(alice.token, 'ci');
      await expectError(as(alice.token).createPartnerKey({ name: 'one too many' }), { http: 400, code: 9, reason: 'MAX_KEYS_REACHED' });
      await expectError(as(bob.token).createPartnerKey({ name: '' }), { http: 400, code: 3, fields: ['name'] });
      // bob sees none of alice's keys
      expect((await as(bob.token).getPartner()).keys).toEqual([]);
    });

    it('prices a keyed quote without the keyless spread, refuses unknown keys, and refuses a disabled key at once', async () => {
      const k = await createKey(bob.token, 'bob-main');
      const keyless = await withKey().previewQuote(quoteBody);
      const keyed = await withKey(k.secret).previewQuote(quoteBody);
      const names = (p: typeof keyless) => p.fee_breakdown.components.map((c) => c.name);
      expect(names(keyless)).toContain('keyless_spread');
      expect(names(keyed)).not.toContain('keyless_spread');
      expect(BigInt(keyed.amount_out)).toBeGreaterThan(BigInt(keyless.amount_out));
      await expectError(withKey('xk_unknown').previewQuote(quoteBody), { http: 401, code: 16, reason: 'INVALID_API_KEY' });
      await expectError(withKey('').previewQuote(quoteBody), { http: 401, reason: 'INVALID_API_KEY' });

      await expectError(as(alice.token).disablePartnerKey({ id: k.key.id }), { http: 404, code: 5 });
      const disabled = await as(bob.token).disablePartnerKey({ id: k.key.id });
      expect(disabled).toMatchObject({ id: k.key.id, disabled: true });
      expect(apiErrorView(await previewUntilRefused(k.secret))).toMatchObject({ http: 401, reason: 'API_KEY_DISABLED' });
      expect((await as(bob.token).getPartner()).keys[0]).toMatchObject({ id: k.key.id, disabled: true });
    });
  });

  describe('funding and sponsorship', () => {
    it('shows the funding view, credits from the operator, and builds funding calldata for the router', async () => {
      const before = await as(alice.token).getPartnerFunding();
      expect(before).toMatchObject({ balance_usd_micros: '0', chain: 'base', chain_id: '8453', balances: [] });
      expect(before.tokens.map((t) => t.symbol).sort()).toEqual(['ETH', 'USDC', 'USDT']);
      await admin(
        'credit',
        '--email',
        'alice@example.com',
        '--usd-micros',
        '25000000',
        '--reason',
        'wire 2026-11-22',
        '--token',
        T.base.USDC,
        '--amount',
        '25000000',
      );
      const after = await as(alice.token).getPartnerFunding();
      expect(after.balance_usd_micros).toBe('25000000');
      expect(after.balances).toEqual([
        { token: expect.objectContaining({ symbol: 'USDC', address: T.base.USDC }), amount: '25000000', usd_micros: '25000000' },
      ]);
      expect((await as(bob.token).getPartnerFunding()).balance_usd_micros).toBe('0');

      const tx = await as(alice.token).buildPartnerFunding({ token: T.base.USDC.toLowerCase(), amount: '5000000' });
      expect(tx).toMatchObject({ chain: 'base', chain_id: '8453', router_address: before.router_address, value: '0' });
      const decoded = decodeFunctionData({ abi: PARTNER_FUNDING_ROUTER_ABI, data: tx.calldata as Hex });
      expect(decoded).toEqual({ functionName: 'fund', args: [tx.funding_id, T.base.USDC, 5_000_000n] });
      const native = await as(alice.token).buildPartnerFunding({
        token: '0x0000000000000000000000000000000000000000',
        amount: '1000000000000000',
      });
      expect(native.value).toBe('1000000000000000');
      expect(native.funding_id).not.toBe(tx.funding_id);
      await expectError(as(alice.token).buildPartnerFunding({ token: T.ethereum.PEPE, amount: '1' }), {
        http: 400,
        reason: 'UNSUPPORTED_FUNDING_TOKEN',
      });
      await expectError(as(alice.token).buildPartnerFunding({ token: T.base.USDC, amount: '1.5' }), { http: 400, fields: ['amount'] });
      const overdraw = await e2e.admin('debit', '--email', 'alice@example.com', '--usd-micros', '25000001', '--reason', 'too much');
      expect(overdraw.code).toBe(1);
      expect(overdraw.out).toMatchObject({ code: 9 });
      const wrongToken = await e2e.admin(
        'credit',
        '--email',
        'alice@example.com',
        '--usd-micros',
        '1',
        '--reason',
        'x',
        '--token',
        T.ethereum.PEPE,
        '--amount',
        '1',
      );
      expect([wrongToken.code, wrongToken.out?.code]).toEqual([1, 3]);
      expect((await as(alice.token).getPartnerFunding()).balance_usd_micros).toBe('25000000');
    });

    it('quotes sponsor_fees only for the key of a partner whose balance covers the relay gas', async () => {
      // a partner with no funding yet
      await admin('create-partner', '--email', 'carol@example.com');
      const carol = await session('carol@example.com');
      const carolKey = await createKey(carol.token, 'carol');
      const sponsored = { ...quoteBody, gasless: true, sponsor_fees: true };
      await expectError(withKey(carolKey.secret).getQuote(sponsored), { http: 400, code: 9, reason: 'SPONSOR_BALANCE_INSUFFICIENT' });
      await admin('credit', '--email', 'carol@example.com', '--usd-micros', '50000000', '--reason', 'prepaid');
      const q = cross(await withKey(carolKey.secret).getQuote(sponsored));
      expect(q.order.sponsor_fees).toBe('true');
      const unsponsored = cross(await withKey(carolKey.secret).getQuote({ ...quoteBody, gasless: true }));
      expect(BigInt(q.amount_out)).toBeGreaterThan(BigInt(unsponsored.amount_out));
    });
  });

  it('lets the operator see a partner (keys, balance, ledger) and disable any key', async () => {
    await admin('create-partner', '--email', 'erin@example.com');
    const erin = await session('erin@example.com');
    const k = await createKey(erin.token, 'erin');
    await admin('credit', '--email', 'erin@example.com', '--usd-micros', '7000000', '--reason', 'wire 0042');
    await admin('debit', '--email', 'erin@example.com', '--usd-micros', '2000000', '--reason', 'refund 0042');
    const shown = await admin('show-partner', '--email', 'erin@example.com');
    expect(shown).toMatchObject({
      email: 'erin@example.com',
      balance_usd_micros: '5000000',
      active_sessions: '1',
      keys: [{ id: k.key.id, disabled: false }],
    });
    expect(shown.ledger.map((e: any) => [e.kind, e.delta_usd_micros, e.reason])).toEqual([
      ['debit', '-2000000', 'refund 0042'],
      ['credit', '7000000', 'wire 0042'],
    ]);
    expect(JSON.stringify(shown)).not.toContain(k.secret);
    expect((await withKey(k.secret).previewQuote(quoteBody)).amount_out).toMatch(/^[1-9]\d*$/);
    expect(await admin('disable-key', '--key-id', k.key.id)).toMatchObject({ id: k.key.id, disabled: true });
    expect(apiErrorView(await previewUntilRefused(k.secret))).toMatchObject({ http: 401, reason: 'API_KEY_DISABLED' });
  });

  describe('referrals and vouchers', () => {
    let daveSession: { session_id: string; token: string };
    let daveKey: string;
    let markerSession: { session_id: string; token: string };
    let markerKey: string;

    const fulfil = (quoteHash: string, chain: string) => publishFulfilled(nc, quoteHash, chain);
    const referrals = (token: string, query: Parameters<XchainClient['getPartnerReferrals']>[0] = {}) =>
      as(token).getPartnerReferrals(query);
    const waitForCount = async (token: string, total: number) => {
      const held = await untilHolds(
        `${total} accruals`,
        () => referrals(token, { page_size: 200 }),
        (r) => r.groups.reduce((s, g) => s + Number(g.count), 0) >= total,
        { timeoutMs: 15_000, everyMs: 200 },
      );
      return held.groups;
    };

    beforeAll(async () => {
      await admin('create-partner', '--email', 'dave@example.com');
      daveSession = await session('dave@example.com');
      daveKey = (await createKey(daveSession.token, 'dave')).secret;
      await admin('create-partner', '--email', 'marker@example.com');
      markerSession = await session('marker@example.com');
      markerKey = (await createKey(markerSession.token, 'marker')).secret;
    });

    it('accrues each referrer fee per (referrer, chain, token) once per fulfilled order, and pages with a cursor', async () => {
      const referrers = [
        { address: REFERRER_A, bps: 10 },
        { address: REFERRER_B, bps: 5 },
      ];
      const dave = withKey(daveKey);
      const q1 = cross(await dave.getQuote({ ...quoteBody, referrers }));
      const q2 = cross(await dave.getQuote({ ...quoteBody, amount: '333333333', referrers: [{ address: REFERRER_A, bps: 7 }] }));
      const q3 = cross(
        await dave.getQuote({
          ...quoteBody,
          src_chain: 'solana',
          src_token: T.solana.USDC,
          refund_address: SOL_USER,
          amount: '2000000',
          referrers: [{ address: SOL_REFERRER, bps: 20 }],
        }),
      );
      const keyless = cross(await withKey().getQuote({ ...quoteBody, referrers }));
      await fulfil(q1.quote_hash, 'arbitrum');
      await fulfil(q2.quote_hash, 'arbitrum');
      await fulfil(q3.quote_hash, 'arbitrum');
      await fulfil(q1.quote_hash, 'arbitrum'); // redelivered: no second accrual
      await fulfil(keyless.quote_hash, 'arbitrum'); // no partner to credit
      // The marker: the referrals consumer handles the stream in order, so once this later
      // fulfilment (another partner's) has accrued, the duplicate and the keyless one were handled.
      const marker = cross(await withKey(markerKey).getQuote({ ...quoteBody, referrers: [{ address: REFERRER_A, bps: 1 }] }));
      await fulfil(marker.quote_hash, 'arbitrum');
      await waitForCount(markerSession.token, 1);
      const groups = await waitForCount(daveSession.token, 4);
      const settled = (await referrals(daveSession.token, { page_size: 200 })).groups;
      expect(settled).toEqual(groups);
      expect(settled).toEqual([
        {
          referrer: REFERRER_A,
          chain: 'ethereum',
          chain_id: '1',
          token: T.ethereum.USDC,
          token_symbol: 'USDC',
          decimals: 6,
          amount: String(1_000_000n + 233_333n),
          count: '2',
        },
        {
          referrer: REFERRER_B,
          chain: 'ethereum',
          chain_id: '1',
          token: T.ethereum.USDC,
          token_symbol: 'USDC',
          decimals: 6,
          amount: '500000',
          count: '1',
        },
        {
          referrer: SOL_REFERRER,
          chain: 'solana',
          chain_id: '792703809',
          token: T.solana.USDC,
          token_symbol: 'USDC',
          decimals: 6,
          amount: '4000',
          count: '1',
        },
      ]);
      // paging: one group per page, a stable order, an empty cursor at the end
      const seen: typeof settled = [];
      let cursor = '';
      do {
        const page = await referrals(daveSession.token, { page_size: 1, ...(cursor ? { cursor } : {}) });
        expect(page.groups).toHaveLength(1);
        seen.push(...page.groups);
        cursor = page.next_cursor;
      } while (cursor);
      expect(seen).toEqual(settled);
      await expectError(referrals(daveSession.token, { page_size: 0 }), { http: 400, reason: 'INVALID_PAGE_SIZE' });
      await expectError(referrals(daveSession.token, { cursor: 'garbage' }), { http: 400, reason: 'INVALID_CURSOR' });
      expect((await referrals(daveSession.token, { page_size: 5000 })).groups).toHaveLength(3);
      expect(await referrals(bob.token)).toEqual({ groups: [], next_cursor: '' });
    });

    it('issues EIP-712 vouchers once per accrual and builds their redemption transactions', async () => {
      // Three operators issuing at once: every accrual ends up in exactly one voucher.
      const runs = await Promise.all([1, 2, 3].map(() => admin('issue-vouchers', '--email', 'dave@example.com')));
      const issued = runs.flatMap((r) => r.vouchers);
      expect(issued).toHaveLength(3);
      expect(issued.reduce((sum: bigint, v: any) => sum + BigInt(v.amount), 0n)).toBe(1_233_333n + 500_000n + 4_000n);
      const again = await admin('issue-vouchers', '--email', 'dave@example.com');
      expect(again.vouchers).toEqual([]);
      const list = await as(daveSession.token).listPartnerVouchers();
      expect(list.vouchers).toHaveLength(3);
      expect(await as(bob.token).listPartnerVouchers()).toEqual({ vouchers: [] });

      type Voucher = (typeof list.vouchers)[number];
      const evm = list.vouchers.find((v) => v.referrer === REFERRER_A)!;
      expect(evm).toMatchObject({
        chain: 'ethereum',
        chain_id: '1',
        amount: '1233333',
        token_symbol: 'USDC',
        decimals: 6,
        redeemed: false,
      });
      const struct = (v: Voucher, vm: 'evm' | 'svm') => ({
        id: v.id as Hex,
        chainId: BigInt(v.chain_id),
        router: toBytes32(vm, v.router_address),
        token: toBytes32(vm, v.token),
        referrer: toBytes32(vm, v.referrer),
        amount: BigInt(v.amount),
      });
      await expect(recoverVoucherSigner(struct(evm, 'evm'), evm.signature as Hex)).resolves.toBe(DEV_VOUCHER_SIGNER);
      const redeem = decodeFunctionData({ abi: REFERRAL_VOUCHER_ROUTER_ABI, data: evm.calldata as Hex });
      expect(redeem.functionName).toBe('redeem');
      const evmTx = await as(daveSession.token).buildVoucherRedemption({ voucher_id: evm.id, payer: EVM_USER });
      expect(`0x${Buffer.from(evmTx.tx_base64, 'base64').toString('hex')}`).toBe(evm.calldata);

      const sol = list.vouchers.find((v) => v.chain === 'solana')!;
      await expect(recoverVoucherSigner(struct(sol, 'svm'), sol.signature as Hex)).resolves.toBe(DEV_VOUCHER_SIGNER);
      const solTx = await as(daveSession.token).buildVoucherRedemption({ voucher_id: sol.id, payer: SOL_USER });
      const tx = Transaction.from(Buffer.from(solTx.tx_base64, 'base64'));
      expect(tx.feePayer?.toBase58()).toBe(SOL_USER);
      expect(tx.recentBlockhash).toBe(solana.blockhash);
      // the operator's signature checked by Solana's secp256k1 program, then the router's redeem
      expect(tx.instructions.map((i) => i.programId.toBase58())).toEqual([Secp256k1Program.programId.toBase58(), sol.router_address]);
      expect(getAddress(`0x${tx.instructions[0]!.data.subarray(12, 32).toString('hex')}`)).toBe(DEV_VOUCHER_SIGNER);
      expect(tx.signatures.every((s) => s.signature === null)).toBe(true);

      await expectError(as(bob.token).buildVoucherRedemption({ voucher_id: sol.id, payer: SOL_USER }), { http: 404, code: 5 });
      await expectError(as(daveSession.token).buildVoucherRedemption({ voucher_id: sol.id, payer: EVM_USER }), {
        http: 400,
        fields: ['payer'],
      });
      // no payer at all: malformed on purpose, the gateway is what refuses it
      await expectError(as(daveSession.token).buildVoucherRedemption({ voucher_id: evm.id } as never), { http: 400, fields: ['payer'] });
    });
  });

  it('never stores or logs a session token or an API key in clear', async () => {
    expect(secrets.length).toBeGreaterThan(5);
    const logs = readdirSync(e2e.logDir)
      .map((f) => readFileSync(join(e2e.logDir, f), 'utf8'))
      .join('\n');
    expect(logs.length).toBeGreaterThan(1000);
    for (const s of secrets) {
      expect(logs).not.toContain(s);
      expect(logs).not.toContain(s.slice(-20));
    }
    const db = new Client({ connectionString: e2e.databaseUrl('partner_service') });
    await db.connect();
    try {
      const dump = JSON.stringify([(await db.query('SELECT * FROM sessions')).rows, (await db.query('SELECT * FROM api_keys')).rows]);
      for (const s of secrets) expect(dump).not.toContain(s);
      const hashes = (await db.query('SELECT token_hash AS h FROM sessions UNION ALL SELECT secret_hash FROM api_keys')).rows.map(
        (r) => r.h,
      );
      expect(hashes).toEqual(expect.arrayContaining(secrets.map(sha256)));
    } finally {
      await db.end();
    }
  });
});

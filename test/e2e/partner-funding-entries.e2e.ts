import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { XchainClient } from '@xchain/client';
import { ROOT, until, type UntilOptions } from '@xchain/stack';
import { type Address, type Hex, getAddress } from 'viem';
import { type E2eStack, startE2eStack } from '../support/e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { expectApiError, gatewayClient } from '../support/http';
import { PartnerSession, partnerAdmin } from '../support/partner-session';

jest.setTimeout(120_000);

type Entries = Awaited<ReturnType<XchainClient['listPartnerFundingEntries']>>;
type Entry = Entries['entries'][number];
const NATIVE = '0x0000000000000000000000000000000000000000';
const partners = JSON.parse(readFileSync(join(ROOT, 'config/partners.json'), 'utf8')) as { funding: { router_address: Address } };

const POLL: UntilOptions = { everyMs: 200, failOnError: true };

/**
 * A partner reads its own funding ledger through the gateway: operator credits and debits, a
 * deposit on the funding router (a local Base), and the hold and charge of a gasless order it
 * sponsored. Another partner sees none of it.
 */
describe('partner funding entries', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let carol: PartnerSession;
  let dan: PartnerSession;
  /** The gateway as a partner session sees it. */
  const as = (token: string) => gatewayClient(e2e.gatewayUrl, { sessionToken: token });
  const admin = (...args: string[]) => partnerAdmin(e2e)(...args);
  const entries = (token: string, query: Parameters<XchainClient['listPartnerFundingEntries']>[0] = {}): Promise<Entries> =>
    as(token).listPartnerFundingEntries(query);

  beforeAll(async () => {
    e2e = await startE2eStack(
      { PRICE_POLL_MS: '600000', PRICE_MAX_AGE_SECS: '7200', RELAY_POLL_MS: '200', RELAY_SWEEP_MS: '1000', CHAIN_WATCH_POLL_MS: '300' },
      { devnet: { chains: ['base'] } },
    );
    g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
    carol = await PartnerSession.create(e2e, 'carol@example.com', { key: 'wallet' });
    dan = await PartnerSession.create(e2e, 'dan@example.com');
  }, 180_000);

  afterAll(async () => {
    await e2e?.stop();
  });

  it('lists operator credits and debits newest first, with the balance after each', async () => {
    expect(await entries(carol.token)).toEqual({ entries: [], next_cursor: '' });
    await admin(
      'credit',
      '--email',
      'carol@example.com',
      '--usd-micros',
      '50000000',
      '--reason',
      'wire 0001',
      '--token',
      LOCAL_TOKENS.base.USDC,
      '--amount',
      '50000000',
    );
    await admin('debit', '--email', 'carol@example.com', '--usd-micros', '2000000', '--reason', 'refund 0001');
    await admin('credit', '--email', 'dan@example.com', '--usd-micros', '1000000', '--reason', 'dan only');
    const { entries: list, next_cursor } = await entries(carol.token);
    expect(next_cursor).toBe('');
    expect(list).toEqual([
      {
        id: expect.stringMatching(/^[0-9]+$/),
        kind: 'debit',
        delta_usd_micros: '-2000000',
        amount_usd_micros: '2000000',
        balance_usd_micros: '48000000',
        reason: 'refund 0001',
        created_at: expect.any(String),
      },
      {
        id: expect.stringMatching(/^[0-9]+$/),
        kind: 'credit',
        delta_usd_micros: '50000000',
        amount_usd_micros: '50000000',
        balance_usd_micros: '50000000',
        reason: 'wire 0001',
        chain: 'base',
        token: getAddress(LOCAL_TOKENS.base.USDC),
        token_amount: '50000000',
        created_at: expect.any(String),
      },
    ]);
    expect((await entries(dan.token)).entries.map((e) => [e.kind, e.reason, e.balance_usd_micros])).toEqual([
      ['credit', 'dan only', '1000000'],
    ]);
  });

  it('shows a deposit on the funding router as a credit carrying the deposit', async () => {
    const payer = g.newUser();
    await g.setNativeBalance('base', payer.address, 10n ** 18n);
    const tx = await as(carol.token).buildPartnerFunding({ token: NATIVE, amount: '1000000000000000' });
    expect(getAddress(tx.router_address)).toBe(getAddress(partners.funding.router_address));
    const receipt = await g.send('base', { to: tx.router_address as Address, data: tx.calldata as Hex, value: BigInt(tx.value) }, payer);
    expect(receipt.status).toBe('success');
    const credit = await until(
      'the deposit to be credited',
      async () => (await entries(carol.token)).entries.find((e) => e.deposit !== undefined),
      POLL,
    );
    expect(credit).toMatchObject({
      kind: 'credit',
      chain: 'base',
      token: NATIVE,
      token_amount: '1000000000000000',
      reason: `funding deposit ${receipt.transactionHash}:${credit.deposit!.log_index}`,
      deposit: {
        chain: 'base',
        tx_hash: receipt.transactionHash,
        block_number: String(receipt.blockNumber),
        funding_id: tx.funding_id,
        token: NATIVE,
        payer: payer.address,
        amount: '1000000000000000',
        price_e18: expect.stringMatching(/^[1-9][0-9]*$/),
      },
    });
    // valued at the oracle price, floored to the micro
    expect(BigInt(credit.amount_usd_micros)).toBe((10n ** 15n * BigInt(credit.deposit!.price_e18!)) / 10n ** 18n / 10n ** 12n);
    expect(BigInt(credit.balance_usd_micros)).toBe(48_000_000n + BigInt(credit.amount_usd_micros));
    expect(JSON.stringify(await entries(dan.token))).not.toContain(receipt.transactionHash);
  });

  it('shows the hold and the charge of a gasless order it sponsored', async () => {
    const user = g.newUser();
    await g.mint('base', LOCAL_TOKENS.base.USDC, user.address, 30_000_000n);
    const q = await g.gaslessQuote(
      'base',
      LOCAL_TOKENS.base.USDC,
      user.address,
      '30000000',
      { 'x-api-key': carol.key },
      { sponsor_fees: true },
    );
    expect(q['order'].sponsor_fees).toBe('true');
    const submitted = await g.submit(await g.evmBody(user, q, true), { 'x-api-key': carol.key });
    expect({ http: submitted.status, body: submitted.body }).toMatchObject({ http: 200, body: { status: 'queued' } });
    const settled = await until(
      'the relay gas to be charged',
      async () => {
        const list = (await entries(carol.token)).entries.filter((e) => e.quote_hash === q['quote_hash']);
        return list.some((e) => e.kind === 'settle') ? list : undefined;
      },
      { ...POLL, timeoutMs: 60_000 },
    );
    const hold = settled.find((e) => e.kind === 'hold')!;
    const settle = settled.find((e) => e.kind === 'settle')!;
    expect(hold).toMatchObject({ delta_usd_micros: `-${hold.amount_usd_micros}`, reason: 'relay gas reserved' });
    expect(BigInt(settle.amount_usd_micros)).toBeLessThanOrEqual(BigInt(hold.amount_usd_micros)); // charged at most the hold
    expect(BigInt(settle.delta_usd_micros)).toBe(BigInt(hold.amount_usd_micros) - BigInt(settle.amount_usd_micros)); // the rest comes back
    const funding = await as(carol.token).getPartnerFunding();
    expect((await entries(carol.token)).entries[0]!.balance_usd_micros).toBe(funding.balance_usd_micros);
  });

  it('pages with a cursor over the same entries, each balance following from the one before', async () => {
    const all = (await entries(carol.token, { page_size: 200 })).entries;
    expect(all.length).toBeGreaterThanOrEqual(5);
    const paged: Entry[] = [];
    let cursor = '';
    do {
      const page = await entries(carol.token, { page_size: 2, ...(cursor ? { cursor } : {}) });
      expect(page.entries.length).toBeLessThanOrEqual(2);
      paged.push(...page.entries);
      cursor = page.next_cursor;
    } while (cursor);
    expect(paged).toEqual(all);
    for (let i = 0; i + 1 < all.length; i++) {
      expect(BigInt(all[i]!.balance_usd_micros)).toBe(BigInt(all[i + 1]!.balance_usd_micros) + BigInt(all[i]!.delta_usd_micros));
    }
    expect(all.at(-1)!.balance_usd_micros).toBe(all.at(-1)!.delta_usd_micros);
    await expectApiError(entries(carol.token, { cursor: 'garbage' }), { http: 400, code: 3, reason: 'INVALID_CURSOR', fields: ['cursor'] });
    await expectApiError(entries(carol.token, { page_size: 0 }), { http: 400, reason: 'INVALID_PAGE_SIZE' });
    await expectApiError(entries(carol.token, { page_size: -1 }), { http: 400, fields: ['page_size'] });
    await expectApiError(gatewayClient(e2e.gatewayUrl).listPartnerFundingEntries(), { http: 401, code: 16 });
    // Dan's ledger is still his one credit.
    expect((await entries(dan.token)).entries).toHaveLength(1);
  });
});

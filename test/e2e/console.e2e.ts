import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from '@xchain/stack';
import type { Page } from 'playwright-core';
import { TestBrowser } from '../support/browser';
import { type E2eStack, startE2eStack } from '../support/e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { expectApiError } from '../support/http';
import { PartnerSession } from '../support/partner-session';

jest.setTimeout(180_000);

/** A partner's webhook endpoint on a free loopback port that takes every delivery (200). */
async function receiver() {
  const got: string[] = [];
  const server = createServer((req, res) => {
    got.push(String(req.headers['x-xchain-event-id']));
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * The partner console in a real browser (Debian's chromium through playwright-core): sign in with
 * a session token from partner-admin, create a key, set a webhook and see a delivery, download the
 * orders as CSV, sign out — after which the token no longer works.
 */
describe('the partner console in a browser', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let browser: TestBrowser;
  let hook: Awaited<ReturnType<typeof receiver>>;

  beforeAll(async () => {
    e2e = await startE2eStack(
      {
        WEBHOOK_BACKOFF_BASE_MS: '300',
        WEBHOOK_BACKOFF_MAX_MS: '600',
        WEBHOOK_SWEEP_MS: '1000',
        PRICE_POLL_MS: '600000',
        PRICE_MAX_AGE_SECS: '7200',
        RELAY_POLL_MS: '200',
        RELAY_SWEEP_MS: '1000',
        CHAIN_WATCH_POLL_MS: '300',
      },
      { devnet: { chains: ['base'] } },
    );
    g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
    browser = await TestBrowser.launch();
    hook = await receiver();
  }, 300_000);

  afterAll(async () => {
    await hook?.close();
    await browser?.close();
    await e2e?.stop();
  });

  const open = async (page: Page, title: string) => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: title }).click();
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
  };

  it('signs in, creates a key, sets a webhook and sees a delivery, downloads the orders CSV, and signs out for good', async () => {
    const partner = await PartnerSession.create(e2e, 'console@example.com');
    const page = await browser.page();
    await page.goto(`${e2e.gatewayUrl}/console/`);

    // A wrong token is refused with words; the right one signs in.
    await page.getByLabel('Session token').fill('xps_not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('This token is unknown, expired or signed out.').waitFor();
    await page.getByLabel('Session token').fill(partner.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
    await page.getByText('console@example.com').waitFor();
    await page.getByTestId('balance').waitFor();
    await browser.screenshot(page, 'console-account.png');

    // API keys: the secret is shown once, the key is listed with its tier and points per minute.
    await open(page, 'API keys');
    await page.getByLabel("New key's name").fill('browser');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-key-secret').textContent())!;
    expect(secret).toMatch(/^xk_/);
    const row = page.getByRole('row').filter({ hasText: 'browser' });
    await row.getByText('standard').waitFor();
    expect(await row.textContent()).toContain('600');
    await browser.screenshot(page, 'console-keys.png');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await row.waitFor();
    expect(await page.getByTestId('new-key-secret').count()).toBe(0); // shown once

    // Webhook: set (its signing secret shown once), then a delivery of an order quoted with the new key.
    await open(page, 'Webhook');
    await page.getByLabel('Endpoint URL (https)').fill(hook.url);
    await page.getByRole('button', { name: 'Set webhook' }).click();
    expect(await page.getByTestId('webhook-secret').textContent()).toMatch(/^whsec_/);
    await page.getByTestId('webhook-url').getByText(hook.url).waitFor();
    // A gasless order quoted with the new key: its relay and deposit are pushed to the webhook.
    const user = g.newUser();
    await g.mint('base', LOCAL_TOKENS.base.USDC, user.address, 50_000_000n);
    const q = await g.gaslessQuote('base', LOCAL_TOKENS.base.USDC, user.address, '20000000', { 'x-api-key': secret });
    expect((await g.submit(await g.evmBody(user, q, true))).body.status).toBe('queued');
    const hash: string = q['quote_hash'];
    await until('the receiver to get a delivery', async () => hook.got.some((id) => id.startsWith(hash)), {
      timeoutMs: 30_000,
      everyMs: 200,
    });
    const delivered = page.getByTestId('deliveries').getByRole('row').filter({ hasText: 'delivered' });
    await until(
      'the console to show the delivery',
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (await delivered.count()) > 0;
      },
      { timeoutMs: 20_000, everyMs: 500 },
    );
    expect(await delivered.first().textContent()).toContain(hash.slice(0, 10));
    await browser.screenshot(page, 'console-webhook.png');

    // Orders: the quote is listed; the CSV download holds it.
    await open(page, 'Orders');
    await page.locator(`a[href="/explorer/order/${hash}"]`).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\n')[0]).toMatch(/^quote_hash,created_at,status,/);
    expect(csv).toContain(hash);

    // Sign out revokes the session: the token no longer works anywhere.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('Signed out: the session token no longer works.').waitFor();
    expect(await page.evaluate("sessionStorage.getItem('xchain.console.session')")).toBeNull();
    await expectApiError(partner.session.getPartner(), { http: 401 });
    await page.close();
    expect(browser.problems).toEqual([]);
  });
});

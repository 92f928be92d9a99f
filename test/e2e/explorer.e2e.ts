import type { Page } from 'playwright-core';
import type { E2eStack } from '../support/e2e-stack';
import { TestBrowser } from '../support/browser';
import { type GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { gatewayClient } from '../support/http';
import { PLENTY, type SettlementFixture, startSettlementStack } from '../support/settlement-fixture';

jest.setTimeout(180_000);

const BASE_USDC = LOCAL_TOKENS.base.USDC;

/**
 * The order explorer in a real browser (Debian's chromium, headless, through playwright-core)
 * against the whole stack: orders made through the API, filled or refunded by the operator.
 */
describe('the order explorer in a browser', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let s: SettlementFixture;
  let browser: TestBrowser;
  const url = (path: string) => `${e2e.gatewayUrl}${path}`;
  const badge = (page: Page) => page.locator('#order-title .badge');

  beforeAll(async () => {
    ({ e2e, g, s } = await startSettlementStack());
    await s.setInventory(PLENTY);
    browser = await TestBrowser.launch();
  }, 420_000);

  afterAll(async () => {
    await browser?.close();
    await e2e?.stop();
  });

  it('serves the pages with a strict Content-Security-Policy and no inline script', async () => {
    const res = await fetch(url('/explorer/order/0xabc'));
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-(inline|eval)/);
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // every script is a file
    const asset = /src="(\/web\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const js = await fetch(url(asset), { headers: { 'accept-encoding': 'gzip' } });
    expect([js.status, js.headers.get('cache-control')]).toEqual([200, 'public, max-age=31536000, immutable']);
    expect((await fetch(url('/web/assets/nope.js'))).status).toBe(404);
    expect((await fetch(url('/explorer/'), { method: 'POST' })).status).toBe(405);
  });

  it('finds a gasless order by its hash and by its wallet, and its page turns to fulfilled without a reload', async () => {
    const user = g.newUser();
    await g.mint('base', BASE_USDC, user.address, 50_000_000n);
    const q = await s.retryingInventory(() => g.gaslessQuote('base', BASE_USDC, user.address, '25000000'));
    const page = await browser.page();

    // Searched by its quote hash from the explorer's front page.
    await page.goto(url('/explorer/'));
    await page.getByLabel('Search orders').fill(q['quote_hash']);
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/explorer/order/${q['quote_hash']}`);
    await badge(page).filter({ hasText: 'quoted' }).waitFor();
    await expect(page.getByTestId('quote-hash').textContent()).resolves.toBe(q['quote_hash']);
    await page.evaluate('window.stayed = true'); // a reload would lose it

    // Signed and submitted through the API while the page is open: the stream moves it along.
    const submitted = await g.submit(await g.evmBody(user, q, true));
    expect(submitted.status).toBe(200);
    await badge(page).filter({ hasText: 'fulfilled' }).waitFor({ timeout: 90_000 });
    expect(await page.evaluate('window.stayed')).toBe(true); // no reload
    const view = await gatewayClient(e2e.gatewayUrl).getOrder({ quote_hash: q['quote_hash'] });
    for (const step of ['quoted', 'relayed', 'deposited', 'filled'])
      expect(await page.locator(`[data-step="${step}"]`).getAttribute('class')).toBe('done');
    // Each transaction links to its chain's block explorer (the registry's explorer_tx_url).
    const filled = page.locator('[data-step="filled"] a');
    expect(await filled.textContent()).toBe(view.fulfillment!.tx_hash);
    const template = (await gatewayClient(e2e.gatewayUrl).getChains()).chains.find((c) => c.chain === 'arbitrum')!.explorer_tx_url!;
    expect(await filled.getAttribute('href')).toBe(template.replace('{tx}', view.fulfillment!.tx_hash));
    // Amounts in token units with their symbols, and the accounting once final.
    await expect(page.locator('.facts').first().textContent()).resolves.toContain('25 USDC');
    await page.getByTestId('accounting').waitFor();
    expect(await page.getByTestId('time-taken').textContent()).toMatch(/\d+ s|min/);
    await browser.screenshot(page, 'explorer-order.png');

    // The same order by its deposit (relay) transaction, and on its wallet's page (the address in lower case).
    await page.goto(url(`/explorer/order/${view.deposit!.tx_hash}`));
    await badge(page).filter({ hasText: 'fulfilled' }).waitFor();
    expect(await page.getByTestId('quote-hash').textContent()).toBe(q['quote_hash']);
    await page.goto(url('/explorer/'));
    await page.getByLabel('Search orders').fill(user.address.toLowerCase());
    await page.getByRole('button', { name: 'Search' }).click();
    const row = page.locator(`a[href="/explorer/order/${q['quote_hash']}"]`);
    await row.waitFor();
    await page.getByLabel('Status').selectOption('refunded');
    await page.getByText('No orders.').waitFor();
    expect(page.url()).toContain('status=refunded');
    await page.getByLabel('Status').selectOption('fulfilled');
    await row.click();
    await page.waitForURL(`**/explorer/order/${q['quote_hash']}`);
    await badge(page).filter({ hasText: 'fulfilled' }).waitFor();
    await page.close();
  });

  it('shows a refunded order with its reason in words', async () => {
    const o = await s.quote(10_000_000n);
    // Quoted with inventory; by the time the deposit is decided there is none.
    await s.setInventory(0n);
    await s.deposit(o);
    await g.waitOrder(o.q.quote_hash, (v) => v.status === 'refunded', 90_000);
    await s.setInventory(PLENTY);
    const page = await browser.page();
    await page.goto(url(`/explorer/order/${o.q.quote_hash}`));
    await badge(page).filter({ hasText: 'refunded' }).waitFor();
    expect(await page.getByTestId('refund-reason').textContent()).toContain('did not have enough of the destination token');
    expect(await page.locator('[data-step="refunded"]').getAttribute('class')).toBe('done');
    await browser.screenshot(page, 'explorer-refunded.png');
    await page.close();
  });

  it('says "not found" for an unknown hash, and paints an order page within a second', async () => {
    const page = await browser.page();
    await page.goto(url(`/explorer/order/0x${'ab'.repeat(32)}`));
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    expect(await page.locator('[role=alert]').count()).toBe(0); // not an error
    // First paint of an order page on the local stack.
    const o = await s.quote(1_000_000n);
    await page.goto(url(`/explorer/order/${o.q.quote_hash}`));
    await badge(page).waitFor();
    const paint = Number(
      await page.evaluate("performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint')?.startTime ?? -1"),
    );
    expect(paint).toBeGreaterThan(0);
    expect(paint).toBeLessThan(1000);
    // On a phone's width the page still reads without sideways scrolling.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth + 1')).toBe(true);
    await page.close();
    expect(browser.problems).toEqual([]);
  });
});

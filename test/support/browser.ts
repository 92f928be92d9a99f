import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '@xchain/stack';
import { type BrowserContext, type Page, chromium } from 'playwright-core';

/** Debian's chromium (scripts/ensure-deps.sh installs it); no browser download works here. */
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where the suites write the screenshots the docs show (docs/screenshots/). */
export const SCREENSHOTS = join(ROOT, 'docs/screenshots');

/**
 * A headless Chromium with a fresh profile, and what its pages complained about: script errors and
 * console errors (a Content-Security-Policy refusal is one; a 401 or 404 answer is not), so a suite can assert there were none.
 */
export class TestBrowser {
  readonly problems: string[] = [];

  private constructor(
    readonly context: BrowserContext,
    private readonly profile: string,
  ) {}

  static async launch(viewport = { width: 1100, height: 900 }): Promise<TestBrowser> {
    const profile = mkdtempSync(join(tmpdir(), 'xchain-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport,
      acceptDownloads: true,
      timeout: 60_000,
    });
    return new TestBrowser(context, profile);
  }

  async page(): Promise<Page> {
    const page = await this.context.newPage();
    page.on('pageerror', (err) => this.problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      // A 404 or 401 of the API (an order that does not exist, a wrong token) is an answer, not a fault of the page.
      if (msg.type() === 'error' && !/Failed to load resource: .*status of (401|404)/.test(msg.text()))
        this.problems.push(`console: ${msg.text()}`);
    });
    return page;
  }

  async screenshot(page: Page, name: string): Promise<void> {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, name), fullPage: true, animations: 'disabled' });
  }

  async close(): Promise<void> {
    await this.context.close().catch(() => undefined);
    rmSync(this.profile, { recursive: true, force: true });
  }
}

import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildClientPackage, packClientPackage, scratchProject } from '@xchain/client-pkg';
import { ROOT } from '@xchain/stack';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { E2eStack } from '../support/e2e-stack';
import { type GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { ARB_USDC, PLENTY, type SettlementFixture, startSettlementStack } from '../support/settlement-fixture';

jest.setTimeout(180_000);

const BASE_USDC = LOCAL_TOKENS.base.USDC;
/** The viem the monorepo uses: what a wallet team would already have. */
const VIEM = 'viem@2.57.20';

/**
 * The client as a wallet team gets it: packed, installed from its tarball into a project outside
 * the monorepo, and driving a whole gasless order against the local stack with gaslessSwap (quote,
 * Permit2 and EIP-2612 signed by a viem account, submitted, followed) until it is fulfilled, once
 * from CommonJS and once from an ES module.
 */
describe('the installed @xchain/client package: a gasless order from quote to fill', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let s: SettlementFixture;
  let work: string;
  let scratch: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'xchain-client-e2e-'));
    buildClientPackage(ROOT, join(work, 'pkg'));
    scratch = scratchProject([packClientPackage(join(work, 'pkg'), work), VIEM]);
    for (const script of ['swap.cjs', 'swap.mjs']) copyFileSync(join(ROOT, 'test/fixtures/client-package', script), join(scratch, script));
    ({ e2e, g, s } = await startSettlementStack());
    await s.setInventory(PLENTY);
    // Quoting reads the inventory at its next refresh: wait until it quotes at all.
    await s.retryingInventory(() => g.gaslessQuote('base', BASE_USDC, g.newUser().address, '1000000'));
  }, 420_000);

  afterAll(async () => {
    await e2e?.stop();
    for (const dir of [work, scratch]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs a fixture script in the scratch project for a new funded user; what it printed, parsed. */
  const swap = async (script: string, amount: bigint) => {
    const key = generatePrivateKey();
    const user = privateKeyToAccount(key);
    await g.mint('base', BASE_USDC, user.address, amount);
    const env = {
      PATH: process.env['PATH'],
      API: e2e.gatewayUrl,
      KEY: key,
      SRC_TOKEN: BASE_USDC,
      DST_TOKEN: ARB_USDC,
      AMOUNT: amount.toString(),
      RPC_URL: e2e.devnet!.chains.get('base')!.rpcUrl,
    };
    const { stdout } = await promisify(execFile)(process.execPath, [script], { cwd: scratch, env, timeout: 120_000 });
    return { user, result: JSON.parse(stdout.trim().split('\n').pop()!) };
  };

  it('from require: a viem local account signs, the stream follows it, and the recipient is paid on arbitrum', async () => {
    const { user, result } = await swap('swap.cjs', 30_000_000n);
    expect(result).toMatchObject({ submitted: 'queued', order: { quote_hash: result.quote_hash, status: 'fulfilled', terminal: true } });
    expect(await g.balanceOf('base', BASE_USDC, user.address)).toBe(0n);
    expect(await g.balanceOf('arbitrum', ARB_USDC, user.address)).toBeGreaterThan(0n);
  });

  it('from import: a viem WalletClient signs, polling follows it through its states to fulfilled', async () => {
    const { user, result } = await swap('swap.mjs', 20_000_000n);
    expect(result).toMatchObject({ submitted: 'queued', order: { status: 'fulfilled', terminal: true } });
    expect(result.updates.at(-1)).toBe('fulfilled');
    expect(await g.balanceOf('arbitrum', ARB_USDC, user.address)).toBeGreaterThan(0n);
  });
});

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XCHAIN_ROUTER_ABI, approveCalldata, depositAmount, depositTx, fillTx } from '@xchain/evm-gasless';
import { type Order, hashOrder, sampleOrder, toBytes32 } from '@xchain/order-codec';
import { ROOT } from '@xchain/stack';
import { type Address, type Hex, createPublicClient, createWalletClient, getAddress, http, maxUint256, parseAbi, parseEventLogs } from 'viem';
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts';
import { DEV_FILLER, DEV_FILLER_KEY } from '../dev-keys';
import { type ChainPlan, readDevnetPlan } from '../devnet-plan';
import { revertReason } from './order-logs';
import { fund } from '../fund';
import { refundOrder } from '../refund';
import { type Devnet, startDevnet } from '../start-devnet';
import { devnetStateFile, writeDevnetState } from '../state-file';
import type { FillOutcome, LocalFiller } from './local-filler';
import { startDevnetFiller } from './start-filler';

const ERC20 = parseAbi(['function balanceOf(address) view returns (uint256)']);
const DELAY = { minMs: 300, maxMs: 1500 };
const SOLANA_CHAIN_ID = 792703809n;

/** Waits for a positive signal, never for a fixed time; fails with what it waited for. */
async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The local chains as `npm start` runs them, with the filler: an order deposited on one chain is
 * filled on the other within the configured delay; the refunder (the filler's key) cancels one that
 * was not on its destination and returns its deposit.
 */

describe('local filler and refunder on a devnet of two chains', () => {
  let devnet: Devnet;
  let filler: LocalFiller;
  const outcomes: FillOutcome[] = [];
  const lines: string[] = [];
  const [eth, base] = readDevnetPlan(['ethereum', 'base']) as [ChainPlan, ChainPlan];
  const usdc = (plan: ChainPlan) => plan.tokens.find((t) => t.symbol === 'USDC')!.address;
  const client = (plan: ChainPlan) => createPublicClient({ transport: http(devnet.chains.get(plan.name)!.rpcUrl), pollingInterval: 200 });
  const userKey = generatePrivateKey();
  const user = privateKeyToAddress(userKey);

  beforeAll(async () => {
    // One-second blocks, as under npm start.
    devnet = await startDevnet({ chains: ['ethereum', 'base'], blockTimeSecs: 1 });
    filler = await startDevnetFiller(devnet, { delay: DELAY, log: (l) => lines.push(l), onOutcome: (o) => outcomes.push(o) });
    await fund(devnet.rpcUrls, user);
    await send(eth, { to: usdc(eth), data: approveCalldata(eth.depositTarget, maxUint256) });
  }, 180_000);
  afterAll(async () => {
    await filler?.stop();
    await devnet?.stop();
  });

  async function send(plan: ChainPlan, tx: { to: Address; data: Hex; value?: bigint }) {
    const wallet = createWalletClient({ account: privateKeyToAccount(userKey), transport: http(devnet.chains.get(plan.name)!.rpcUrl) });
    const hash = await wallet.sendTransaction({ ...tx, chain: null });
    const receipt = await client(plan).waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    return receipt;
  }
  /** A USDC order from ethereum to base (or wherever `over` says), deposited by the user. */
  const depositOrder = async (over: Partial<Order> = {}) => {
    const order = sampleOrder({
      salt: generatePrivateKey(),
      srcChainId: 1n,
      dstChainId: 8453n,
      srcToken: toBytes32('evm', usdc(eth)),
      dstToken: toBytes32('evm', usdc(base)),
      amountIn: 25_000_000n,
      amountOut: 24_900_001n,
      minAmountOut: 24_800_000n,
      recipient: toBytes32('evm', privateKeyToAddress(generatePrivateKey())),
      refundAddress: toBytes32('evm', privateKeyToAddress(generatePrivateKey())),
      gasDrop: 2_000_000_000_000_003n,
      depositTarget: toBytes32('evm', eth.depositTarget),
      // Quoted now: the routers take a deposit and a fill only within retention of issuedAt.
      issuedAt: BigInt(Math.floor(Date.now() / 1000)),
      expiresAt: BigInt(Math.floor(Date.now() / 1000)) + 1800n,
      ...over,
    });
    await send(eth, depositTx(order, eth.depositTarget));
    return order;
  };
  const outcomeOf = (order: Order) => outcomes.find((o) => o.quoteHash === hashOrder(order));
  const linesAbout = (order: Order) => lines.filter((l) => l.includes(hashOrder(order).slice(0, 10)));

  it('fills an order deposited on ethereum on base within the delay: amountOut and the gas drop reach the recipient', async () => {
    const order = await depositOrder();
    const recipient = getAddress(`0x${order.recipient.slice(26)}`);
    const filled = await until('the fill on base', async () => ((await client(base).readContract({ address: base.depositTarget, abi: XCHAIN_ROUTER_ABI, functionName: 'filled', args: [hashOrder(order)] })) ? true : undefined), DELAY.maxMs + 10_000);
    expect(filled).toBe(true);

    const outcome = await until('the outcome', () => outcomeOf(order), 5_000);
    expect(outcome).toMatchObject({ outcome: 'filled', srcChain: 'ethereum', dstChain: 'base' });
    expect(outcome.delayMs).toBeGreaterThanOrEqual(DELAY.minMs);
    expect(outcome.delayMs).toBeLessThanOrEqual(DELAY.maxMs);
    expect(await client(base).readContract({ address: usdc(base), abi: ERC20, functionName: 'balanceOf', args: [recipient] })).toBe(order.amountOut);
    expect(await client(base).getBalance({ address: recipient })).toBe(order.gasDrop);
    const receipt = await client(base).getTransactionReceipt({ hash: outcome.txHash! });
    const [event] = parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'Filled' });
    expect(event!.args).toEqual({ quoteHash: hashOrder(order), filler: privateKeyToAddress(DEV_FILLER_KEY), recipient, token: usdc(base), amount: order.amountOut, gasDrop: order.gasDrop });
    expect(linesAbout(order)).toHaveLength(1);
  }, 30_000);

  it('skips an order bound for a chain that is not local, with one line', async () => {
    const order = await depositOrder({ dstChainId: SOLANA_CHAIN_ID, dstToken: `0x${'c6'.repeat(32)}`, recipient: `0x${'9a'.repeat(32)}` });
    const outcome = await until('the skip', () => outcomeOf(order), 10_000);
    expect(outcome.outcome).toBe('skipped');
    expect(linesAbout(order)).toEqual([expect.stringMatching(/skipping .* from ethereum: its destination \(chain id 792703809\) is not a local EVM chain/)]);
  }, 30_000);

  it('logs a fill that would revert once, does not retry it, and goes on filling', async () => {
    // High bytes in the recipient: the router refuses the fill (BadRecipient).
    const bad = await depositOrder({ recipient: `0x01${'00'.repeat(11)}${user.slice(2).toLowerCase()}` });
    const outcome = await until('the refusal', () => outcomeOf(bad), DELAY.maxMs + 10_000);
    expect(outcome).toMatchObject({ outcome: 'reverted', detail: 'BadRecipient()' });

    const good = await depositOrder();
    expect((await until('the next fill', () => outcomeOf(good), DELAY.maxMs + 10_000)).outcome).toBe('filled');
    expect(outcomes.filter((o) => o.quoteHash === hashOrder(bad))).toHaveLength(1);
    expect(linesAbout(bad)).toEqual([expect.stringMatching(/would revert: BadRecipient\(\); not retried/)]);
  }, 30_000);

  describe('with the filler off', () => {
    let dataDir: string;
    const rpcUrls = () => new Map([...devnet.chains].map(([name, c]) => [name, c.rpcUrl]));
    beforeAll(async () => {
      await filler.stop();
      dataDir = mkdtempSync(join(tmpdir(), 'devnet-refund-'));
      writeDevnetState(devnetStateFile(dataDir), devnet);
    });
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

    /** The real command line, against the state file as `npm start` leaves it. */
    const cli = (...args: string[]) =>
      new Promise<{ code: number; out: string; err: string }>((resolve) => {
        execFile(process.execPath, [join(ROOT, 'dist/tools/devnet/src/main.js'), ...args], { env: { ...process.env, DATA_DIR: dataDir }, timeout: 60_000 }, (error, out, err) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out, err }),
        );
      });

    it('refunds an unfilled order through `devnet refund` at once, cancelling it on base first: the refund address gets the deposit, once, and no fill can follow', async () => {
      const order = await depositOrder();
      const refundTo = `0x${order.refundAddress.slice(26)}` as Address;
      const routerBefore = await client(eth).readContract({ address: usdc(eth), abi: ERC20, functionName: 'balanceOf', args: [eth.depositTarget] });

      const run = await cli('refund', hashOrder(order), '--chain', 'ethereum');
      expect(run).toMatchObject({ code: 0, err: '' });
      const report = JSON.parse(run.out) as { tx_hash: Hex; cancel_tx_hash: Hex; refund_address: string; amount: string; destination: string };
      expect(report).toMatchObject({ quote_hash: hashOrder(order), chain: 'ethereum', token: usdc(eth), amount: depositAmount(order).toString(), destination: 'cancelled on base' });
      expect(report.refund_address.toLowerCase()).toBe(refundTo);

      expect(await client(eth).readContract({ address: usdc(eth), abi: ERC20, functionName: 'balanceOf', args: [refundTo] })).toBe(order.amountIn);
      expect(await client(eth).readContract({ address: usdc(eth), abi: ERC20, functionName: 'balanceOf', args: [eth.depositTarget] })).toBe(routerBefore - order.amountIn);
      const receipt = await client(eth).getTransactionReceipt({ hash: report.tx_hash });
      expect(receipt.from.toLowerCase()).toBe(DEV_FILLER.toLowerCase());
      expect(parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'Refunded' })).toHaveLength(1);
      const cancel = await client(base).getTransactionReceipt({ hash: report.cancel_tx_hash });
      expect(cancel.from.toLowerCase()).toBe(DEV_FILLER.toLowerCase());
      expect(parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: cancel.logs, eventName: 'Cancelled' }).map((e) => e.args)).toEqual([{ quoteHash: hashOrder(order) }]);
      // The user cannot be paid twice: base's router now refuses the fill.
      const fill = fillTx(order, order.amountOut, base.depositTarget);
      const refused = await client(base).call({ account: DEV_FILLER, to: fill.to, data: fill.data, value: fill.value }).catch((err: unknown) => revertReason(err));
      expect(refused).toEqual({ name: 'OrderCancelled', text: `OrderCancelled(${hashOrder(order)})` });

      const again = await cli('refund', hashOrder(order), '--chain', 'ethereum');
      expect(again.code).toBe(1);
      expect(again.err).toMatch(/AlreadyRefunded\(0x/);
    }, 60_000);

    it('refuses to refund an order filled on its destination, one never deposited, and bad arguments', async () => {
      const filledOrder = outcomes.find((o) => o.outcome === 'filled')!;
      await expect(refundOrder({ rpcUrls: rpcUrls(), chain: 'ethereum', quoteHash: filledOrder.quoteHash })).rejects.toThrow(/already filled on base/);
      await expect(refundOrder({ rpcUrls: rpcUrls(), chain: 'ethereum', quoteHash: `0x${'12'.repeat(32)}` })).rejects.toThrow(/no order 0x1212.* was deposited on ethereum/);
      await expect(refundOrder({ rpcUrls: rpcUrls(), chain: 'solana', quoteHash: filledOrder.quoteHash })).rejects.toThrow(/solana is not a running local chain/);
      expect((await cli('refund', '0x1234', '--chain', 'ethereum')).code).toBe(2);
      expect((await cli('refund', hashOrder(sampleOrder()))).code).toBe(2);
    }, 60_000);

    it('refunds an order bound for a chain it cannot see, and says it did not cancel or check there', async () => {
      const order = await depositOrder({ dstChainId: SOLANA_CHAIN_ID, dstToken: `0x${'c6'.repeat(32)}`, recipient: `0x${'9a'.repeat(32)}` });
      const report = await refundOrder({ rpcUrls: rpcUrls(), chain: 'ethereum', quoteHash: hashOrder(order) });
      expect(report.destination).toBe('chain id 792703809 is not a running local chain: the order was not cancelled there, nor its fill checked');
      expect(report.cancel_tx_hash).toBeUndefined();
      expect(report.amount).toBe(order.amountIn.toString());
    }, 60_000);
  });
});

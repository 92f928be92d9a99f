import { DEV_FILLER_KEY } from '@xchain/devnet';
import { XCHAIN_ROUTER_ABI, approveCalldata, depositTx } from '@xchain/evm-gasless';
import { orderFromWire } from '@xchain/order-codec';
import { until, untilHolds } from '@xchain/stack';
import { type Address, type Hex, encodeAbiParameters, keccak256, maxUint256, parseEventLogs, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { type E2eStack, type E2eStackOptions, startE2eStack } from './e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from './gasless-client';
import { apiErrorView, crossChainOf } from './http';
import { T } from './registry-fixture';

export const ARB_USDC = T.arbitrum.USDC as Address;
const BASE_USDC = LOCAL_TOKENS.base.USDC;

/** The operator wallet: the local routers' refunder and settler, so the one that fills, cancels, refunds and claims. */
export const filler = privateKeyToAccount(DEV_FILLER_KEY);

/** Enough for any quote of the suites: quoting checks live inventory, so it must be there while they quote. */
export const PLENTY = 10n ** 12n;

/** The stack's environment for settlement suites: the operator wallet configured, fast loops. */
export const SETTLEMENT_ENV = {
  FILLER_PRIVATE_KEYS: DEV_FILLER_KEY,
  PRICE_POLL_MS: '600000',
  PRICE_MAX_AGE_SECS: '7200',
  RELAY_POLL_MS: '200',
  RELAY_SWEEP_MS: '1000',
  CHAIN_WATCH_POLL_MS: '300',
  INVENTORY_REFRESH_MS: '300',
  SETTLEMENT_CLAIM_EVERY_MS: '1000',
};

/**
 * A stack with the operator wallet on local chains (default base and arbitrum), its typed client
 * and the fixture, ready: what every settlement suite starts with.
 */
export async function startSettlementStack(
  env: NodeJS.ProcessEnv = {},
  opts: E2eStackOptions = {},
): Promise<{ e2e: E2eStack; g: GaslessClient; s: SettlementFixture }> {
  const e2e = await startE2eStack({ ...SETTLEMENT_ENV, ...env }, { devnet: { chains: ['base', 'arbitrum'] }, ...opts });
  try {
    const g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
    const s = new SettlementFixture(e2e, g);
    await s.setUp();
    return { e2e, g, s };
  } catch (err) {
    await e2e.stop();
    throw err;
  }
}

/** Quotes base USDC → arbitrum USDC through the gateway, deposits them, and reads what settlement did on chain. */
export class SettlementFixture {
  routers: Record<string, Address> = {};

  constructor(
    readonly e2e: E2eStack,
    readonly g: GaslessClient,
  ) {}

  /** The operator wallet gets gas on the local chains and lets arbitrum's router pull its USDC. */
  async setUp(): Promise<void> {
    this.routers = Object.fromEntries((await this.g.api.getChains()).chains.map((c) => [c.chain, c.deposit_target as Address]));
    for (const chain of this.g.clients.keys()) await this.g.setNativeBalance(chain, filler.address, 10n ** 20n);
    await this.g.send('arbitrum', { to: ARB_USDC, data: approveCalldata(this.routers['arbitrum']!, maxUint256) }, filler);
  }

  inventory(): Promise<bigint> {
    return this.g.balanceOf('arbitrum', ARB_USDC, filler.address);
  }

  /**
   * Sets the operator's arbitrum USDC to exactly `amount` (the dev token's balances mapping is its
   * first storage slot), so each test decides how much inventory there is whatever came before.
   */
  async setInventory(amount: bigint): Promise<void> {
    const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [filler.address, 0n]));
    await this.g
      .client('arbitrum')
      .request({ method: 'anvil_setStorageAt' as never, params: [ARB_USDC, slot, toHex(amount, { size: 32 })] as never });
    if ((await this.inventory()) !== amount) throw new Error('the dev token does not keep balances in slot 0 any more');
  }

  /** A quote for a new user who holds `amount` of base USDC (see `retryingInventory`). */
  quote(amount: bigint) {
    return this.retryingInventory(() => this.quoteOnce(amount));
  }

  /**
   * Quoting sees a new inventory at its next reading (INVENTORY_REFRESH_MS): a refusal for inventory
   * is retried a while. So is a 504 UPSTREAM_TIMEOUT, which the API documents as retryable: a burst
   * of quotes beside a burst of settlement can take the quote-engine past the gateway's deadline on
   * a loaded machine, and these suites test what is decided, not how fast.
   */
  async retryingInventory<T>(quote: () => Promise<T>): Promise<T> {
    const quoted = await until(
      'a quote the new inventory covers',
      () =>
        quote().then(
          (q) => ({ q }),
          (err: unknown) => {
            const reason = apiErrorView(err).reason;
            if (reason !== 'INSUFFICIENT_INVENTORY' && reason !== 'UPSTREAM_TIMEOUT') throw err;
            return undefined;
          },
        ),
      { timeoutMs: 10_000, everyMs: 200, failOnError: true },
    );
    return quoted.q;
  }

  async quoteOnce(amount: bigint) {
    const user = this.g.newUser();
    await this.g.mint('base', BASE_USDC, user.address, amount);
    await this.g.setNativeBalance('base', user.address, 10n ** 17n);
    const q = crossChainOf(
      await this.g.api.getQuote({
        src_chain: 'base',
        dst_chain: 'arbitrum',
        src_token: BASE_USDC,
        dst_token: ARB_USDC,
        trade_type: 'TRADE_TYPE_EXACT_INPUT',
        amount: amount.toString(),
        gas_drop: '',
        recipient: user.address,
        refund_address: user.address,
      }),
    );
    return { user, q, order: orderFromWire(q.order).order };
  }

  /** The user deposits its quote with the quote's own deposit call. */
  async deposit({ user, order }: Awaited<ReturnType<SettlementFixture['quoteOnce']>>): Promise<void> {
    await this.g.send('base', { to: BASE_USDC, data: approveCalldata(this.routers['base']!, maxUint256) }, user);
    const receipt = await this.g.send('base', depositTx(order, this.routers['base']!), user);
    if (receipt.status !== 'success') throw new Error('the deposit reverted');
  }

  /** Polls the operator's report (`partner-admin settlement`) until `done` holds. */
  async reportUntil(done: (report: any) => boolean, what: string, timeoutMs = 60_000): Promise<any> {
    const r = await untilHolds(
      what,
      () => this.e2e.admin('settlement'),
      (r) => r.code === 0 && done(r.out),
      {
        timeoutMs,
        everyMs: 250,
      },
    );
    return r.out;
  }

  routerRead(chain: string, fn: 'cancelled' | 'filled' | 'refunded' | 'claimed', hash: string): Promise<boolean> {
    return this.g
      .client(chain)
      .readContract({ address: this.routers[chain]!, abi: XCHAIN_ROUTER_ABI, functionName: fn, args: [hash as Hex] });
  }

  /** Every event `name` a router emitted for a quote hash: how many times a step really landed. */
  async routerEvents(chain: string, name: 'Filled' | 'Cancelled' | 'Refunded' | 'Claimed', hash: string) {
    const logs = await this.g.client(chain).getLogs({ address: this.routers[chain]!, fromBlock: 0n, toBlock: 'latest' });
    return parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs, eventName: name }).filter(
      (l) => (l.args as { quoteHash: Hex }).quoteHash === hash,
    );
  }
}

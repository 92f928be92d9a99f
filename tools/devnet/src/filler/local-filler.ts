import { fillTx } from '@xchain/evm-gasless';
import type { Order } from '@xchain/order-codec';
import { type Address, type Hex, type PublicClient, type WalletClient, createPublicClient, createWalletClient, http } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { type FillDelay, pickFillDelay } from './fill-delay';
import { type OpenedOrder, readOpenedOrders, revertReason } from './order-logs';

/** A local chain as the filler sees it: where to read and where to fill. */
export interface FillerChain {
  name: string;
  chainId: number;
  rpcUrl: string;
  /** The chain's XchainRouter (its registry `deposit_target`). */
  router: Address;
}

/** What became of one opened order: `filled`, or why not. */
export interface FillOutcome {
  quoteHash: Hex;
  srcChain: string;
  dstChain?: string;
  outcome: 'filled' | 'filled-elsewhere' | 'skipped' | 'reverted' | 'failed';
  /** The wait drawn for it, from the moment the filler saw the deposit. */
  delayMs?: number;
  txHash?: Hex;
  detail?: string;
}

export interface LocalFillerOptions {
  chains: readonly FillerChain[];
  fillerKey: Hex;
  delay: FillDelay;
  /** How often each chain is asked for new blocks; default 500 ms. */
  pollMs?: number;
  /** How long a fill's receipt is waited for; default 30 s. */
  receiptTimeoutMs?: number;
  /** One human line per event worth seeing. */
  log?: (line: string) => void;
  onOutcome?: (outcome: FillOutcome) => void;
  random?: () => number;
}

interface Lane {
  chain: FillerChain;
  client: PublicClient;
  wallet: WalletClient;
  /** Next block to read for OrderOpened. */
  next: bigint;
  lastError?: string;
  /** Fills on one chain go one after another: one wallet, one nonce sequence. */
  queue: Promise<void>;
}

const short = (hash: Hex) => `${hash.slice(0, 10)}…`;

/**
 * The local filler of `npm start`: a solver stand-in, so that on local chains an order goes all the
 * way from deposit to fill. Per local chain it polls the router's OrderOpened logs (eth_getLogs from
 * the last block read); each order bound for a local chain is filled there, after a random delay,
 * with `amountOut` (never below `minAmountOut`) and its gas drop, from the filler's own wallet.
 * Orders bound elsewhere (Solana, a chain not running) are skipped with one line. A fill that would
 * revert is logged once and dropped, never retried; AlreadyFilled just means someone else filled.
 * State lives in memory only: the local chains start fresh with every `npm start`.
 */
export class LocalFiller {
  private readonly lanes: Lane[];
  private readonly byChainId = new Map<bigint, Lane>();
  private readonly account: PrivateKeyAccount;
  private readonly seen = new Set<Hex>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly polls = new Map<Lane, NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly opts: LocalFillerOptions) {
    this.account = privateKeyToAccount(opts.fillerKey);
    this.lanes = opts.chains.map((chain) => {
      const transport = http(chain.rpcUrl, { timeout: 10_000, retryCount: 1 });
      const lane: Lane = {
        chain,
        client: createPublicClient({ transport, pollingInterval: 250 }),
        wallet: createWalletClient({ account: this.account, transport }),
        next: 0n,
        queue: Promise.resolve(),
      };
      this.byChainId.set(BigInt(chain.chainId), lane);
      return lane;
    });
  }

  get address(): Address {
    return this.account.address;
  }

  start(): void {
    for (const lane of this.lanes) this.schedulePoll(lane, 0);
  }

  /** Stops reading and drops the fills still waiting; a fill already sent is waited for. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of [...this.timers, ...this.polls.values()]) clearTimeout(t);
    this.timers.clear();
    this.polls.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  private schedulePoll(lane: Lane, delayMs: number): void {
    if (this.stopped) return;
    this.polls.set(
      lane,
      setTimeout(() => void this.track(this.poll(lane).finally(() => this.schedulePoll(lane, this.opts.pollMs ?? 500))), delayMs),
    );
  }

  private track(work: Promise<void>): Promise<void> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
    return work;
  }

  private async poll(lane: Lane): Promise<void> {
    try {
      const head = await lane.client.getBlockNumber({ cacheTime: 0 });
      if (head < lane.next) return;
      const opened = await readOpenedOrders(lane.client, lane.chain.router, lane.next, head);
      lane.next = head + 1n;
      lane.lastError = undefined;
      for (const o of opened) this.onOpened(lane, o);
    } catch (err) {
      // A chain that stops answering is said once, not every half second.
      const text = revertReason(err).text;
      if (text !== lane.lastError && !this.stopped) this.say(`reading ${lane.chain.name} failed: ${text}`);
      lane.lastError = text;
    }
  }

  private onOpened(src: Lane, { quoteHash, order }: OpenedOrder): void {
    if (this.seen.has(quoteHash)) return;
    this.seen.add(quoteHash);
    const dst = this.byChainId.get(order.dstChainId);
    if (!dst) {
      this.report({ quoteHash, srcChain: src.chain.name, outcome: 'skipped', detail: `destination chain id ${order.dstChainId} is not a local EVM chain` }, `skipping ${short(quoteHash)} from ${src.chain.name}: its destination (chain id ${order.dstChainId}) is not a local EVM chain`);
      return;
    }
    const delayMs = pickFillDelay(this.opts.delay, this.opts.random);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.stopped) return;
      const run = dst.queue.then(() => this.fill(src, dst, quoteHash, order, delayMs)).catch((err: unknown) => this.say(`fill of ${short(quoteHash)} failed: ${revertReason(err).text}`));
      dst.queue = run;
      void this.track(run);
    }, delayMs);
    this.timers.add(timer);
  }

  private async fill(src: Lane, dst: Lane, quoteHash: Hex, order: Order, delayMs: number): Promise<void> {
    if (this.stopped) return;
    const base = { quoteHash, srcChain: src.chain.name, dstChain: dst.chain.name, delayMs };
    const route = `${short(quoteHash)} (${src.chain.name} → ${dst.chain.name})`;
    const amount = order.amountOut > order.minAmountOut ? order.amountOut : order.minAmountOut;
    const tx = fillTx(order, amount, dst.chain.router);
    try {
      // Simulated first: a fill that would revert costs nothing and is said once, with its reason.
      await dst.client.call({ account: this.account, to: tx.to, data: tx.data, value: tx.value });
    } catch (err) {
      const why = revertReason(err);
      if (why.name === 'AlreadyFilled') this.report({ ...base, outcome: 'filled-elsewhere' }, `${route} was already filled by someone else`);
      else this.report({ ...base, outcome: 'reverted', detail: why.text }, `fill of ${route} would revert: ${why.text}; not retried`);
      return;
    }
    try {
      const hash = await dst.wallet.sendTransaction({ account: this.account, to: tx.to, data: tx.data, value: tx.value, chain: null });
      const receipt = await dst.client.waitForTransactionReceipt({ hash, timeout: this.opts.receiptTimeoutMs ?? 30_000 });
      if (receipt.status !== 'success') {
        this.report({ ...base, outcome: 'reverted', txHash: hash, detail: 'the transaction reverted' }, `fill of ${route} reverted on chain (tx ${hash}); not retried`);
        return;
      }
      const drop = order.gasDrop > 0n ? ` and ${order.gasDrop} wei of gas` : '';
      this.report({ ...base, outcome: 'filled', txHash: hash }, `filled ${route} after ${(delayMs / 1000).toFixed(1)} s: ${amount} base units${drop} to the recipient, tx ${hash}`);
    } catch (err) {
      this.report({ ...base, outcome: 'failed', detail: revertReason(err).text }, `fill of ${route} failed: ${revertReason(err).text}; not retried`);
    }
  }

  private report(outcome: FillOutcome, line: string): void {
    this.say(line);
    this.opts.onOutcome?.(outcome);
  }

  private say(line: string): void {
    this.opts.log?.(line);
  }
}

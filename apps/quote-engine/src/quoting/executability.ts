import { SolanaRpcClient, SolanaRpcRefused } from '@xchain/chain-watch';
import type { QuoteIssue } from '@xchain/contracts';
import { ERC20_PERMIT_ABI, PERMIT2_ADDRESS } from '@xchain/evm-gasless';
import { type Clock, token as diToken, withDeadline } from '@xchain/service-kit';
import { associatedTokenAccount } from '@xchain/svm-orders';
import type { Logger } from '@xchain/telemetry';
import { type Address, BaseError, ExecutionRevertedError, type PublicClient, getAddress } from 'viem';
import type { ChainInfo, TokenInfo } from '../registry/registry-cache';
import { type ExecutabilityFacts, type SourceState, type Unreadable, issuesOf } from './quote-issues';

const TIMED_OUT = Symbol('timed out');

/** What a GetQuote asks: can `owner` execute this quote as it stands? */
export interface ExecutabilityQuery {
  srcChain: ChainInfo;
  dstChain: ChainInfo;
  src: TokenInfo;
  /** The refund address, normalised: the wallet that deposits (or signs, gasless). */
  owner: string;
  /** The recipient, normalised. */
  recipient: string;
  gasless: boolean;
  amountIn: bigint;
  gasDrop: bigint;
  /** Whether the quote carries an `erc2612` permit (settled by the quote's own permit read, run alongside). */
  permitOffered: Promise<boolean>;
}

export interface Executability {
  /** The quote's issues; resolves within the configured deadline whatever the chains do, and never rejects. */
  issues(q: ExecutabilityQuery): Promise<QuoteIssue[]>;
}
export const EXECUTABILITY = diToken<Executability>('EXECUTABILITY');

export interface ChainChecksOptions {
  /** Deadline of one quote's reads, all chains together. */
  timeoutMs: number;
  /** A chain answer is reused this long (per chain, wallet and token); a chain that failed is not asked again for this long. */
  cacheMs: number;
  /** Gas units a deposit through the router is estimated at (NATIVE_GAS_SHORT). */
  depositGas: bigint;
}

interface Cached<T> {
  at: number;
  value: Promise<T | Unreadable>;
}

/**
 * Chain reads behind a quote's `issues`. The hot path costs a map lookup: each answer (or failure)
 * is kept `cacheMs`, keyed by chain, wallet and token, and a chain that failed is left alone for as
 * long, so an RPC that hangs costs one deadline per `cacheMs`, not one per quote.
 */
export class ChainChecks implements Executability {
  private readonly cache = new Map<string, Cached<unknown>>();
  private readonly downSince = new Map<string, { at: number; why: string }>();
  private readonly solana: SolanaRpcClient | undefined;

  constructor(
    private readonly evmClientOf: (chain: string) => PublicClient | undefined,
    solanaUrl: string | undefined,
    private readonly opts: ChainChecksOptions,
    private readonly log: Pick<Logger, 'warn' | 'info'>,
    private readonly clock: Clock,
  ) {
    this.solana = solanaUrl ? new SolanaRpcClient(solanaUrl, opts.timeoutMs) : undefined;
  }

  async issues(q: ExecutabilityQuery): Promise<QuoteIssue[]> {
    const checkRecipient = q.gasDrop > 0n && q.dstChain.vm === 'evm';
    const [source, recipient, permitOffered] = await Promise.all([
      this.read(q.srcChain.name, `src|${q.owner}|${q.src.address}|${q.gasless}`, () => this.sourceState(q)),
      checkRecipient
        ? this.read(q.dstChain.name, `dst|${q.recipient}|${q.gasDrop}`, () => this.receives(q.dstChain, q.recipient, q.gasDrop))
        : undefined,
      q.permitOffered.catch(() => false),
    ]);
    const facts: ExecutabilityFacts = {
      srcChain: q.srcChain.name,
      srcVm: q.srcChain.vm,
      srcSymbol: q.src.symbol,
      srcNativeSymbol: q.srcChain.nativeSymbol,
      srcIsNative: q.src.isNative,
      gasless: q.gasless,
      amountIn: q.amountIn,
      permitOffered,
      depositGas: this.opts.depositGas,
      source,
      dstChain: q.dstChain.name,
      dstNativeSymbol: q.dstChain.nativeSymbol,
      gasDrop: q.gasDrop,
      ...(recipient !== undefined ? { recipient: typeof recipient === 'boolean' ? { receives: recipient } : recipient } : {}),
    };
    return issuesOf(facts);
  }

  /** One cached, deadlined read; a failure is an Unreadable (kept as long as an answer). */
  private read<T>(chain: string, key: string, fetch: () => Promise<T | undefined>): Promise<T | Unreadable> {
    const t = this.clock.nowMs();
    const down = this.downSince.get(chain);
    if (down && t - down.at < this.opts.cacheMs) return Promise.resolve({ unreadable: down.why });
    const full = `${chain}|${key}`;
    const hit = this.cache.get(full) as Cached<T> | undefined;
    if (hit && t - hit.at < this.opts.cacheMs) return hit.value;
    if (this.cache.size > 10_000) this.evict(t);
    const value = this.deadlined(chain, fetch);
    this.cache.set(full, { at: t, value });
    return value;
  }

  private async deadlined<T>(chain: string, fetch: () => Promise<T | undefined>): Promise<T | Unreadable> {
    try {
      const got = await withDeadline(fetch(), this.opts.timeoutMs, (): typeof TIMED_OUT => TIMED_OUT);
      if (got === TIMED_OUT) return this.failed(chain, `no answer within ${this.opts.timeoutMs} ms`);
      if (got === undefined) return { unreadable: `no RPC is configured for ${chain}` };
      if (this.downSince.delete(chain)) this.log.info({ chain }, 'quote checks: chain answers again');
      return got;
    } catch (err) {
      return this.failed(chain, err instanceof BaseError ? err.shortMessage : err instanceof Error ? err.message : String(err));
    }
  }

  private failed(chain: string, why: string): Unreadable {
    // One warning per outage, not one per quote.
    if (!this.downSince.has(chain)) this.log.warn({ chain, err: why }, 'quote checks: chain did not answer; quotes say CHAIN_UNAVAILABLE');
    this.downSince.set(chain, { at: this.clock.nowMs(), why: 'the chain RPC did not answer in time' });
    return { unreadable: 'the chain RPC did not answer in time' };
  }

  private evict(t: number): void {
    for (const [k, v] of this.cache) if (t - v.at >= this.opts.cacheMs) this.cache.delete(k);
  }

  private sourceState(q: ExecutabilityQuery): Promise<SourceState | undefined> {
    return q.srcChain.vm === 'evm' ? this.evmSource(q) : this.svmSource(q);
  }

  private async evmSource(q: ExecutabilityQuery): Promise<SourceState | undefined> {
    const client = this.evmClientOf(q.srcChain.name);
    if (!client) return undefined;
    const owner = getAddress(q.owner);
    const token = q.src.isNative ? undefined : getAddress(q.src.address);
    const spender: Address = q.gasless ? PERMIT2_ADDRESS : getAddress(q.srcChain.depositTarget);
    const sendsItself = !q.gasless;
    const [native, balance, allowance, gasPrice] = await Promise.all([
      q.src.isNative || sendsItself ? client.getBalance({ address: owner }) : undefined,
      token ? client.readContract({ address: token, abi: ERC20_PERMIT_ABI, functionName: 'balanceOf', args: [owner] }) : undefined,
      token ? client.readContract({ address: token, abi: ERC20_PERMIT_ABI, functionName: 'allowance', args: [owner, spender] }) : undefined,
      sendsItself ? client.getGasPrice() : undefined,
    ]);
    return {
      balance: (token ? balance : native) ?? 0n,
      ...(allowance !== undefined ? { allowance } : {}),
      ...(sendsItself && native !== undefined && gasPrice !== undefined ? { native, gasPrice } : {}),
    };
  }

  /** Solana: the balance only (lamports, or the owner's associated token account; none is 0). */
  private async svmSource(q: ExecutabilityQuery): Promise<SourceState | undefined> {
    const rpc = this.solana;
    if (!rpc) return undefined;
    if (q.src.isNative) {
      const r = await rpc.call<{ value: number }>('getBalance', [q.owner, { commitment: 'confirmed' }]);
      return { balance: BigInt(r?.value ?? 0) };
    }
    const ata = associatedTokenAccount(q.owner, q.src.address).toBase58();
    try {
      const r = await rpc.call<{ value: { amount: string } }>('getTokenAccountBalance', [ata, { commitment: 'confirmed' }]);
      return { balance: BigInt(r?.value?.amount ?? '0') };
    } catch (err) {
      // The node refuses the call for an account that does not exist: the wallet holds none.
      if (err instanceof SolanaRpcRefused) return { balance: 0n };
      throw err;
    }
  }

  /**
   * Whether the recipient takes `gasDrop` of native the way the router sends it (a plain call with
   * value from the router): an account without code always does; a contract is asked with eth_call
   * from the router, its balance set by a state override so the value is there to send.
   */
  private async receives(chain: ChainInfo, recipient: string, gasDrop: bigint): Promise<boolean | undefined> {
    const client = this.evmClientOf(chain.name);
    if (!client) return undefined;
    const to = getAddress(recipient);
    const code = await client.getCode({ address: to });
    if (!code || code === '0x') return true;
    const from = getAddress(chain.depositTarget);
    try {
      await client.call({ account: from, to, value: gasDrop, stateOverride: [{ address: from, balance: gasDrop }] });
      return true;
    } catch (err) {
      if (isRevert(err)) return false;
      throw err;
    }
  }
}

/** A call that reverted (the node answered), as opposed to an RPC that failed. */
function isRevert(err: unknown): boolean {
  if (!(err instanceof BaseError)) return false;
  return Boolean(err.walk((e) => e instanceof ExecutionRevertedError || (e instanceof BaseError && /revert/i.test(e.shortMessage))));
}

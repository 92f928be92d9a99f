import { SolanaRpcClient } from '@xchain/chain-watch';
import type { Logger } from '@xchain/telemetry';
import { type Clock, token } from '@xchain/service-kit';

/** A recent blockhash of the Solana cluster, or undefined when none can be had quickly. */
export interface BlockhashSource {
  recent(): Promise<string | undefined>;
}
export const SVM_BLOCKHASH = token<BlockhashSource>('SVM_BLOCKHASH');

export interface SolanaBlockhashOptions {
  /** Solana JSON-RPC endpoint; without it there is never a blockhash. */
  url?: string;
  /** Deadline of one getLatestBlockhash. */
  timeoutMs: number;
  /** A blockhash this young is served without asking; after a failure, nobody asks for this long. */
  cacheMs: number;
  /**
   * An older one is still served (and refreshed behind the answer) up to this age: a blockhash
   * lives ~60-90 s on the cluster, so a few seconds cost the signer little and keep quotes fast.
   */
  staleMs: number;
}

/**
 * getLatestBlockhash for the quote hot path: one request at a time whatever the quote rate, an
 * answer from memory for `cacheMs`, a slightly stale one while a refresh runs behind it, and after a
 * failure no new attempt for `cacheMs`, so a Solana RPC that is down costs a quote at most one
 * timeout per `cacheMs` (never a timeout per quote).
 */
export class SolanaBlockhashes implements BlockhashSource {
  private latest?: { hash: string; at: number };
  private failedAt = -Infinity;
  private inflight?: Promise<string | undefined>;
  private readonly rpc: SolanaRpcClient | undefined;

  constructor(
    private readonly opts: SolanaBlockhashOptions,
    private readonly log: Pick<Logger, 'warn'>,
    private readonly clock: Clock,
  ) {
    this.rpc = opts.url ? new SolanaRpcClient(opts.url, opts.timeoutMs) : undefined;
  }

  async recent(): Promise<string | undefined> {
    if (!this.opts.url) return undefined;
    const t = this.clock.nowMs();
    const age = this.latest ? t - this.latest.at : Infinity;
    if (age < this.opts.cacheMs) return this.latest!.hash;
    const mayAsk = t - this.failedAt >= this.opts.cacheMs;
    if (age < this.opts.staleMs) {
      if (mayAsk) void this.refresh();
      return this.latest!.hash;
    }
    return mayAsk ? this.refresh() : undefined;
  }

  private refresh(): Promise<string | undefined> {
    this.inflight ??= this.fetch().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async fetch(): Promise<string | undefined> {
    try {
      const hash = await this.rpc!.latestBlockhash('confirmed');
      if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(hash)) throw new Error('getLatestBlockhash: not a base58 blockhash');
      this.latest = { hash, at: this.clock.nowMs() };
      return hash;
    } catch (err) {
      this.failedAt = this.clock.nowMs();
      this.log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'Solana blockhash not read; gasless Solana quotes go without svm.tx_base64 for now',
      );
      return undefined;
    }
  }
}

import { Code, RpcError, type ApiKeyIdentity } from '@xchain/contracts';
import type { Clock } from '@xchain/service-kit';

/** `expiresAt`: fresh until then; `staleUntil`: may stand in for a failed refresh until then. */
type Entry = { identity: ApiKeyIdentity | null; expiresAt: number; staleUntil: number };

export interface KeyCacheStaleOptions {
  /** Past the TTL, how long the last decision may still be served when the lookup cannot be made (0: never). */
  staleMs: number;
  /** One line when an outage starts being bridged, one when lookups work again. */
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

/** While serving stale, a key is looked up again at most this often (a hung partner-service costs one deadline per key per interval, not per request). */
const STALE_RETRY_MS = 1000;

/** The partner-service did not answer (down, overloaded, no responders): not an answer about the key. */
export function isLookupOutage(err: unknown): boolean {
  return err instanceof RpcError && (err.status.code === Code.UNAVAILABLE || err.status.code === Code.DEADLINE_EXCEEDED);
}

/**
 * API key lookups by key hash, cached for `ttlMs` (unknown keys too, so garbage keys cannot make
 * every request a round trip). Bounded: the oldest entries go first. A disabled or re-tiered key
 * is evicted at once by the partner-service's key_changed event; if that message is missed, the
 * TTL bounds how long a stale answer can live. Concurrent lookups of one key share one request.
 *
 * Stale-if-error: when the lookup of an expired entry fails because the partner-service does not
 * answer (UNAVAILABLE or DEADLINE_EXCEEDED), the last decision is served for up to `staleMs` past
 * the TTL, so a partner-service outage does not stop every keyed request once the TTL passes.
 * The rate limits still apply. A key_changed event removes the entry, stale window included, so a
 * disabled key stops at once (and while the partner-service is down it then gets 503, never the
 * old allow). A key never cached has nothing to fall back on: its lookup error stands.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<ApiKeyIdentity | null>>();
  private readonly staleMs: number;
  private readonly log: KeyCacheStaleOptions['log'];
  private outageSince: number | undefined;
  private staleServed = 0;
  private staleServedAtOutageStart = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly clock: Clock,
    stale: KeyCacheStaleOptions = { staleMs: 0 },
  ) {
    this.staleMs = stale.staleMs;
    this.log = stale.log;
  }

  /** Decisions served stale since the process started. */
  get staleServedTotal(): number {
    return this.staleServed;
  }

  async get(keyHash: string, lookup: (hash: string) => Promise<ApiKeyIdentity | null>): Promise<ApiKeyIdentity | null> {
    const hit = this.entries.get(keyHash);
    if (hit && hit.expiresAt > this.clock.nowMs()) return hit.identity;
    if (hit && hit.staleUntil <= this.clock.nowMs()) this.entries.delete(keyHash);
    let pending = this.inflight.get(keyHash);
    if (!pending) {
      pending = lookup(keyHash)
        .then(
          (identity) => {
            this.put(keyHash, identity);
            this.lookupsWork();
            return identity;
          },
          (err: unknown) => this.staleOrThrow(keyHash, err),
        )
        .finally(() => this.inflight.delete(keyHash));
      this.inflight.set(keyHash, pending);
    }
    return pending;
  }

  /** The last decision if the lookup failed for want of an answer and the entry is within its stale window; else the error. */
  private staleOrThrow(keyHash: string, err: unknown): ApiKeyIdentity | null {
    const last = this.entries.get(keyHash);
    const now = this.clock.nowMs();
    if (!last || last.staleUntil <= now || !isLookupOutage(err)) throw err;
    // Ask again soon, not on every request: requests meanwhile get the same decision at once.
    last.expiresAt = Math.min(now + Math.min(this.ttlMs, STALE_RETRY_MS), last.staleUntil);
    this.staleServed++;
    if (this.outageSince === undefined) {
      this.outageSince = now;
      this.staleServedAtOutageStart = this.staleServed - 1;
      const reason = err instanceof RpcError ? err.status.message : String(err);
      this.log?.warn(
        { err: reason, stale_ms: this.staleMs },
        'key lookups failing; serving cached key decisions within KEY_CACHE_STALE_MS',
      );
    }
    return last.identity;
  }

  private lookupsWork(): void {
    if (this.outageSince === undefined) return;
    this.log?.info(
      { outage_ms: this.clock.nowMs() - this.outageSince, stale_served: this.staleServed - this.staleServedAtOutageStart },
      'key lookups answer again',
    );
    this.outageSince = undefined;
  }

  evict(keyHash: string): void {
    this.entries.delete(keyHash);
  }

  get size(): number {
    return this.entries.size;
  }

  private put(keyHash: string, identity: ApiKeyIdentity | null): void {
    this.entries.delete(keyHash);
    const now = this.clock.nowMs();
    this.entries.set(keyHash, { identity, expiresAt: now + this.ttlMs, staleUntil: now + this.ttlMs + this.staleMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}

import type { ApiKeyIdentity } from '@xchain/contracts';

type Entry = { identity: ApiKeyIdentity | null; expiresAt: number };

/**
 * API key lookups by key hash, cached for `ttlMs` (unknown keys too, so garbage keys cannot make
 * every request a round trip). Bounded: the oldest entries go first. A disabled or re-tiered key
 * is evicted at once by the partner-service's key_changed event; if that message is missed, the
 * TTL bounds how long a stale answer can live. Concurrent lookups of one key share one request.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<ApiKeyIdentity | null>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  async get(keyHash: string, lookup: (hash: string) => Promise<ApiKeyIdentity | null>): Promise<ApiKeyIdentity | null> {
    const hit = this.entries.get(keyHash);
    if (hit && hit.expiresAt > this.now()) return hit.identity;
    if (hit) this.entries.delete(keyHash);
    let pending = this.inflight.get(keyHash);
    if (!pending) {
      pending = lookup(keyHash).then(
        (identity) => {
          this.put(keyHash, identity);
          return identity;
        },
      ).finally(() => this.inflight.delete(keyHash));
      this.inflight.set(keyHash, pending);
    }
    return pending;
  }

  evict(keyHash: string): void {
    this.entries.delete(keyHash);
  }

  get size(): number {
    return this.entries.size;
  }

  private put(keyHash: string, identity: ApiKeyIdentity | null): void {
    this.entries.delete(keyHash);
    this.entries.set(keyHash, { identity, expiresAt: this.now() + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}

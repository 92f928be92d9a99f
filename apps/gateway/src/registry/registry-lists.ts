import type { Clock } from '@xchain/service-kit';
import { etagOf } from '../http/etag';

/** A list as served: its bytes and their ETag. */
export interface RenderedList {
  body: Buffer;
  etag: string;
}

interface Rendered extends RenderedList {
  text: string;
}

/**
 * The chain and token lists as this gateway serves them (ListTokens, GetChains), kept in memory:
 * a request asks the quote-engine only when its list is missing or older than `maxAgeMs`. A
 * quote-engine whose reload changed a list says so on the bus (`changed()`), which drops every kept
 * list at once; `maxAgeMs` bounds how stale a list can be if that message is lost. 0 keeps nothing
 * (every answer is the quote-engine's of that moment). Requests that arrive while the quote-engine
 * is asked share its answer: one call, one serialisation, one hash.
 */
export class RegistryLists {
  private readonly kept = new Map<string, { list: Rendered; at: number }>();
  private readonly inFlight = new Map<string, Promise<Rendered>>();
  /** The last rendering per list: an unchanged list keeps its bytes and ETag (no new hash). */
  private readonly last = new Map<string, Rendered>();
  /** Bumped by every change: an answer asked for before one is served but not kept. */
  private generation = 0;

  constructor(
    private readonly maxAgeMs: number,
    private readonly clock: Clock,
  ) {}

  /** A list changed upstream: every list is asked for again, and answers already on their way are not kept. */
  changed(): void {
    this.generation++;
    this.kept.clear();
    this.inFlight.clear();
  }

  /** The list under `key`, kept or from `ask` (a rejection reaches every waiting caller and keeps nothing). */
  get(key: string, ask: () => Promise<unknown>): RenderedList | Promise<RenderedList> {
    const kept = this.kept.get(key);
    if (kept && this.clock.nowMs() - kept.at < this.maxAgeMs) return kept.list;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const generation = this.generation;
    const askedAt = this.clock.nowMs();
    const asking: Promise<Rendered> = ask()
      .then((result) => {
        const text = JSON.stringify(result);
        const last = this.last.get(key);
        const list = last?.text === text ? last : { text, body: Buffer.from(text), etag: etagOf(text) };
        this.last.set(key, list);
        if (generation === this.generation && this.maxAgeMs > 0) this.kept.set(key, { list, at: askedAt });
        return list;
      })
      .finally(() => {
        if (this.inFlight.get(key) === asking) this.inFlight.delete(key);
      });
    this.inFlight.set(key, asking);
    return asking;
  }
}

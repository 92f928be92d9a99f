import type { PriceSourceStatus } from '@xchain/contracts';
import type { Logger } from '@xchain/telemetry';
import type { SourceName } from './sources/source';

/**
 * What one source has been doing, judged at any instant: healthy while its last poll worked and
 * it gave a fresh value within the silence budget. Each change of verdict is logged once, so a
 * dying source is noticed without a line per poll.
 */
export class SourceMonitor {
  private polled = false;
  private lastFreshMs?: number;
  private error?: string;
  private loggedOk?: boolean;

  constructor(
    readonly name: SourceName,
    private readonly silenceMs: number,
    private readonly log: Logger,
  ) {}

  recordSuccess(freshCount: number, nowMs: number): void {
    this.polled = true;
    this.error = undefined;
    if (freshCount > 0) this.lastFreshMs = nowMs;
    this.observe(nowMs);
  }

  recordFailure(reason: string, nowMs: number): void {
    this.polled = true;
    this.error = reason;
    this.observe(nowMs);
  }

  /** The verdict now, logging it when it differs from the last one logged. */
  observe(nowMs: number): PriceSourceStatus {
    const status = this.status(nowMs);
    if (status.ok !== this.loggedOk && (this.polled || this.loggedOk !== undefined)) {
      if (status.ok) this.log.info({ source: this.name, detail: status.detail }, 'price source healthy');
      else this.log.warn({ source: this.name, detail: status.detail }, 'price source unhealthy');
      this.loggedOk = status.ok;
    }
    return status;
  }

  status(nowMs: number): PriceSourceStatus {
    const base = {
      source: this.name,
      ...(this.lastFreshMs !== undefined ? { last_success_time: Math.floor(this.lastFreshMs / 1000) } : {}),
    };
    const ago = this.lastFreshMs === undefined ? undefined : `${Math.round((nowMs - this.lastFreshMs) / 1000)}s ago`;
    if (!this.polled) return { ...base, ok: false, detail: 'not polled yet (waiting for the list of price feeds)' };
    if (this.error !== undefined) return { ...base, ok: false, detail: `failing: ${this.error}${ago ? `; last fresh value ${ago}` : ''}` };
    if (this.lastFreshMs === undefined) return { ...base, ok: false, detail: 'no fresh value yet' };
    if (nowMs - this.lastFreshMs > this.silenceMs) return { ...base, ok: false, detail: `silent: last fresh value ${ago}` };
    return { ...base, ok: true, detail: `last fresh value ${ago}` };
  }
}

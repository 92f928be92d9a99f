import type { Logger } from 'pino';
import { shortError } from './database-errors';

export interface DatabaseOutageOptions {
  /** How often, while the outage lasts, `probe` asks whether the database is back. */
  probeMs?: number;
  now?: () => number;
}

/**
 * Turns a database outage into two log lines instead of one per failed request: a warning when
 * the first failure arrives and, once a query succeeds again, one info line saying how long it
 * lasted and how many failures were not logged. While it lasts, a probe (`SELECT 1`, given by
 * the service's database provider) runs every `probeMs`, so the end is noticed even when no
 * request comes; without a probe, the first request that succeeds ends it.
 */
export class DatabaseOutage {
  private since: number | undefined;
  private suppressed = 0;
  private probe: (() => Promise<unknown>) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private readonly probeMs: number;
  private readonly now: () => number;

  constructor(
    private readonly log: Pick<Logger, 'warn' | 'info'>,
    opts: DatabaseOutageOptions = {},
  ) {
    this.probeMs = opts.probeMs ?? 1000;
    this.now = opts.now ?? Date.now;
  }

  get down(): boolean {
    return this.since !== undefined;
  }

  /** The query that tells whether the database answers again. */
  setProbe(probe: () => Promise<unknown>): void {
    this.probe = probe;
  }

  /** A database failure: logged if it starts an outage, counted otherwise. */
  failed(err: unknown, where?: string): void {
    if (this.since !== undefined) {
      this.suppressed++;
      return;
    }
    this.since = this.now();
    this.suppressed = 0;
    this.log.warn({ err: shortError(err), ...(where ? { where } : {}) }, 'database unreachable; answering UNAVAILABLE until it is back');
    if (this.probe) {
      this.timer = setInterval(() => void this.runProbe(), this.probeMs);
      this.timer.unref();
    }
  }

  /** A query that succeeded: ends the outage if one is open. */
  succeeded(): void {
    if (this.since === undefined) return;
    const downMs = this.now() - this.since;
    this.log.info({ down_ms: downMs, failures_not_logged: this.suppressed }, 'database reachable again');
    this.since = undefined;
    this.suppressed = 0;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * A request that succeeded while an outage is open: without a probe it ends the outage; with
   * one, the probe decides (the request may not have needed the database).
   */
  requestSucceeded(): void {
    if (this.since === undefined) return;
    if (this.probe) void this.runProbe();
    else this.succeeded();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async runProbe(): Promise<void> {
    if (!this.probe || this.probing || this.since === undefined) return;
    this.probing = true;
    try {
      await this.probe();
      this.succeeded();
    } catch {
      // still down: the next probe asks again
    } finally {
      this.probing = false;
    }
  }
}

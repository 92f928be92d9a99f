import type { DependencyOutages } from '@xchain/messaging';
import type { Logger } from '@xchain/telemetry';

/**
 * The warnings of a loop that runs every pass (settlement, stray returns): a failure that says a
 * dependency is away (the relayer, a chain RPC behind it) goes to the process's outage of it, one
 * warning per outage and one line with the count when it is back; any other problem is warned
 * once per key, not on every pass that meets it again.
 */
export class PassWarnings {
  private readonly warned = new Set<string>();

  constructor(
    private readonly log: Pick<Logger, 'warn'>,
    private readonly outages?: Pick<DependencyOutages, 'failed' | 'succeeded'>,
  ) {}

  /** A step that failed with `err`: counted in its dependency's outage, or warned once under `key`. */
  failed(key: string, err: unknown, fields: Record<string, unknown>, msg: string): void {
    if (this.outages?.failed(err, fields)) return;
    this.once(key, fields, msg);
  }

  /** A problem that is no failure of a call (a chain missing from the registry): warned once under `key`. */
  once(key: string, fields: Record<string, unknown>, msg: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.log.warn(fields, msg);
  }

  /** A call through these dependencies answered: their outages, if open, end. */
  answered(...dependencies: string[]): void {
    this.outages?.succeeded(...dependencies);
  }
}

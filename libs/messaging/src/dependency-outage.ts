import { GetGaslessOrderRpc, RpcError, type RpcContract } from '@xchain/contracts';
import { shortError } from './database-errors';

export interface OutageLog {
  warn(fields: object, msg: string): void;
  info(fields: object, msg: string): void;
}

export interface DependencyOutageOptions {
  /** Asked every `probeMs` while the outage lasts: resolving ends it, even when no call comes. */
  probe?: () => Promise<unknown>;
  probeMs?: number;
  /**
   * How long the dependency must answer with no failure before its outage is over (default
   * OUTAGE_SETTLE_MS). A failure within it, as a restarted service warms up or a flapping link
   * drops again, is the same outage: counted, not warned again.
   */
  settleMs?: number;
  now?: () => number;
  /** The two lines' messages (default: `<name> unreachable; …` and `<name> reachable again`). */
  messages?: { down: string; back: string };
}

/** The quiet time after a dependency answers again before its outage counts as over. */
export const OUTAGE_SETTLE_MS = 5000;

/**
 * One dependency (another service, a chain RPC) as two log lines instead of one per failed call: a
 * warning when the first failure arrives and, once calls succeed again (or the probe answers) and
 * no failure follows for `settleMs`, one info line with how long it lasted (`down_ms`, up to the
 * first answer of the recovery that held) and how many failures were noticed meanwhile (`failures`,
 * the first included). One outage is thus everything from the first failure until the dependency
 * has answered for `settleMs` without failing: a flap while it comes back is part of it.
 */
export class DependencyOutage {
  private since: number | undefined;
  /** When the dependency first answered again in this outage (undefined while it still fails). */
  private answeredAt: number | undefined;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private settleTimer: NodeJS.Timeout | undefined;
  private probing = false;
  private readonly now: () => number;
  private readonly settleMs: number;

  constructor(
    private readonly log: OutageLog,
    readonly name: string,
    private readonly opts: DependencyOutageOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.settleMs = opts.settleMs ?? OUTAGE_SETTLE_MS;
  }

  get down(): boolean {
    return this.since !== undefined;
  }

  /** Whether a probe tells when it ends (otherwise only a call that succeeds does). */
  get probed(): boolean {
    return this.opts.probe !== undefined;
  }

  /** A call that failed because the dependency did not answer: logged if it starts an outage, counted otherwise. */
  failed(err: unknown, fields: Record<string, unknown> = {}): void {
    this.failures++;
    if (this.since !== undefined) {
      // Failing again before the recovery held: the same outage goes on.
      this.answeredAt = undefined;
      this.clearSettle();
      return;
    }
    this.since = this.now();
    this.failures = 1;
    this.log.warn(
      { dependency: this.name, err: shortError(err), ...fields },
      this.opts.messages?.down ?? `${this.name} unreachable; calls to it fail until it is back`,
    );
    if (this.opts.probe) {
      this.timer = setInterval(() => void this.runProbe(), this.opts.probeMs ?? 1000);
      this.timer.unref();
    }
  }

  /** A call that succeeded: an open outage ends, with its one closing line, once `settleMs` pass without a failure. */
  succeeded(): void {
    if (this.since === undefined || this.answeredAt !== undefined) return;
    this.answeredAt = this.now();
    if (this.settleMs <= 0) return this.end();
    this.settleTimer = setTimeout(() => this.end(), this.settleMs);
    this.settleTimer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.clearSettle();
  }

  private end(): void {
    if (this.since === undefined || this.answeredAt === undefined) return;
    this.log.info(
      { dependency: this.name, down_ms: this.answeredAt - this.since, failures: this.failures },
      this.opts.messages?.back ?? `${this.name} reachable again`,
    );
    this.since = undefined;
    this.answeredAt = undefined;
    this.failures = 0;
    this.stop();
  }

  private clearSettle(): void {
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
  }

  private async runProbe(): Promise<void> {
    if (!this.opts.probe || this.probing || this.since === undefined || this.answeredAt !== undefined) return;
    this.probing = true;
    try {
      await this.opts.probe();
      this.succeeded();
    } catch {
      // still away: the next probe asks again
    } finally {
      this.probing = false;
    }
  }
}

/**
 * The dependency an error says could not be reached, by name: a service that is not running or
 * did not answer in time (`SERVICE_UNAVAILABLE`, `UPSTREAM_TIMEOUT`, `RELAYER_UNAVAILABLE`), the
 * bus, or a chain RPC that another service could not reach (`CHAIN_RPC_UNAVAILABLE`). Undefined
 * for any other error (a refusal is an answer, not an outage).
 */
export function unreachableDependency(err: unknown): string | undefined {
  if (!(err instanceof RpcError)) return undefined;
  const info = err.status.details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
  const reason = info && 'reason' in info ? info.reason : undefined;
  const metadata = (info && 'metadata' in info ? info.metadata : undefined) ?? {};
  switch (reason) {
    case 'SERVICE_UNAVAILABLE':
    case 'UPSTREAM_TIMEOUT':
      return metadata['service'];
    case 'RELAYER_UNAVAILABLE':
      return serviceDependency(GetGaslessOrderRpc);
    case 'BUS_UNAVAILABLE':
      return 'NATS';
    case 'CHAIN_RPC_UNAVAILABLE':
      return chainRpcDependency(metadata['chain'] ?? 'a chain');
    default:
      return undefined;
  }
}

/** The name a service has as a dependency: its subjects' first segment, as RpcClient's errors name it (`gasless`, `partner`). */
export const serviceDependency = (contract: Pick<RpcContract<never, never>, 'subject'>): string => contract.subject.split('.')[0]!;

/** The name a chain's RPC has as a dependency (in log lines and `DependencyOutages`). */
export const chainRpcDependency = (chain: string): string => `${chain} RPC`;

/**
 * The outages of every dependency of one process, shared by all its callers, so a relayer that
 * goes away is one warning whether settlement, inventory, order views or a consumer noticed it.
 */
export class DependencyOutages {
  private readonly outages = new Map<string, DependencyOutage>();

  constructor(
    private readonly log: OutageLog,
    private readonly opts: Omit<DependencyOutageOptions, 'probe'> = {},
  ) {}

  of(name: string): DependencyOutage {
    let outage = this.outages.get(name);
    if (!outage) {
      outage = new DependencyOutage(this.log, name, this.opts);
      this.outages.set(name, outage);
    }
    return outage;
  }

  /** Counts `err` in the outage of the dependency it names; true when it named one (the caller then need not log it). */
  failed(err: unknown, fields: Record<string, unknown> = {}): boolean {
    const name = unreachableDependency(err);
    if (name === undefined) return false;
    this.of(name).failed(err, fields);
    return true;
  }

  /** Each named dependency answered: their outages, if open, end. */
  succeeded(...names: string[]): void {
    for (const name of names) this.outages.get(name)?.succeeded();
  }

  /**
   * Awaits a call that goes through `names` (a service, the chain RPC it reads): a success ends
   * their outages, a failure that names an unreachable dependency is counted in its outage; the
   * outcome is the call's either way.
   */
  async watch<T>(call: Promise<T>, ...names: string[]): Promise<T> {
    try {
      const result = await call;
      this.succeeded(...names);
      return result;
    } catch (err) {
      this.failed(err);
      throw err;
    }
  }

  stop(): void {
    for (const o of this.outages.values()) o.stop();
  }
}

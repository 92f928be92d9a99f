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
  now?: () => number;
  /** The two lines' messages (default: `<name> unreachable; …` and `<name> reachable again`). */
  messages?: { down: string; back: string };
}

/**
 * One dependency (another service, a chain RPC) as two log lines instead of one per failed call: a
 * warning when the first failure arrives and, once a call succeeds again (or the probe answers),
 * one info line with how long it lasted (`down_ms`) and how many failures were noticed meanwhile
 * (`failures`, the first included).
 */
export class DependencyOutage {
  private since: number | undefined;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private readonly now: () => number;

  constructor(
    private readonly log: OutageLog,
    readonly name: string,
    private readonly opts: DependencyOutageOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
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
    if (this.since !== undefined) return;
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

  /** A call that succeeded: ends an open outage with its one closing line. */
  succeeded(): void {
    if (this.since === undefined) return;
    this.log.info(
      { dependency: this.name, down_ms: this.now() - this.since, failures: this.failures },
      this.opts.messages?.back ?? `${this.name} reachable again`,
    );
    this.since = undefined;
    this.failures = 0;
    this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async runProbe(): Promise<void> {
    if (!this.opts.probe || this.probing || this.since === undefined) return;
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

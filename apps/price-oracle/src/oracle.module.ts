import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { RpcClient, type NatsConnection } from '@xchain/messaging';
import { Clock, HealthController, HealthRegistry, LOGGER, NATS, serviceProviders, provideValue, token } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import type { PriceOracleEnv } from './env';
import { FeedDirectory } from './feed-directory';
import { PricePoller } from './price-poller';
import { KvPriceStore } from './price-store';
import { registerSourceChecks } from './readiness';
import { SourceMonitor } from './source-health';
import { buildSources } from './build-sources';
import type { Feed, PriceSource } from './sources/source';

const ORACLE_ENV = token<PriceOracleEnv>('ORACLE_ENV');

export interface OracleModuleOptions {
  /** Instead of the system clock: tests replaying recorded prices set it to the recording's time. */
  clock?: Clock;
}

/** Wires sources, feed list, poller and readiness, and runs them for the app's lifetime. */
@Injectable()
class OracleRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly directory: FeedDirectory;
  private readonly poller: PricePoller;

  constructor(
    @Inject(ORACLE_ENV) env: PriceOracleEnv,
    @Inject(Clock) clock: Clock,
    @Inject(NATS) nc: NatsConnection,
    @Inject(RpcClient) rpc: RpcClient,
    @Inject(LOGGER) log: Logger,
    @Inject(HealthRegistry) health: HealthRegistry,
  ) {
    const sources = buildSources(env);
    // A source is never judged silent before it has had two polls to speak.
    const silenceMs = Math.max(env.PRICE_SOURCE_MAX_SILENCE_MS, 2 * env.PRICE_POLL_MS);
    const monitored = sources.map((source) => ({ source, monitor: new SourceMonitor(source.name, silenceMs, log) }));
    registerSourceChecks(
      health,
      monitored.map((m) => m.monitor),
      clock,
    );
    this.directory = new FeedDirectory(rpc, log, { refreshMs: env.PRICE_FEEDS_REFRESH_MS }, (feeds) => {
      warnUncovered(feeds, sources, log);
      this.poller.poke();
    });
    this.poller = new PricePoller(monitored, () => this.directory.feeds, new KvPriceStore(nc, log), log, {
      pollMs: env.PRICE_POLL_MS,
      maxAgeSecs: env.PRICE_MAX_AGE_SECS,
      clock,
    });
    log.info({ sources: env.PRICE_SOURCES }, 'price sources configured');
  }

  onApplicationBootstrap(): void {
    this.directory.start();
    this.poller.start();
  }

  /** Before NATS drains: the loops stop while they can still finish their last request. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([this.directory.stop(), this.poller.stop()]);
  }
}

/** A listed asset that no configured source can price would go stale unnoticed: say so once. */
function warnUncovered(feeds: readonly Feed[], sources: readonly PriceSource[], log: Logger): void {
  const uncovered = feeds.filter((f) => !sources.some((s) => s.covers(f))).map((f) => f.price_id);
  if (uncovered.length > 0) log.warn({ price_ids: uncovered }, 'no configured price source covers these price ids');
}

@Module({})
export class PriceOracleModule {
  static forEnv(env: PriceOracleEnv, opts: OracleModuleOptions = {}): DynamicModule {
    return {
      module: PriceOracleModule,
      controllers: [HealthController],
      providers: [
        ...serviceProviders('price-oracle', env),
        ...(opts.clock ? [{ provide: Clock, useValue: opts.clock }] : []),
        provideValue(ORACLE_ENV, env),
        OracleRunner,
      ],
    };
  }
}

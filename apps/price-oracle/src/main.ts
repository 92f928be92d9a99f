import './instrument';
import 'reflect-metadata';
import { randomInt } from 'node:crypto';
import { Inject, Injectable, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { RpcClient, type NatsConnection } from '@xchain/messaging';
import { HealthController, HealthRegistry, LOGGER, NATS, coreProviders, startService } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { loadOracleEnv } from './env';
import { PricePublisher } from './publisher';
import { ChainlinkSource, parseFeedMap } from './sources/chainlink-source';
import { FilePriceSource, lcg } from './sources/file-source';
import { PythHermesSource } from './sources/pyth-source';
import type { PriceSource } from './sources/source';

const env = loadOracleEnv();

function buildSources(): PriceSource[] {
  return env.PRICE_SOURCES.map((name): PriceSource => {
    switch (name) {
      case 'file':
        return new FilePriceSource(env.PRICES_FILE, env.PRICE_WALK_SEED === undefined ? () => randomInt(0, 2 ** 31) : lcg(env.PRICE_WALK_SEED));
      case 'pyth':
        return new PythHermesSource(env.PYTH_HERMES_URL, env.PYTH_TIMEOUT_MS);
      case 'chainlink':
        if (!env.CHAINLINK_RPC_URL) throw new Error('PRICE_SOURCES has chainlink but CHAINLINK_RPC_URL is unset');
        return new ChainlinkSource(env.CHAINLINK_RPC_URL, parseFeedMap(env.CHAINLINK_FEEDS), env.CHAINLINK_TIMEOUT_MS);
    }
  });
}

/** Runs the publisher for the app's lifetime; readiness fails while no configured source is healthy. */
@Injectable()
class OracleLifecycle implements OnModuleInit, OnApplicationShutdown {
  private readonly publisher: PricePublisher;

  constructor(@Inject(NATS) nc: NatsConnection, @Inject(LOGGER) log: Logger, @Inject(HealthRegistry) health: HealthRegistry) {
    this.publisher = new PricePublisher(nc, new RpcClient(nc, env.NATS_REQUEST_TIMEOUT_MS), buildSources(), log, {
      pollMs: env.PRICE_POLL_MS,
      maxSilenceMs: env.PRICE_SOURCE_MAX_SILENCE_MS,
      feedsRefreshMs: env.FEEDS_REFRESH_MS,
    });
    health.register('price_sources', async () => {
      const all = Object.entries(this.publisher.sourceHealth());
      const failing = all.filter(([, h]) => !h.ok).map(([name, h]) => `${name}: ${h.detail ?? 'unhealthy'}`);
      return { ok: failing.length < all.length, ...(failing.length ? { detail: failing.join('; ') } : { detail: `${this.publisher.feedCount} feeds` }) };
    });
  }

  onModuleInit(): void {
    this.publisher.start();
  }

  onApplicationShutdown(): void {
    this.publisher.stop();
  }
}

@Module({
  controllers: [HealthController],
  providers: [...coreProviders({ service: 'price-oracle', natsUrl: env.NATS_URL, natsConnectTimeoutMs: env.NATS_CONNECT_TIMEOUT_MS }), OracleLifecycle],
})
class PriceOracleModule {}

void startService({ service: 'price-oracle', module: PriceOracleModule, host: env.HOST, port: env.PRICE_ORACLE_PORT });

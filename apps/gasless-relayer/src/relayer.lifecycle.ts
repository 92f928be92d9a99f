import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock, type HealthCheck, HealthRegistry, Metrics } from '@xchain/service-kit';
import { Redis } from 'ioredis';
import { chainHealth } from './chain/chain-health';
import { RelayChains } from './chain/relay-chains';
import { walletBalanceGauges, watchLanes } from './metrics/relayer-metrics';
import { Lanes } from './relay/lanes';
import { Sender } from './relay/sender';
import { Sweeper } from './relay/sweeper';
import { Tracker } from './relay/tracker';
import { SOLANA_HEALTH } from './svm/solana-health';
import { SVM_RELAY, type SvmRelay } from './svm/svm-relay';

/** Registers the relayer's readiness checks and gauges, starts its loops, and stops them on shutdown. */
@Injectable()
export class RelayerLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(Lanes) private readonly lanes: Lanes,
    @Inject(Sender) private readonly sender: Sender,
    @Inject(Tracker) private readonly tracker: Tracker,
    @Inject(Sweeper) private readonly sweeper: Sweeper,
    @Inject(SVM_RELAY) private readonly svmRelay: SvmRelay | null,
    @Inject(Redis) private readonly redis: Redis,
    @Inject(RelayChains) chains: RelayChains,
    @Inject(HealthRegistry) health: HealthRegistry,
    @Inject(Metrics) metrics: Metrics,
    @Inject(SOLANA_HEALTH) solanaHealth: HealthCheck | null,
    @Inject(Clock) clock: Clock,
  ) {
    if (solanaHealth) health.register('solana', solanaHealth);
    health.register('redis', async () => ({ ok: (await this.redis.ping()) === 'PONG' }));
    health.register('chains', chainHealth(chains, walletBalanceGauges(metrics, clock)));
    watchLanes(metrics, () => this.lanes.laneQueues, clock);
    health.register('relay_queue', async () => {
      const d = await this.lanes.depth(clock.nowMs());
      return { ok: true, detail: `${d.waiting} waiting, oldest ${Math.round(d.oldestMs / 1000)} s` };
    });
  }

  onApplicationBootstrap(): void {
    this.lanes.start((chain, wallet, quoteHash) => this.sender.send(chain, wallet, quoteHash));
    this.tracker.start();
    this.sweeper.start();
    this.svmRelay?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.tracker.stop(), this.sweeper.stop(), this.svmRelay?.stop()]);
    await this.lanes.close();
    await this.redis.quit().catch(() => undefined);
  }
}

import './instrument';
import 'reflect-metadata';
import { Controller, Inject, Injectable, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { GetGaslessOrderRpc, OperatorBalanceRpc, RpcError, SendOperatorTxRpc, SubmitGaslessOrderRpc } from '@xchain/contracts';
import { type GaslessOrder, createGaslessRelayerDb } from '@xchain/gasless-relayer-db';
import { Rpc, RpcClient, type NatsConnection, type RpcBody } from '@xchain/messaging';
import { HealthController, HealthRegistry, LOGGER, Metrics, NATS, coreProviders, databaseProviders, startService } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { Redis } from 'ioredis';
import { chainHealth } from './chain/chain-health';
import { RelayChains } from './chain/relay-chains';
import { loadRelayerEnv } from './env';
import { walletBalanceGauges, watchLanes } from './metrics/relayer-metrics';
import { OperatorTxs } from './operator/operator-txs';
import { SvmOperatorTxs } from './operator/svm-operator-txs';
import { OrderRepository, viewOf } from './orders/order.repository';
import { StatusEvents } from './orders/status-events';
import { ChainReplacement } from './relay/chain-replaced';
import { Holds } from './relay/holds';
import { Lanes } from './relay/lanes';
import { NonceBook } from './relay/nonces';
import { Sender } from './relay/sender';
import { Sweeper } from './relay/sweeper';
import { Tracker } from './relay/tracker';
import { SubmitService } from './submit/submit.service';
import { solanaHealth } from './svm/solana-health';
import { SolanaRpc } from './svm/solana-rpc';
import { SvmRelay } from './svm/svm-relay';
import { SvmSubmit } from './svm/svm-submit';

const env = loadRelayerEnv();
const DB = Symbol('DB');

/** The relayer's parts, built once from the environment; Nest owns their start and stop. */
@Injectable()
class Relayer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly lanes: Lanes;
  private readonly tracker: Tracker;
  private readonly sweeper: Sweeper;
  private readonly sender: Sender;
  private readonly svmRelay?: SvmRelay;
  private readonly redis: Redis;
  readonly submit: SubmitService;
  readonly orders: OrderRepository;
  readonly operatorTxs: OperatorTxs;

  constructor(
    @Inject(DB) db: ReturnType<typeof createGaslessRelayerDb>,
    @Inject(NATS) nc: NatsConnection,
    @Inject(HealthRegistry) health: HealthRegistry,
    @Inject(LOGGER) log: Logger,
    @Inject(Metrics) metrics: Metrics,
  ) {
    const chains = new RelayChains(env);
    const client = new RpcClient(nc, env.NATS_REQUEST_TIMEOUT_MS);
    this.orders = new OrderRepository(db);
    const events = new StatusEvents(nc, log);
    // A chain replaced under us (a devnet started afresh): the wallet forgets its nonces, its unmined orders are sent again.
    const replaced = new ChainReplacement(db, log, async (chain, wallet, requeued) => {
      nonces.reset(chain, wallet);
      for (const q of requeued) await this.lanes.enqueue(chain, wallet, q).catch(() => undefined); // else the sweeper does
    });
    const nonces = new NonceBook(this.orders, replaced);
    const holds = new Holds(this.orders, client, log);
    this.lanes = new Lanes(chains, env.REDIS_URL, env.RELAY_QUEUE_PREFIX, log);
    this.sender = new Sender(chains, this.orders, nonces, events, holds, log);
    this.tracker = new Tracker(chains, this.orders, this.sender, this.lanes, nonces, events, { pollMs: env.RELAY_POLL_MS, bumpPercent: env.RELAY_FEE_BUMP_PERCENT }, log, replaced);
    this.sweeper = new Sweeper(this.orders, this.lanes, holds, this.sender, client, env.RELAY_SWEEP_MS, log);
    // Solana needs an RPC, and then a key: the fee payer's for gasless orders (D6), the filler's for
    // operator transactions (D15). One relay sends and follows both kinds of row.
    const solana = env.SOLANA_RPC_URL ? new SolanaRpc(env.SOLANA_RPC_URL, env.SOLANA_RPC_TIMEOUT_MS) : undefined;
    const feePayer = env.SOLANA_FEE_PAYER_KEY;
    const svmOperator = new SvmOperatorTxs(this.orders, solana, { filler: env.SOLANA_FILLER_KEY, vault: env.SOLANA_VAULT_KEY }, (key) => this.svmRelay?.wake(key), log);
    if (solana && (feePayer || env.SOLANA_FILLER_KEY)) {
      const resign = env.SOLANA_FILLER_KEY ? (order: GaslessOrder, from: 'queued' | 'submitted') => svmOperator.resign(order, from) : undefined;
      this.svmRelay = new SvmRelay(this.orders, solana, events, (chain, q) => this.sender.finished(chain, q), env.SOLANA_POLL_MS, log, resign);
    }
    let svm: { submit: SvmSubmit; relay: SvmRelay } | undefined;
    if (solana && feePayer && this.svmRelay) {
      svm = { submit: new SvmSubmit(solana, feePayer), relay: this.svmRelay };
      health.register('solana', solanaHealth(solana, feePayer.publicKey.toBase58(), env.SOLANA_FEE_PAYER_FLOOR_LAMPORTS));
    }
    this.operatorTxs = new OperatorTxs(chains, this.orders, this.lanes, log, svmOperator);
    this.submit = new SubmitService(this.orders, client, chains, this.lanes, events, log, undefined, svm);
    this.redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
    this.redis.on('error', () => undefined); // reported through readiness, retried by ioredis
    health.register('redis', async () => ({ ok: (await this.redis.ping()) === 'PONG' }));
    health.register('chains', chainHealth(chains, walletBalanceGauges(metrics)));
    watchLanes(metrics, () => this.lanes.laneQueues);
    health.register('relay_queue', async () => {
      const d = await this.lanes.depth();
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

/** The relayer's operations on the bus. */
@Controller()
class RelayerHandlers {
  constructor(@Inject(Relayer) private readonly relayer: Relayer) {}

  @Rpc(SubmitGaslessOrderRpc)
  submit(req: RpcBody<typeof SubmitGaslessOrderRpc>) {
    return this.relayer.submit.submit(req);
  }

  @Rpc(GetGaslessOrderRpc)
  async get(req: RpcBody<typeof GetGaslessOrderRpc>) {
    const order = await this.relayer.orders.find(req.quote_hash.toLowerCase());
    if (!order) throw RpcError.notFound(`no gasless order for ${req.quote_hash}`, 'ORDER_NOT_FOUND');
    return viewOf(order);
  }

  @Rpc(SendOperatorTxRpc)
  sendOperatorTx(req: RpcBody<typeof SendOperatorTxRpc>) {
    return this.relayer.operatorTxs.send(req);
  }

  @Rpc(OperatorBalanceRpc)
  async operatorBalance(req: RpcBody<typeof OperatorBalanceRpc>) {
    const { wallet, balance } = await this.relayer.operatorTxs.balance(req.chain, req.token);
    return { chain: req.chain, token: req.token, wallet, balance: balance.toString(), at: new Date().toISOString() };
  }
}

@Module({
  controllers: [HealthController, RelayerHandlers],
  providers: [
    ...coreProviders({ service: 'gasless-relayer', natsUrl: env.NATS_URL, natsConnectTimeoutMs: env.NATS_CONNECT_TIMEOUT_MS, natsUser: env.NATS_USER, natsPassword: env.NATS_PASSWORD, natsStreamReplicas: env.NATS_STREAM_REPLICAS }),
    ...databaseProviders(DB, () => createGaslessRelayerDb(env.DATABASE_URL, env.DATABASE_POOL_SIZE)),
    Relayer,
  ],
})
class GaslessRelayerModule {}

void startService({ service: 'gasless-relayer', module: GaslessRelayerModule, host: env.HOST, port: env.GASLESS_RELAYER_PORT, metrics: env.METRICS_ENABLED });

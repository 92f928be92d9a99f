import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { RpcClient } from '@xchain/messaging';
import { Clock, HealthController, LOGGER, Metrics, provideValue, serviceProviders } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { Redis } from 'ioredis';
import { RELAY_CHAIN_SETTINGS, RelayChains } from './chain/relay-chains';
import { dbProviders } from './db.providers';
import type { RelayerEnv } from './env';
import { OperatorTxs } from './operator/operator-txs';
import { SvmOperatorTxs } from './operator/svm-operator-txs';
import { type GaslessOrder, OrderRepository } from './orders/order.repository';
import { STATUS_EVENT_RETRY, STATUS_EVENT_RETRY_MS, StatusEvents } from './orders/status-events';
import { ChainReplacement } from './relay/chain-replaced';
import { Holds } from './relay/holds';
import { feePayerBalanceGauges } from './metrics/relayer-metrics';
import { LANES_PREFIX, LANES_REDIS_URL, Lanes } from './relay/lanes';
import { NextNonces } from './relay/next-nonces';
import { NonceBook } from './relay/nonces';
import { Sender } from './relay/sender';
import { SWEEP_MS, Sweeper } from './relay/sweeper';
import { TRACKER_OPTIONS, Tracker } from './relay/tracker';
import { RelayerHandlers } from './relayer.handlers';
import { RelayerLifecycle } from './relayer.lifecycle';
import { SVM_PARTS, type SvmParts } from './relayer.tokens';
import { SubmitService } from './submit/submit.service';
import { solanaHealth } from './svm/solana-health';
import { SolanaRpc } from './svm/solana-rpc';
import { SvmRelay } from './svm/svm-relay';
import { SvmSubmit } from './svm/svm-submit';

/** The gasless relayer: submits on the bus, relay lanes on BullMQ, EVM and Solana senders. */
@Module({})
export class GaslessRelayerModule {
  static forEnv(env: RelayerEnv): DynamicModule {
    return {
      module: GaslessRelayerModule,
      controllers: [HealthController, RelayerHandlers],
      providers: [
        ...serviceProviders('gasless-relayer', env),
        ...dbProviders(env.DATABASE_URL, env.DATABASE_POOL_SIZE),
        ...relayerProviders(env),
        RelayerLifecycle,
      ],
    };
  }
}

/** The relayer's parts, built once from the environment; Nest owns their start and stop (RelayerLifecycle). */
function relayerProviders(env: RelayerEnv): Provider[] {
  return [
    provideValue(RELAY_CHAIN_SETTINGS, env),
    provideValue(STATUS_EVENT_RETRY, STATUS_EVENT_RETRY_MS),
    provideValue(LANES_REDIS_URL, env.REDIS_URL),
    provideValue(LANES_PREFIX, env.RELAY_QUEUE_PREFIX),
    provideValue(TRACKER_OPTIONS, { pollMs: env.RELAY_POLL_MS, bumpPercent: env.RELAY_FEE_BUMP_PERCENT }),
    provideValue(SWEEP_MS, env.RELAY_SWEEP_MS),
    RelayChains,
    OrderRepository,
    StatusEvents,
    NextNonces,
    ChainReplacement,
    NonceBook,
    Holds,
    Lanes,
    Sender,
    Tracker,
    Sweeper,
    {
      provide: SVM_PARTS,
      inject: [OrderRepository, StatusEvents, Sender, LOGGER, Metrics],
      useFactory: (orders: OrderRepository, events: StatusEvents, sender: Sender, log: Logger, metrics: Metrics) =>
        svmParts(env, orders, events, sender, log, metrics),
    },
    {
      provide: OperatorTxs,
      inject: [RelayChains, OrderRepository, Lanes, LOGGER, SVM_PARTS],
      useFactory: (chains: RelayChains, orders: OrderRepository, lanes: Lanes, log: Logger, svm: SvmParts) =>
        new OperatorTxs(chains, orders, lanes, log, svm.operator),
    },
    {
      provide: SubmitService,
      inject: [OrderRepository, RpcClient, RelayChains, Lanes, StatusEvents, LOGGER, Clock, SVM_PARTS],
      useFactory: (
        orders: OrderRepository,
        rpc: RpcClient,
        chains: RelayChains,
        lanes: Lanes,
        events: StatusEvents,
        log: Logger,
        clock: Clock,
        svm: SvmParts,
      ) => new SubmitService(orders, rpc, chains, lanes, events, log, clock, svm.submit),
    },
    {
      provide: Redis,
      useFactory: () => {
        const redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
        redis.on('error', () => undefined); // reported through readiness, retried by ioredis
        return redis;
      },
    },
  ];
}

/**
 * Solana needs an RPC, and then a key: the fee payer's for gasless orders (D6), the filler's for
 * operator transactions (D15). One relay sends and follows both kinds of row.
 */
function svmParts(env: RelayerEnv, orders: OrderRepository, events: StatusEvents, sender: Sender, log: Logger, metrics: Metrics): SvmParts {
  const solana = env.SOLANA_RPC_URL ? new SolanaRpc(env.SOLANA_RPC_URL, env.SOLANA_RPC_TIMEOUT_MS) : undefined;
  const feePayer = env.SOLANA_FEE_PAYER_KEY;
  let relay: SvmRelay | undefined;
  const operator = new SvmOperatorTxs(
    orders,
    solana,
    { filler: env.SOLANA_FILLER_KEY, vault: env.SOLANA_VAULT_KEY, treasury: env.SOLANA_TREASURY },
    (key) => relay?.wake(key),
    log,
  );
  if (solana && (feePayer || env.SOLANA_FILLER_KEY)) {
    const resign = env.SOLANA_FILLER_KEY ? (order: GaslessOrder, from: 'queued' | 'submitted') => operator.resign(order, from) : undefined;
    relay = new SvmRelay(orders, solana, events, (chain, q) => sender.finished(chain, q), env.SOLANA_POLL_MS, log, resign);
  }
  if (!(solana && feePayer && relay)) return { operator, ...(relay ? { relay } : {}) };
  return {
    operator,
    relay,
    submit: { submit: new SvmSubmit(solana, feePayer), relay },
    health: solanaHealth(solana, feePayer.publicKey.toBase58(), env.SOLANA_FEE_PAYER_FLOOR_LAMPORTS, feePayerBalanceGauges(metrics)),
  };
}

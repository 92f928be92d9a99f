import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { Clock, HealthController, Metrics, provideValue, serviceProviders } from '@xchain/service-kit';
import { Redis } from 'ioredis';
import { RELAY_CHAIN_SETTINGS, RelayChains } from './chain/relay-chains';
import { dbProviders } from './db.providers';
import type { RelayerEnv } from './env';
import { feePayerBalanceGauges } from './metrics/relayer-metrics';
import { OperatorTxs } from './operator/operator-txs';
import { SOLANA_OPERATOR_KEYS, SvmOperatorTxs } from './operator/svm-operator-txs';
import { SvmResigner } from './operator/svm-resigner';
import { STATUS_EVENT_RETRY, STATUS_EVENT_RETRY_MS, StatusEvents } from './relay/status-events';
import { GaslessOrderRepository } from './store/gasless-order.repository';
import { LaneTxRepository } from './store/lane-tx.repository';
import { OPERATOR_TX_REPOSITORIES } from './store/operator-tx.repository';
import { ChainReplacement } from './relay/chain-replaced';
import { Holds } from './relay/holds';
import { LANES_PREFIX, LANES_REDIS_URL, Lanes } from './relay/lanes';
import { NextNonces } from './relay/next-nonces';
import { NonceBook } from './relay/nonces';
import { Sender } from './relay/sender';
import { SWEEP_MS, Sweeper } from './relay/sweeper';
import { TRACKER_OPTIONS, Tracker } from './relay/tracker';
import { RelayerHandlers } from './relayer.handlers';
import { RelayerLifecycle } from './relayer.lifecycle';
import { SubmitService } from './submit/submit.service';
import { SOLANA_HEALTH, solanaHealth } from './svm/solana-health';
import { SOLANA_RPC, SolanaRpc } from './svm/solana-rpc';
import { SVM_POLL_MS, SVM_RELAY, SVM_RESIGN, SvmRelay } from './svm/svm-relay';
import { SOLANA_FEE_PAYER, SVM_SUBMIT, SvmSubmit } from './svm/svm-submit';

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

/** The relayer's parts, bound by Nest from the environment's settings; Nest owns their start and stop (RelayerLifecycle). */
function relayerProviders(env: RelayerEnv): Provider[] {
  return [
    provideValue(RELAY_CHAIN_SETTINGS, env),
    provideValue(STATUS_EVENT_RETRY, STATUS_EVENT_RETRY_MS),
    provideValue(LANES_REDIS_URL, env.REDIS_URL),
    provideValue(LANES_PREFIX, env.RELAY_QUEUE_PREFIX),
    provideValue(TRACKER_OPTIONS, { pollMs: env.RELAY_POLL_MS, bumpPercent: env.RELAY_FEE_BUMP_PERCENT }),
    provideValue(SWEEP_MS, env.RELAY_SWEEP_MS),
    RelayChains,
    LaneTxRepository,
    GaslessOrderRepository,
    ...OPERATOR_TX_REPOSITORIES,
    StatusEvents,
    NextNonces,
    ChainReplacement,
    NonceBook,
    Holds,
    Lanes,
    Sender,
    Tracker,
    Sweeper,
    OperatorTxs,
    SubmitService,
    {
      provide: Redis,
      useFactory: () => {
        const redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
        redis.on('error', () => undefined); // reported through readiness, retried by ioredis
        return redis;
      },
    },
    ...svmProviders(env),
  ];
}

/**
 * Solana needs an RPC, and then a key: the fee payer's for gasless orders (D6), the filler's for
 * operator transactions (D15). One relay sends and follows both kinds of row. The operator's
 * transactions are always bound (they answer NO_OPERATOR_WALLET without an RPC or a key); the relay
 * with an RPC and a fee payer or a filler key; gasless submits and the fee payer's readiness check
 * with an RPC and a fee payer; the signing again of expired operator transactions with a filler
 * key. What is not bound is null under its token.
 */
function svmProviders(env: RelayerEnv): Provider[] {
  const url = env.SOLANA_RPC_URL;
  const feePayer = env.SOLANA_FEE_PAYER_KEY;
  const filler = env.SOLANA_FILLER_KEY;
  const providers: Provider[] = [
    provideValue(SOLANA_OPERATOR_KEYS, { filler, vault: env.SOLANA_VAULT_KEY, treasury: env.SOLANA_TREASURY }),
    SvmOperatorTxs,
  ];
  if (!url) return [...providers, provideValue(SOLANA_RPC, null), provideValue(SVM_RELAY, null), ...noGaslessSvm];
  providers.push(
    { provide: SolanaRpc, useFactory: () => new SolanaRpc(url, env.SOLANA_RPC_TIMEOUT_MS) },
    { provide: SOLANA_RPC, useExisting: SolanaRpc },
  );
  if (!(feePayer || filler)) return [...providers, provideValue(SVM_RELAY, null), ...noGaslessSvm];
  providers.push(
    provideValue(SVM_POLL_MS, env.SOLANA_POLL_MS),
    SvmRelay,
    { provide: SVM_RELAY, useExisting: SvmRelay },
    ...(filler ? [SvmResigner, { provide: SVM_RESIGN, useExisting: SvmResigner }] : [provideValue(SVM_RESIGN, null)]),
  );
  if (!feePayer) return [...providers, ...noGaslessSvm];
  return [
    ...providers,
    provideValue(SOLANA_FEE_PAYER, feePayer),
    SvmSubmit,
    { provide: SVM_SUBMIT, useExisting: SvmSubmit },
    {
      provide: SOLANA_HEALTH,
      inject: [SolanaRpc, Metrics, Clock],
      useFactory: (rpc: SolanaRpc, metrics: Metrics, clock: Clock) =>
        solanaHealth(rpc, feePayer.publicKey.toBase58(), env.SOLANA_FEE_PAYER_FLOOR_LAMPORTS, feePayerBalanceGauges(metrics, clock)),
    },
  ];
}

/** Without an RPC and a fee payer: no gasless Solana submits, no fee payer to check. */
const noGaslessSvm: Provider[] = [provideValue(SVM_SUBMIT, null), provideValue(SOLANA_HEALTH, null)];

import { Inject, Injectable } from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import type { Logger } from '@xchain/telemetry';
import type { Address } from 'viem';
import { RelayChains } from '../chain/relay-chains';
import { LOGGER, bullmqConnection, token } from '@xchain/service-kit';

/** What a lane's worker does with one order: sign, store and broadcast its transaction. */
export type SendOrder = (chain: string, wallet: Address, quoteHash: string) => Promise<void>;

/** The Redis the lanes' queues live in (REDIS_URL), and the prefix of their keys (RELAY_QUEUE_PREFIX). */
export const LANES_REDIS_URL = token<string>('LANES_REDIS_URL');
export const LANES_PREFIX = token<string>('LANES_PREFIX');

const ENQUEUE_TIMEOUT_MS = 1000;
/**
 * How long a lane's active job stays locked to its worker without a renewal (renewed every half of
 * it while the job runs). A replica killed mid-job blocks its lanes for at most about twice this.
 */
const LOCK_MS = 5000;

/**
 * One BullMQ queue per hot wallet per chain, each worked one job at a time across all replicas
 * (global concurrency 1), so a wallet's transactions are signed and sent one batch at a time and
 * their nonces go out in order. A job's id is
 * the order's key (the quote hash; `<kind>-<quote hash>` for an operator transaction): enqueuing
 * an order twice while it waits is a no-op. Jobs only schedule work;
 * the database says what is done, so a lost job costs a delay (the sweeper), never an order.
 */
@Injectable()
export class Lanes {
  private readonly queues = new Map<string, Queue>();
  /** Each lane's queue with its chain and wallet, for the queue metrics. */
  readonly laneQueues: { chain: string; wallet: string; queue: Queue }[] = [];
  private readonly workers: Worker[] = [];
  private readonly turn = new Map<string, number>();

  constructor(
    @Inject(RelayChains) private readonly chains: RelayChains,
    @Inject(LANES_REDIS_URL) private readonly redisUrl: string,
    @Inject(LANES_PREFIX) private readonly prefix: string,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  start(send: SendOrder): void {
    const connection = bullmqConnection(this.redisUrl);
    for (const chain of this.chains.all()) {
      for (const { address } of RelayChains.laneWallets(chain)) {
        const name = laneName(chain.name, address);
        const queue = new Queue(name, {
          connection,
          prefix: this.prefix,
          defaultJobOptions: { attempts: 8, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: true, removeOnFail: true },
        });
        queue.on('error', () => undefined); // Redis outages show in readiness; the sweeper recovers
        // One job of a lane at a time across every replica: the lane is owned by whichever worker
        // holds its active job. A replica killed mid-job holds it until its lock lapses
        // (LOCK_MS); the stalled check then hands the job to a live replica.
        void queue.setGlobalConcurrency(1).catch(() => undefined);
        this.queues.set(name, queue);
        this.laneQueues.push({ chain: chain.name, wallet: address.toLowerCase(), queue });
        const worker = new Worker(name, async (job) => send(chain.name, address, (job.data as { quote_hash: string }).quote_hash), {
          connection,
          prefix: this.prefix,
          concurrency: 1,
          lockDuration: LOCK_MS,
          stalledInterval: LOCK_MS,
          // A job is only a wake-up call (the database says what is done): running it again after a
          // stall never sends anything twice, so a stalled job is never failed for stalling.
          maxStalledCount: Number.MAX_SAFE_INTEGER,
        });
        worker.on('error', () => undefined);
        worker.on('failed', (job, err) =>
          this.log.warn({ lane: name, quote_hash: job?.id, err: err.message }, 'relay job failed; it is retried'),
        );
        this.workers.push(worker);
      }
    }
  }

  /**
   * The wallet of a chain whose lane relays `owner`'s orders: always the same one for an owner (its
   * address modulo the wallet count, the same on every replica), so a user's orders are simulated
   * one behind the other in one lane, never side by side in two that cannot see each other's
   * transactions in flight. Without an owner, the next wallet in turn.
   */
  pickWallet(chain: string, owner?: string): Address {
    const wallets = this.chains.byName(chain)?.wallets ?? [];
    if (wallets.length === 0) throw new Error(`no relayer wallet for ${chain}`);
    if (owner) return wallets[Number(BigInt(owner) % BigInt(wallets.length))]!.address;
    const i = this.turn.get(chain) ?? 0;
    this.turn.set(chain, i + 1);
    return wallets[i % wallets.length]!.address;
  }

  async enqueue(chain: string, wallet: string, quoteHash: string): Promise<void> {
    const queue = this.queues.get(laneName(chain, wallet));
    if (!queue) throw new Error(`no lane for wallet ${wallet} on ${chain}`);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        queue.add('send', { quote_hash: quoteHash }, { jobId: quoteHash }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`Redis did not take the job within ${ENQUEUE_TIMEOUT_MS} ms`)), ENQUEUE_TIMEOUT_MS);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Jobs waiting in every lane, and the age of the oldest at `nowMs` (for readiness and operators). */
  async depth(nowMs: number): Promise<{ waiting: number; oldestMs: number }> {
    let waiting = 0;
    let oldest = nowMs;
    for (const q of this.queues.values()) {
      waiting += await q.getWaitingCount();
      const [first] = await q.getWaiting(0, 0);
      if (first) oldest = Math.min(oldest, first.timestamp);
    }
    return { waiting, oldestMs: nowMs - oldest };
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close().catch(() => undefined)));
    await Promise.all([...this.queues.values()].map((q) => q.close().catch(() => undefined)));
  }
}

const laneName = (chain: string, wallet: string) => `relay-${chain}-${wallet.toLowerCase()}`;

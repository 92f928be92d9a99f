import type { Redis } from 'ioredis';

/** A window counter after a charge: points consumed in the window so far, and milliseconds until it resets. */
export type WindowCount = readonly [consumed: number, ttlMs: number];

/**
 * Charges every key of a batch in one script call. For each key, in order: start the window if
 * there is none (SET NX with its expiry), add the points (INCRBY), read the time left (PTTL; a
 * counter without expiry gets it back). The same steps as rate-limiter-flexible's own script, so
 * counters written by either are compatible, and one key charged twice in a batch is charged
 * twice in order. The reply is flat: consumed and ttl for key 1, then for key 2, and so on.
 */
const CHARGE_WINDOWS = `local out = {}
for i = 1, #KEYS do
  local points = ARGV[2 * i - 1]
  local secs = ARGV[2 * i]
  redis.call('set', KEYS[i], 0, 'EX', secs, 'NX')
  local consumed = redis.call('incrby', KEYS[i], points)
  local ttl = redis.call('pttl', KEYS[i])
  if ttl == -1 then
    redis.call('expire', KEYS[i], secs)
    ttl = 1000 * secs
  end
  out[2 * i - 1] = consumed
  out[2 * i] = ttl
end
return out`;

const COMMAND = 'xchainChargeWindows';

interface Pending {
  key: string;
  points: number;
  windowSecs: number;
  resolve: (count: WindowCount) => void;
  reject: (err: unknown) => void;
}

/**
 * Sends the limit checks of one event-loop turn to Redis as ONE command: a script that charges
 * every key of the batch. Under load the gateway parses many requests per turn, and a command per
 * request would cost a socket write, an ioredis command and a script call in Redis each. The batch goes out at `setImmediate`, in the same turn, so a lone
 * request waits for nothing.
 *
 * One deadline per batch: past `timeoutMs` without an answer every check of the batch fails with a
 * timeout (the caller answers from its in-memory insurance limiter); a late answer is dropped. A
 * command that fails (Redis away, a script error) fails every check of its batch.
 *
 * A single script touches every key of the batch, so the Redis must be one server (or a primary
 * with replicas), not a Redis Cluster, where keys of different slots cannot share a script call.
 * The gateway's client is a plain `Redis`, never a `Cluster`.
 */
export class RedisLimitBatch {
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly redis: Redis,
    private readonly timeoutMs: number,
  ) {
    if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { lua: CHARGE_WINDOWS });
  }

  /** Adds `points` to `key`'s window of `windowSecs` (started now if there is none). */
  charge(key: string, points: number, windowSecs: number): Promise<WindowCount> {
    return new Promise((resolve, reject) => {
      this.queue.push({ key, points, windowSecs, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const p of batch) p.reject(err);
    };
    const timer = setTimeout(() => fail(new Error(`Redis did not answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    const args: (string | number)[] = [batch.length];
    for (const p of batch) args.push(p.key);
    for (const p of batch) args.push(p.points, p.windowSecs);
    let sent: Promise<unknown>;
    try {
      sent = (this.redis as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>)[COMMAND]!(...args);
    } catch (err) {
      fail(err);
      return;
    }
    sent.then((reply) => {
      if (settled) return; // answered from memory already
      if (!Array.isArray(reply) || reply.length !== batch.length * 2) {
        fail(new Error('unexpected reply from the rate-limit script'));
        return;
      }
      settled = true;
      clearTimeout(timer);
      batch.forEach((p, i) => p.resolve([Number(reply[2 * i]), Number(reply[2 * i + 1])]));
    }, fail);
  }
}

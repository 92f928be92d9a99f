import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** An answer as it was sent: what a replay sends again, byte for byte. */
export interface StoredAnswer {
  status: number;
  /** The headers that belong to the answer (content type, Retry-After), lower-case names. */
  headers: Record<string, string>;
  body: Buffer;
}

/** What a claim found: the key is now this request's, another request holds it, or it was answered. */
export type Claim =
  | { kind: 'claimed'; token: string }
  | { kind: 'in_progress'; leaseLeftMs: number }
  | { kind: 'mismatch' }
  | { kind: 'replay'; answer: StoredAnswer };

export interface IdempotencyStoreOptions {
  /** Prefix of the keys (the gateway's RATE_LIMIT_PREFIX + `:idem`, within its Redis user's keys). */
  keyPrefix: string;
  /** How long an unfinished claim holds its key: past it a crashed request no longer blocks a retry. */
  leaseMs: number;
  /** How long an answer is replayed. */
  retainMs: number;
}

/**
 * One string per key: a state letter (`p` in progress, `d` done), the request's fingerprint (64 hex),
 * the claim's token (32 hex), then for a done key the answer (a JSON line of status and headers, a
 * newline, the body bytes). Plain string commands only, so the gateway's Redis user needs no more
 * than GET, SET and DEL on its own prefix.
 */
const CLAIM = `local v = redis.call('get', KEYS[1])
if not v then
  redis.call('set', KEYS[1], 'p' .. ARGV[1] .. ARGV[2], 'PX', ARGV[3])
  return {'claimed'}
end
if string.sub(v, 2, 65) ~= ARGV[1] then return {'mismatch'} end
if string.sub(v, 1, 1) == 'p' then return {'in_progress', redis.call('pttl', KEYS[1])} end
return {'done', string.sub(v, 98)}`;

/** Stores the answer, only while the claim is still this request's (its lease may have run out and been taken). */
const COMPLETE = `local v = redis.call('get', KEYS[1])
if not v or string.sub(v, 1, 1) ~= 'p' or string.sub(v, 66, 97) ~= ARGV[1] then return 0 end
redis.call('set', KEYS[1], 'd' .. string.sub(v, 2, 97) .. ARGV[2], 'PX', ARGV[3])
return 1`;

/** Gives the key up (the request may not have run: a retry must run it), only while the claim is this request's. */
const RELEASE = `local v = redis.call('get', KEYS[1])
if not v or string.sub(v, 1, 1) ~= 'p' or string.sub(v, 66, 97) ~= ARGV[1] then return 0 end
redis.call('del', KEYS[1])
return 1`;

type Script = (key: string, ...args: (string | Buffer | number)[]) => Promise<unknown>;

/**
 * Idempotency keys in Redis, shared by every gateway replica (Stripe's semantics): the first request
 * with a key claims it atomically with a lease, then stores its answer for `retainMs`; a later
 * request with the same key and fingerprint gets that answer, one with another fingerprint is told
 * so, and one arriving while the first runs is told to retry. Callers give the key already scoped
 * (see `idempotencyKeyOf`).
 */
export class IdempotencyStore {
  private readonly claimScript: Script;
  private readonly completeScript: Script;
  private readonly releaseScript: Script;

  constructor(
    redis: Redis,
    private readonly opts: IdempotencyStoreOptions,
  ) {
    if (!opts.keyPrefix) throw new Error('IdempotencyStore: keyPrefix is required');
    for (const [name, ms] of [
      ['leaseMs', opts.leaseMs],
      ['retainMs', opts.retainMs],
    ] as const) {
      if (!(Number.isInteger(ms) && ms > 0)) throw new Error(`IdempotencyStore: ${name} must be a positive integer`);
    }
    const define = (name: string, lua: string): Script => {
      if (!(name in redis)) redis.defineCommand(name, { lua, numberOfKeys: 1 });
      // The Buffer variant ioredis defines with every command: replies keep the body's bytes exact.
      const fn = (redis as unknown as Record<string, Script>)[`${name}Buffer`]!;
      return (key, ...args) => fn.call(redis, key, ...args);
    };
    this.claimScript = define('xchainIdempotencyClaim', CLAIM);
    this.completeScript = define('xchainIdempotencyComplete', COMPLETE);
    this.releaseScript = define('xchainIdempotencyRelease', RELEASE);
  }

  /** Claims `key` for a request with this fingerprint (64 hex), or says what holds it. */
  async claim(key: string, fingerprint: string): Promise<Claim> {
    if (!/^[0-9a-f]{64}$/.test(fingerprint)) throw new Error('IdempotencyStore: a fingerprint is 64 lower-case hex digits');
    const token = randomBytes(16).toString('hex');
    const reply = (await this.claimScript(this.redisKey(key), fingerprint, token, this.opts.leaseMs)) as Buffer[];
    const kind = reply[0]?.toString();
    switch (kind) {
      case 'claimed':
        return { kind, token };
      case 'mismatch':
        return { kind };
      case 'in_progress':
        return { kind, leaseLeftMs: Math.max(0, Number(reply[1])) };
      case 'done':
        return { kind: 'replay', answer: decodeAnswer(reply[1]!) };
      default:
        throw new Error(`unexpected reply from the idempotency script: ${String(kind)}`);
    }
  }

  /** Stores the answer of a claimed request; false when the claim was no longer this request's. */
  async complete(key: string, token: string, answer: StoredAnswer): Promise<boolean> {
    return Number(await this.completeScript(this.redisKey(key), token, encodeAnswer(answer), this.opts.retainMs)) === 1;
  }

  /** Gives a claimed key up without an answer, so the next request with it runs. */
  async release(key: string, token: string): Promise<boolean> {
    return Number(await this.releaseScript(this.redisKey(key), token)) === 1;
  }

  private redisKey(key: string): string {
    return `${this.opts.keyPrefix}:${key}`;
  }
}

function encodeAnswer(a: StoredAnswer): Buffer {
  return Buffer.concat([Buffer.from(`${JSON.stringify({ status: a.status, headers: a.headers })}\n`), a.body]);
}

function decodeAnswer(raw: Buffer): StoredAnswer {
  const nl = raw.indexOf(0x0a);
  if (nl < 0) throw new Error('a stored idempotent answer is malformed');
  const head = JSON.parse(raw.subarray(0, nl).toString('utf8')) as { status: number; headers: Record<string, string> };
  return { status: head.status, headers: head.headers, body: Buffer.from(raw.subarray(nl + 1)) };
}

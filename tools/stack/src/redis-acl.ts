import { createHash } from 'node:crypto';
import { newPassword } from './credentials';

/**
 * Redis ACL users of least privilege (D17): each service that uses Redis has its own user, limited
 * to its own key prefixes and to the commands its client really sends (as MONITOR shows them on a
 * real Redis, BullMQ's scripts included: Redis checks every command and key a script touches too).
 * No user may list keys (KEYS, SCAN), read the server's configuration, or publish.
 */
export type RedisService = 'gateway' | 'gasless-relayer' | 'partner-service';
export const REDIS_SERVICES: readonly RedisService[] = ['gateway', 'gasless-relayer', 'partner-service'];

/** The key prefixes of one deployment (one stack): the services' RATE_LIMIT_PREFIX, RELAY_QUEUE_PREFIX, WEBHOOK_QUEUE_PREFIX. */
export interface RedisPrefixes {
  rateLimit: string;
  relayQueue: string;
  webhookQueue: string;
}

/** What the services use when nothing is set (their env schemas' defaults). */
export const DEFAULT_REDIS_PREFIXES: RedisPrefixes = { rateLimit: 'rl', relayQueue: 'bull', webhookQueue: 'bull' };

/** The partner-service's BullMQ queue (WEBHOOK_QUEUE_NAME) and the relayer's lanes (`relay-<chain>-<wallet>`). */
const WEBHOOK_QUEUE = 'partner-webhooks';
const RELAY_LANES = 'relay-';

/**
 * Connecting: ioredis checks readiness with INFO, names connections with CLIENT SETNAME (BullMQ),
 * selects the URL's database.
 */
const CONNECTION = ['+ping', '+info', '+select', '+quit', '+client|setname', '+client|getname'];

/**
 * BullMQ 6: its commands and those of its Lua scripts (strings, hashes, lists, sets, sorted sets,
 * streams, key expiry), scripts by EVALSHA/EVAL, MULTI for a few reads. Never SORT, KEYS, SCAN or
 * anything else of the dangerous category, nor script or function management.
 */
const BULLMQ = [
  '+@string',
  '+@hash',
  '+@list',
  '+@set',
  '+@sortedset',
  '+@stream',
  '+@transaction',
  '+del',
  '+unlink',
  '+exists',
  '+type',
  '+rename',
  '+expire',
  '+pexpire',
  '+pexpireat',
  '+persist',
  '+pttl',
  '+ttl',
  '+time',
  '+eval',
  '+evalsha',
  '-@dangerous',
];

/**
 * The gateway's rate limits (one script: SET NX EX, INCRBY, PTTL, EXPIRE) and idempotency keys
 * (scripts of GET, SET PX, PTTL, DEL), by EVALSHA, EVAL on a cache miss.
 */
const GATEWAY = ['+eval', '+evalsha', '+set', '+incrby', '+pttl', '+expire', '+get', '+del'];

/** Each service's ACL rules, after `reset` (no keys, no channels, no commands, no password). */
export function redisServiceRules(service: RedisService, prefixes: RedisPrefixes): string[] {
  switch (service) {
    case 'gateway':
      return [`~${prefixes.rateLimit}:*`, ...CONNECTION, ...GATEWAY];
    case 'gasless-relayer':
      return [`~${prefixes.relayQueue}:${RELAY_LANES}*`, ...CONNECTION, ...BULLMQ, '+info'];
    case 'partner-service':
      return [`~${prefixes.webhookQueue}:${WEBHOOK_QUEUE}:*`, ...CONNECTION, ...BULLMQ, '+info'];
  }
}

export interface RedisLogin {
  user: string;
  password: string;
}

/** A service's user: its login and its rules (`redisServiceRules`). */
export interface RedisUser {
  service: RedisService;
  login: RedisLogin;
  rules: string[];
}

/** The rules of a user that logs in with `password`: `reset` first, so nothing of an earlier definition stays. */
export function aclRules(login: RedisLogin, rules: string[]): string[] {
  return ['reset', 'on', `#${sha256(login.password)}`, ...rules];
}

/** The administrator: everything (the test harness and an operator's redis-cli). */
export const adminRules = (login: RedisLogin): string[] => aclRules(login, ['~*', '&*', '+@all']);

/** No one connects without a user and a password. */
export const DEFAULT_USER_RULES = ['reset', 'off'];

export function redisUrl(port: number, login: RedisLogin): string {
  return `redis://${encodeURIComponent(login.user)}:${encodeURIComponent(login.password)}@127.0.0.1:${port}`;
}

export const newRedisLogin = (user: string): RedisLogin => ({ user, password: newPassword() });

/** Redis' ACL stores a password as the hex SHA-256 of it (`#<hash>`), so the password need not be sent. */
function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/** An ACL file line defining `login` with `rules`. */
export const aclFileLine = (login: RedisLogin, rules: string[]): string => `user ${login.user} ${aclRules(login, rules).join(' ')}`;

/** The administrator's user name on every Redis the tools start. */
export const REDIS_ADMIN = 'admin';

/** Defines (or redefines) each user on the Redis at `port`, as its administrator. */
export async function provisionRedisUsers(
  port: number,
  admin: RedisLogin,
  users: readonly { login: RedisLogin; rules: string[] }[],
): Promise<void> {
  const { Redis } = await import('ioredis');
  const c = new Redis({
    host: '127.0.0.1',
    port,
    username: admin.user,
    password: admin.password,
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 5000,
    commandTimeout: 10_000,
  });
  try {
    await c.connect();
    for (const u of users) await c.call('ACL', 'SETUSER', u.login.user, ...aclRules(u.login, u.rules));
  } finally {
    c.disconnect();
  }
}

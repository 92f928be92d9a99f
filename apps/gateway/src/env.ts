import { BaseEnv, envSection, loadEnvOrExit, millis, port } from '@xchain/service-kit';
import { z } from 'zod';

/** The public API: its port, how large a request may be and how long it may take to arrive, proxies, CORS, the browser pages. */
const HttpSection = envSection('HTTP', {
  GATEWAY_PORT: port(8080),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(10 * 1024 * 1024)
    .default(64 * 1024),
  /**
   * The whole request (headers and body) must arrive within this long, or the client gets 408 and
   * the connection is closed: a client sending a byte a second cannot hold a socket for ever. It
   * bounds receiving the request only, never the response (an order event stream stays open).
   */
  HTTP_REQUEST_TIMEOUT_MS: millis(10_000),
  /** The request headers must arrive within this long (at most HTTP_REQUEST_TIMEOUT_MS, which caps it). */
  HTTP_HEADERS_TIMEOUT_MS: millis(5000),
  /**
   * A connection on which nothing is read or written for this long is closed (keep-alive sockets
   * are closed sooner, by Fastify's keep-alive timeout). Must exceed SSE_HEARTBEAT_MS, the longest
   * an open order event stream stays quiet.
   */
  HTTP_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
  /**
   * Peers whose X-Forwarded-For is believed (comma-separated IPs or CIDRs, e.g. the ingress).
   * Empty: the client IP is always the TCP peer.
   */
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((s) =>
      s
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p.length > 0),
    ),
  /**
   * Browser origins allowed to call the API (CORS): `*` for any, or comma-separated origins
   * (`https://app.example.com,https://wallet.example`). Empty: no CORS headers at all.
   */
  CORS_ALLOWED_ORIGINS: z
    .string()
    .default('*')
    .transform((s) =>
      s
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p.length > 0),
    ),
  PUBLIC_BASE_URL: z.string().url().optional(),
  /**
   * The built browser pages (the order explorer at /explorer/, the partner console at /console/):
   * `dist/web` of the build by default. Without them those paths answer 404.
   */
  WEB_DIR: z.string().min(1).optional(),
  /** Rows one CSV export of a partner's orders holds at most; past it the `x-next-cursor` header says where the next one starts. */
  CSV_EXPORT_MAX_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(100_000),
});

/** Requests the gateway makes to the services behind it over NATS, and how long it keeps their lists. */
const BusSection = envSection('Bus', {
  /** Deadline of every NATS request the gateway makes; past it the client gets DEADLINE_EXCEEDED. */
  NATS_REQUEST_TIMEOUT_MS: millis(2000),
  /** Deadline of SubmitGaslessOrder: its checks read the source chain (signature, nonce, balance, simulation) before answering. */
  GASLESS_SUBMIT_TIMEOUT_MS: millis(10_000),
  /**
   * How long this gateway serves ListTokens and GetChains from the lists it keeps before asking
   * the quote-engine again. A quote-engine that reloads a changed registry drops them at once (a
   * registry.v1.events.changed message): this only bounds staleness when that message is missed.
   * 0 asks the quote-engine for every answer.
   */
  REGISTRY_LIST_MAX_AGE_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
});

/** The Redis shared by every gateway replica: rate-limit budgets and Idempotency-Key leases. */
const LimitsSection = envSection('Rate limits and idempotency', {
  /** Rate-limit counters live here, shared by every gateway replica. */
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  /** A Redis call slower than this falls back to the per-process limiter for that request. */
  REDIS_TIMEOUT_MS: millis(250),
  /**
   * Prefix of the gateway's keys in Redis: rate-limit counters, and idempotency keys under
   * `<prefix>:idem:` (separate stacks sharing one Redis use different ones).
   */
  RATE_LIMIT_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9:_-]+$/)
    .default('rl'),
  /** Budget of a client IP without an API key, in points per minute (decisions D10). */
  KEYLESS_POINTS_PER_MIN: z.coerce.number().int().min(1).max(1_000_000).default(120),
  /** Budget of one partner's session-authenticated partner operations, in points per minute. */
  PARTNER_POINTS_PER_MIN: z.coerce.number().int().min(1).max(1_000_000).default(300),
  /**
   * How long a request with an Idempotency-Key holds its key while it runs. Another request with the
   * key meanwhile gets 409 IDEMPOTENCY_REQUEST_IN_PROGRESS; a gateway that dies mid-request blocks
   * the key no longer than this. Must exceed the longest operation deadline (GASLESS_SUBMIT_TIMEOUT_MS).
   */
  IDEMPOTENCY_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
});

/** Checking credentials with the partner-service, and the cache of its answers. */
const AuthSection = envSection('API keys', {
  /** Deadline of credential checks with the partner-service. */
  AUTH_TIMEOUT_MS: millis(1000),
  /** How long an API key lookup is cached: the most a missed key_changed event can keep a disabled key working. */
  KEY_CACHE_TTL_MS: millis(5000),
  KEY_CACHE_MAX_ENTRIES: z.coerce.number().int().min(100).max(10_000_000).default(100_000),
  /**
   * Past the TTL, how much longer a key's last decision is still served while the partner-service
   * does not answer (UNAVAILABLE, timeout, no responders): a partner-service outage does not take
   * every keyed request down. A key_changed event still drops it at once. 0 turns this off.
   */
  KEY_CACHE_STALE_MS: z.coerce.number().int().min(0).max(3_600_000).default(300_000),
});

/** The order event streams (server-sent events): how many, how long, how often a heartbeat. */
const StreamsSection = envSection('Order event streams', {
  /** Order event streams (SSE) one caller (API key, or client IP without one) may hold open at once, per replica. */
  SSE_MAX_STREAMS_PER_CALLER: z.coerce.number().int().min(1).max(10_000).default(20),
  /**
   * Order event streams one gateway replica holds open at once, all callers together; beyond, 503
   * STREAMS_EXHAUSTED. Each holds a socket and a file descriptor for up to SSE_MAX_DURATION_MS.
   */
  SSE_MAX_STREAMS_PER_REPLICA: z.coerce.number().int().min(1).max(100_000).default(2000),
  /** A comment line on every open stream this often, so proxies do not close an idle one. */
  SSE_HEARTBEAT_MS: millis(15_000),
  /** A stream ends after this long; the client reconnects with Last-Event-ID and loses nothing. */
  SSE_MAX_DURATION_MS: z.coerce.number().int().min(1000).max(86_400_000).default(3_600_000),
  /** The reconnection delay sent to clients (`retry:`). */
  SSE_RETRY_MS: millis(2000),
});

export const GatewayEnv = BaseEnv.extend({
  ...HttpSection.shape,
  ...BusSection.shape,
  ...LimitsSection.shape,
  ...AuthSection.shape,
  ...StreamsSection.shape,
}).superRefine((env, ctx) => {
  // A lease shorter than a request could run would let a duplicate run while the first still does.
  const longest = Math.max(env.GASLESS_SUBMIT_TIMEOUT_MS, env.NATS_REQUEST_TIMEOUT_MS);
  if (env.IDEMPOTENCY_LEASE_MS <= longest) {
    ctx.addIssue({ code: 'custom', path: ['IDEMPOTENCY_LEASE_MS'], message: `must exceed the longest operation deadline (${longest} ms)` });
  }
  // An idle timeout shorter than the heartbeat would cut every quiet order event stream.
  if (env.HTTP_IDLE_TIMEOUT_MS <= env.SSE_HEARTBEAT_MS) {
    ctx.addIssue({ code: 'custom', path: ['HTTP_IDLE_TIMEOUT_MS'], message: `must exceed SSE_HEARTBEAT_MS (${env.SSE_HEARTBEAT_MS})` });
  }
});
export type GatewayEnv = z.output<typeof GatewayEnv>;

export function loadGatewayEnv(): GatewayEnv {
  return loadEnvOrExit('gateway', GatewayEnv);
}

import { parseRpcUrls } from '@xchain/chain-watch';
import { BaseEnv, envSection, loadEnvOrExit, millis, parsedText, port } from '@xchain/service-kit';
import { z } from 'zod';
import { parseSecretKey, parseSecretKeyList } from './webhooks/secret-cipher';

/** Anvil's second public development key: fine for a local stack, never for real money. */
export const DEV_VOUCHER_SIGNER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

/** The port of the health probes and metrics. */
const HttpSection = envSection('HTTP', {
  PARTNER_SERVICE_PORT: port(8085),
});

/** The partner-service's database (partners, keys, ledger, vouchers, webhooks). */
const StorageSection = envSection('Storage', {
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/partner_service'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
});

/** The partners' configuration file and the key that signs their referral vouchers. */
const PartnersSection = envSection('Partners and vouchers', {
  /** Tiers, key limits, session lifetime, the funding router and the voucher routers. */
  PARTNERS_CONFIG_FILE: z.string().default('config/partners.json'),
  /** Private key (hex) that signs referral vouchers (EIP-712). Defaults to a public dev key. */
  VOUCHER_SIGNER_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte hex private key')
    .default(DEV_VOUCHER_SIGNER_KEY),
});

/** Requests this service makes to the others over NATS, and how long it keeps their answers. */
const BusSection = envSection('Bus', {
  /** Deadline of requests this service makes to others over NATS (the registry, stored quotes). */
  NATS_REQUEST_TIMEOUT_MS: millis(2000),
  /** Token and chain metadata from the quote-engine are cached this long. */
  REGISTRY_CACHE_MS: millis(60_000),
});

/** The EVM chains whose funding and voucher routers are watched, and how. */
const EvmSection = envSection('EVM chains', {
  /**
   * JSON-RPC endpoints of EVM chains, `chain=url` comma-separated (`base=https://…,ethereum=https://…`).
   * For the funding chain, the funding router's `Funded` events are credited to the partners; for a
   * chain with a voucher router, `VoucherRedeemed` events mark vouchers redeemed. Unset: neither.
   */
  EVM_RPC_URLS: parsedText(parseRpcUrls),
  EVM_RPC_TIMEOUT_MS: millis(5000),
  /** Blocks on top of an event's block before it counts (reorg safety). */
  CHAIN_WATCH_CONFIRMATIONS: z.coerce.number().int().min(0).max(1000).default(10),
  CHAIN_WATCH_POLL_MS: millis(5000),
  /** Largest block range asked in one eth_getLogs (providers cap it). */
  CHAIN_WATCH_MAX_BLOCK_RANGE: z.coerce.number().int().min(1).max(1_000_000).default(2000),
  /** First block read by a watcher that has read nothing yet; default: the confirmed head at its first start. */
  CHAIN_WATCH_START_BLOCK: z.coerce.number().int().min(0).optional(),
});

/** Solana redemptions of vouchers: the endpoint, and how the voucher program is watched. */
const SolanaSection = envSection('Solana', {
  /**
   * Solana JSON-RPC: a recent blockhash when building a Solana redemption, and the voucher
   * program's confirmed transactions, which mark Solana vouchers redeemed. Unset: neither.
   */
  SOLANA_RPC_URL: z.string().url().optional(),
  /** Deadline of each Solana JSON-RPC call. */
  SOLANA_RPC_TIMEOUT_MS: millis(2000),
  /** How often the Solana voucher program's new transactions are read. */
  SOLANA_WATCH_POLL_MS: millis(2000),
  /** First slot read for a voucher program with no saved position; default: the confirmed slot at its first start. */
  SOLANA_WATCH_START_SLOT: z.coerce.number().int().min(0).optional(),
});

/** Deliveries of order updates to the partners' webhooks: their queue, deadlines, retries and the keys of their secrets. */
const WebhooksSection = envSection('Webhooks', {
  /** Redis of the webhook delivery queue (BullMQ). It only schedules attempts: the database says what was delivered. */
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  /** BullMQ key prefix (separate stacks sharing one Redis use different ones). */
  WEBHOOK_QUEUE_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9_-]+$/)
    .default('bull'),
  /** Lets a partner set `http://127.0.0.1…` / `http://localhost…` as its webhook (local stack and tests only). */
  WEBHOOK_ALLOW_HTTP_LOCALHOST: z.stringbool().default(false),
  /** Deadline of one delivery attempt (DNS, connection, TLS and the answer's status line). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(5000),
  /** Delay before the first retry; each retry doubles it, up to WEBHOOK_BACKOFF_MAX_MS. */
  WEBHOOK_BACKOFF_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(10_000),
  WEBHOOK_BACKOFF_MAX_MS: z.coerce.number().int().min(10).max(86_400_000).default(3_600_000),
  /** No attempt is made later than this after the first one; the delivery is then `failed`. */
  WEBHOOK_RETRY_WINDOW_SECS: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 86_400)
    .default(86_400),
  /** Deliveries attempted at once by one partner-service. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(20),
  /** How often pending deliveries whose job was lost (Redis flushed, a crash before enqueueing) are enqueued again. */
  WEBHOOK_SWEEP_MS: millis(30_000),
  /**
   * Key that encrypts webhook secrets at rest (AES-256-GCM): 32 random bytes, hex or base64. Required,
   * with no development default: a published key would encrypt nothing. The local stack makes one.
   */
  WEBHOOK_SECRET_KEY: z
    .string({ error: 'required: 32 random bytes as hex or base64 (e.g. `openssl rand -base64 32`)' })
    .transform((text, ctx) => {
      try {
        return parseSecretKey(text);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
        return z.NEVER;
      }
    }),
  /** Earlier WEBHOOK_SECRET_KEYs, comma-separated: they still decrypt, and the service re-encrypts under the current one. */
  WEBHOOK_SECRET_KEYS_OLD: parsedText(parseSecretKeyList),
});

export const PartnerServiceEnv = BaseEnv.extend({
  ...HttpSection.shape,
  ...StorageSection.shape,
  ...PartnersSection.shape,
  ...BusSection.shape,
  ...EvmSection.shape,
  ...SolanaSection.shape,
  ...WebhooksSection.shape,
});
export type PartnerServiceEnv = z.output<typeof PartnerServiceEnv>;

export const loadPartnerServiceEnv = (): PartnerServiceEnv => loadEnvOrExit('partner-service', PartnerServiceEnv);

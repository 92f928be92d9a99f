import { parseRpcUrls } from '@xchain/chain-watch';
import { BaseEnv, loadEnvOrExit, millis, parsedText, port } from '@xchain/service-kit';
import { z } from 'zod';

/** Anvil's second public development key: fine for a local stack, never for real money. */
export const DEV_VOUCHER_SIGNER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

export const PartnerServiceEnv = BaseEnv.extend({
  PARTNER_SERVICE_PORT: port(8085),
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/partner_service'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /** Tiers, key limits, session lifetime, the funding router and the voucher routers. */
  PARTNERS_CONFIG_FILE: z.string().default('config/partners.json'),
  /** Private key (hex) that signs referral vouchers (EIP-712). Defaults to a public dev key. */
  VOUCHER_SIGNER_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte hex private key')
    .default(DEV_VOUCHER_SIGNER_KEY),
  /** Solana JSON-RPC used only for a recent blockhash when building a Solana redemption. */
  SOLANA_RPC_URL: z.string().url().optional(),
  SOLANA_RPC_TIMEOUT_MS: millis(2000),
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
  /** Deadline of requests this service makes to others over NATS (the registry, stored quotes). */
  NATS_REQUEST_TIMEOUT_MS: millis(2000),
  /** Token and chain metadata from the quote-engine are cached this long. */
  REGISTRY_CACHE_MS: millis(60_000),
});
export type PartnerServiceEnv = z.output<typeof PartnerServiceEnv>;

export const env: PartnerServiceEnv = loadEnvOrExit('partner-service', PartnerServiceEnv);

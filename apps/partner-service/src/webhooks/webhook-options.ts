import { token } from '@xchain/service-kit';
import type { RetryPolicy } from './backoff';
import type { SecretKeys } from './secret-cipher';

/** The webhook settings, from the environment (env.ts). */
export interface WebhookOptions {
  allowHttpLocalhost: boolean;
  timeoutMs: number;
  retry: RetryPolicy;
  redisUrl: string;
  queuePrefix: string;
  concurrency: number;
  sweepMs: number;
  /** Encrypt webhook secrets at rest (current) and decrypt older rows (current and old). */
  secretKeys: SecretKeys;
}

export const WEBHOOK_OPTIONS = token<WebhookOptions>('WEBHOOK_OPTIONS');

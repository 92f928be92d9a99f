import type { RetryPolicy } from './backoff';

/** The webhook settings, from the environment (env.ts). */
export interface WebhookOptions {
  allowHttpLocalhost: boolean;
  timeoutMs: number;
  retry: RetryPolicy;
  redisUrl: string;
  queuePrefix: string;
  concurrency: number;
  sweepMs: number;
}

export const WEBHOOK_OPTIONS = Symbol('WEBHOOK_OPTIONS');

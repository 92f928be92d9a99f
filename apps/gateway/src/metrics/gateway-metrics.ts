import type { Metrics } from '@xchain/service-kit';

/** How the idempotency guard answered a request that carried an Idempotency-Key (idempotent-route.ts). */
export type IdempotencyOutcome = 'executed' | 'replayed' | 'key_reused' | 'in_progress' | 'fail_open' | 'store_failed';

/**
 * The gateway's own metrics (HTTP and bus metrics come from the service-kit and messaging): every
 * rate-limit decision Redis did not make, by how it was made instead. A steady rate means the
 * limits are per replica, not shared (Redis slow or down; see REDIS_TIMEOUT_MS).
 */
export function rateLimitFallbackCounter(metrics: Metrics): (mode: 'insurance' | 'fail_open') => void {
  const fallbacks = metrics.counter({
    name: 'rate_limit_fallback_total',
    help: 'Rate-limit decisions not made by Redis: answered by the per-process limiter (insurance) or let through (fail_open)',
    labelNames: ['mode'],
  });
  // Both series exist from the start, so rate() and the alert see a 0 rather than no data.
  for (const mode of ['insurance', 'fail_open'] as const) fallbacks.inc({ mode }, 0);
  return (mode) => fallbacks.inc({ mode });
}

/**
 * Order event streams open on this replica and its cap (SSE_MAX_STREAMS_PER_REPLICA), read at
 * scrape time: `sse_streams_open / sse_streams_max` near 1 means new streams are about to get 503.
 */
export function sseStreamGauges(metrics: Metrics, hub: { readonly open: number; readonly limits: { perReplica: number } }): void {
  metrics.gauge({
    name: 'sse_streams_open',
    help: 'Order event streams (server-sent events) open on this gateway replica',
    collect() {
      this.set(hub.open);
    },
  });
  metrics
    .gauge({ name: 'sse_streams_max', help: 'Order event streams one gateway replica holds at most (SSE_MAX_STREAMS_PER_REPLICA)' })
    .set(hub.limits.perReplica);
}

/**
 * Requests that carried an Idempotency-Key, by what became of them. `fail_open` (ran without replay
 * protection) and `store_failed` (answer not remembered) count the times Redis did not answer.
 */
export function idempotencyOutcomeCounter(metrics: Metrics): (outcome: IdempotencyOutcome) => void {
  const outcomes = metrics.counter({
    name: 'idempotency_requests_total',
    help: 'Requests with an Idempotency-Key: executed, replayed, refused (key_reused, in_progress), or not protected because Redis did not answer (fail_open, store_failed)',
    labelNames: ['outcome'],
  });
  for (const outcome of ['executed', 'replayed', 'key_reused', 'in_progress', 'fail_open', 'store_failed'] as const)
    outcomes.inc({ outcome }, 0);
  return (outcome) => outcomes.inc({ outcome });
}

import type { Clock, HealthRegistry } from '@xchain/service-kit';
import type { SourceMonitor } from './source-health';

/**
 * One readiness check per configured source (`price_source:<name>`), each detail naming its
 * source's state. The service stays ready while any source is healthy (the others are its
 * fallbacks), so every check fails together exactly when no source is.
 */
export function registerSourceChecks(health: HealthRegistry, monitors: readonly SourceMonitor[], clock: Clock): void {
  for (const monitor of monitors) {
    health.register(`price_source:${monitor.name}`, async () => {
      const nowMs = clock.nowMs();
      const mine = monitor.observe(nowMs);
      const healthy = monitors.filter((m) => m.observe(nowMs).ok).map((m) => m.name);
      const cover = !mine.ok && healthy.length > 0 ? ` (prices still come from ${healthy.join(', ')})` : '';
      return { ok: healthy.length > 0, detail: `${monitor.name}: ${mine.detail ?? (mine.ok ? 'healthy' : 'unhealthy')}${cover}` };
    });
  }
}

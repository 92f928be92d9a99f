import type { Health } from '@xchain/contracts';

export type HealthCheck = () => Promise<{ ok: boolean; detail?: string }>;

const CHECK_TIMEOUT_MS = 2000;

/** Named readiness checks (NATS, database, Redis…), each bounded in time. */
export class HealthRegistry {
  private readonly checks = new Map<string, HealthCheck>();

  constructor(readonly service: string) {}

  register(name: string, check: HealthCheck): void {
    this.checks.set(name, check);
  }

  async readiness(): Promise<Health> {
    const entries = await Promise.all([...this.checks].map(async ([name, check]) => [name, await bounded(check)] as const));
    const checks = Object.fromEntries(entries);
    const ok = entries.every(([, r]) => r.ok);
    return { status: ok ? 'ok' : 'unavailable', service: this.service, checks };
  }

  liveness(): Health {
    return { status: 'ok', service: this.service, checks: {} };
  }
}

async function bounded(check: HealthCheck): Promise<{ ok: boolean; detail?: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      check(),
      new Promise<{ ok: boolean; detail: string }>((resolve) => {
        timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${CHECK_TIMEOUT_MS} ms` }), CHECK_TIMEOUT_MS);
      }),
    ]);
  } catch (err) {
    return { ok: false, detail: err instanceof Error ? err.message : 'failed' };
  } finally {
    clearTimeout(timer);
  }
}

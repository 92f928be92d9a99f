import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, type TestUserSpec, freeStackPorts, startStack, type Stack } from '@xchain/stack';

/** A throwaway stack on free loopback ports for a benchmark run, with its cold-start time. */
export async function startBenchStack(
  testUsers: Record<string, TestUserSpec> = {},
  root?: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ stack: Stack; gatewayUrl: string; serviceUrls: Map<string, string>; logDir: string; coldStartMs: number; stop: () => Promise<void> }> {
  const dataDir = join(ROOT, '.test-data', `bench-${process.pid}-${Date.now()}`);
  const ports = await freeStackPorts();
  const started = Date.now();
  // Benchmarks measure throughput from one IP: the keyless budget is set out of the way.
  const logDir = join(dataDir, 'logs');
  const stack = await startStack({ dataDir, ports, persistent: false, logDir, extraEnv: { LOG_LEVEL: 'warn', KEYLESS_POINTS_PER_MIN: '1000000', ...env }, testUsers, ...(root ? { root } : {}) });
  return {
    stack,
    gatewayUrl: `http://127.0.0.1:${ports.gateway}`,
    // Each service's own HTTP port (probes and /metrics).
    serviceUrls: new Map([...stack.services.keys()].map((name) => [name, `http://127.0.0.1:${ports[name]}`])),
    // Every process's stdout and stderr, one `<name>.log` each.
    logDir,
    coldStartMs: Date.now() - started,
    stop: async () => {
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

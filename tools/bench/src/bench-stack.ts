import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, type TestUserSpec, freeStackPorts, running, startStack, type Stack } from '@xchain/stack';

/** A throwaway stack on free loopback ports for a benchmark run, with its cold-start time. */
export async function startBenchStack(
  testUsers: Record<string, TestUserSpec> = {},
  root?: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{
  stack: Stack;
  gatewayUrl: string;
  serviceUrls: Map<string, string>;
  logDir: string;
  coldStartMs: number;
  stop: () => Promise<void>;
}> {
  const scratch = join(ROOT, '.test-data');
  removeStaleBenchDirs(scratch);
  const dataDir = join(scratch, `bench-${process.pid}-${Date.now()}`);
  const ports = await freeStackPorts();
  const started = Date.now();
  // Benchmarks measure throughput from one IP: the keyless budget is set out of the way.
  const logDir = join(dataDir, 'logs');
  const stack = await startStack({
    dataDir,
    ports,
    persistent: false,
    logDir,
    extraEnv: { LOG_LEVEL: 'warn', KEYLESS_POINTS_PER_MIN: '1000000', ...env },
    testUsers,
    ...(root ? { root } : {}),
  });
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

/**
 * Removes the data folders (`bench-<pid>-<time>`, a PostgreSQL cluster and logs each) of benches
 * whose process is gone: one stopped by a signal ends its stack's processes (tools/stack's
 * watchdog) but cannot remove its folder. A running bench's folder is left alone.
 */
export function removeStaleBenchDirs(scratch: string): string[] {
  let names: string[];
  try {
    names = readdirSync(scratch);
  } catch {
    return []; // no scratch folder yet
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(/^bench-(\d+)-\d+$/.exec(name)?.[1]);
    if (!pid || running(pid)) continue;
    rmSync(join(scratch, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

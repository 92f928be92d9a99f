import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, freePort, startStack, type Stack } from '@xchain/stack';

/** A throwaway stack on free loopback ports for a benchmark run, with its cold-start time. */
export async function startBenchStack(): Promise<{ stack: Stack; gatewayUrl: string; coldStartMs: number; stop: () => Promise<void> }> {
  const dataDir = join(ROOT, '.test-data', `bench-${process.pid}`);
  const p = () => freePort();
  const ports = {
    nats: await p(), natsMonitor: await p(), redis: await p(), postgres: await p(), gateway: await p(),
    'quote-engine': await p(), 'price-oracle': await p(), 'gasless-relayer': await p(), 'partner-service': await p(),
  };
  const started = Date.now();
  const stack = await startStack({ dataDir, ports, persistent: false, logDir: join(dataDir, 'logs'), extraEnv: { LOG_LEVEL: 'warn' } });
  return {
    stack,
    gatewayUrl: `http://127.0.0.1:${ports.gateway}`,
    coldStartMs: Date.now() - started,
    stop: async () => {
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

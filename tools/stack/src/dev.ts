import { join } from 'node:path';
import { ROOT } from './services';
import { startStack } from './stack';

/**
 * `npm start`: the whole system on loopback with its data under .data/ (kept across runs).
 * Ctrl-C stops everything this command started and nothing else.
 */
const num = (name: string, fallback: number) => {
  const raw = process.env[name];
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) {
    console.error(`${name}=${raw} is not a port number`);
    process.exit(2);
  }
  return n;
};

async function main(): Promise<void> {
  const started = Date.now();
  const ports = {
    nats: num('NATS_PORT', 4222),
    natsMonitor: num('NATS_MONITOR_PORT', 8222),
    redis: num('REDIS_PORT', 6379),
    postgres: num('POSTGRES_PORT', 5432),
    gateway: num('GATEWAY_PORT', 8080),
    'quote-engine': num('QUOTE_ENGINE_PORT', 8082),
    'price-oracle': num('PRICE_ORACLE_PORT', 8083),
    'gasless-relayer': num('GASLESS_RELAYER_PORT', 8084),
    'partner-service': num('PARTNER_SERVICE_PORT', 8085),
  };
  const dataDir = process.env['DATA_DIR'] ?? join(ROOT, '.data');
  const stack = await startStack({
    dataDir,
    ports,
    persistent: true,
    logDir: join(dataDir, 'logs'),
    onProgress: (line) => console.log(`[stack] ${line}`),
  });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n[stack] ${signal}: stopping services and servers`);
    await stack.stop();
    console.log('[stack] stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  for (const [name, proc] of stack.services) {
    proc.child.once('exit', (code) => {
      if (!stopping) console.error(`[stack] ${name} exited unexpectedly (code ${code}); see ${join(dataDir, 'logs', `${name}.log`)}`);
    });
  }
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`[stack] ready in ${secs}s; logs in ${join(dataDir, 'logs')}`);
  console.log(`[stack] gateway: http://127.0.0.1:${ports.gateway}/json/v1  (try: curl http://127.0.0.1:${ports.gateway}/json/v1/tokens)`);
  const natsEnv = ports.nats === 4222 ? '' : `NATS_URL=nats://127.0.0.1:${ports.nats} `;
  console.log(`[stack] partners: ${natsEnv}npm run -s partner-admin -- create-partner --email you@example.com  (then issue-session, create-key)`);
  console.log('[stack] Ctrl-C stops everything');
}

main().catch((err: unknown) => {
  console.error(`[stack] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});

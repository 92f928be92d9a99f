import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Devnet, type FundReport, fund, startDevnet } from '@xchain/devnet';
import { connectNats, type NatsConnection } from '@xchain/messaging';
import {
  ROOT,
  SERVICES,
  freeStackPorts,
  startBuiltService,
  startStack,
  testPostgresAdmin,
  testRedisAdmin,
  type RedisLogin,
  type Stack,
  type TestUserSpec,
} from '@xchain/stack';
import { Client } from 'pg';
import type { Address } from 'viem';
import { stackProgressLog, suiteLogDir } from './suite-logs';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';

/**
 * Boots the real, built services for one suite: its own NATS, its own databases in the shared
 * test PostgreSQL (scripts/test.sh starts it), the shared test Redis.
 */
export interface E2eStack {
  stack: Stack;
  gatewayUrl: string;
  /** Every gateway instance's URL (one unless `replicas`). */
  gatewayUrls: string[];
  /** Every port of this stack (servers and services' health ports). */
  ports: Awaited<ReturnType<typeof freeStackPorts>> & { redis: number; postgres: number };
  logDir: string;
  /** Runs the operator tool (as the `operator` NATS user) against this stack; resolves with its exit code and parsed JSON output. */
  admin(...args: string[]): Promise<{ code: number; out: any; err: string }>;
  /**
   * A NATS connection as one of this stack's users (D14): a service's own (to act exactly as that
   * service may, no more) or a test user the suite declared (`testUsers`).
   */
  connectAs(user: string): Promise<NatsConnection>;
  /** URL of one of this stack's service databases as that service's own role (D17): what the service itself may do, no more. */
  databaseUrl(db: string): string;
  /** Rows of one query against a service database (`databaseUrl`), on a connection of its own. */
  query<R extends object>(db: string, sql: string, params?: unknown[]): Promise<R[]>;
  /** The local chains, when asked for (`devnet` option); `fund` gives an address gas and every token. */
  devnet?: Devnet & { fund(address: Address): Promise<FundReport> };
  /** The relayer's wallets (fresh keys per stack, funded on every local chain); empty without a devnet. */
  relayerWallets: Address[];
  /**
   * What a second `npm start` on fresh local chains does (the chains' state lost, the databases
   * kept): every service stopped, each local chain replaced by a fresh one on its port (same chain
   * id, contracts and relayer funding, block 0), then the services started again. Needs a devnet.
   */
  restartOnFreshChains(): Promise<void>;
  stop(): Promise<void>;
}

export interface E2eStackOptions {
  /**
   * Local chains for this stack, started first on free ports (registry chain ids, our contracts and
   * the registry's tokens at the registry's addresses). Blocks come every `blockTimeSecs` (default 1)
   * so confirmations advance without traffic; the services get EVM_RPC_URLS, fresh funded
   * RELAYER_PRIVATE_KEYS, one confirmation and fast chain polling (a suite's extraEnv wins).
   */
  devnet?: { chains: string[]; blockTimeSecs?: number };
  /**
   * NATS users for what no service does yet but a suite must (e.g. publish the `fulfilled` order
   * events of a fulfilment watcher still to come), each with only the subjects it declares.
   */
  testUsers?: Record<string, TestUserSpec>;
  /** A registry to seed instead of config/registry.json (e.g. the suite's own Solana fee payer). */
  registryFile?: string;
  /** Instances of every service (default 1): `stack.instances`, `gatewayUrls`. */
  replicas?: number;
  /** A Redis of the suite's own (one it stops and starts) instead of the shared one, with its administrator. */
  redis?: { port: number; admin: RedisLogin };
  /** NATS as a three-member JetStream cluster, streams at three replicas (`stack.natsCluster` has the members). */
  natsCluster?: boolean;
}

export async function startE2eStack(extraEnv: NodeJS.ProcessEnv = {}, opts: E2eStackOptions = {}): Promise<E2eStack> {
  // The shared test servers and their administrators (test-servers; `npm test` starts them).
  const pgAdmin = testPostgresAdmin();
  const redisAdmin = opts.redis ? { port: opts.redis.port, login: opts.redis.admin } : testRedisAdmin();
  const pg = pgAdmin.port;
  const redis = redisAdmin.port;
  const id = randomBytes(4).toString('hex');
  const dataDir = join(ROOT, '.test-data', `e2e-${id}`);
  // Apart from the data, so they outlive the stack: kept and printed when the suite fails.
  const logDir = suiteLogDir(`stack-${id}`);
  const relayerKeys = opts.devnet ? [generatePrivateKey(), generatePrivateKey()] : [];
  const relayerWallets = relayerKeys.map((k) => privateKeyToAddress(k));
  const devnetOpts = opts.devnet
    ? { chains: opts.devnet.chains, fund: relayerWallets, blockTimeSecs: opts.devnet.blockTimeSecs ?? 1 }
    : undefined;
  const progress = stackProgressLog(logDir);
  if (devnetOpts) progress(`starting the local chains: ${devnetOpts.chains.join(', ')}`);
  let devnet = devnetOpts ? await startDevnet(devnetOpts) : undefined;
  const chainEnv: NodeJS.ProcessEnv = devnet
    ? {
        EVM_RPC_URLS: devnet.rpcUrls,
        RELAYER_PRIVATE_KEYS: relayerKeys.join(','),
        CHAIN_WATCH_CONFIRMATIONS: '1',
        CHAIN_WATCH_POLL_MS: '250',
        // Moves of inventory would change the balances other suites count on: a suite about them turns it on.
        REBALANCE_ENABLED: 'false',
        ...(devnet.attestationUrl ? { CCTP_ATTESTATION_URL: devnet.attestationUrl } : {}),
      }
    : {};
  let stack: Stack;
  // Chosen after the chains started (their ports come from the same pool), and chosen again when one
  // was taken meanwhile by another suite: the stack checks them all before starting anything.
  let ports = { ...(await freeStackPorts()), redis, postgres: pg };
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        stack = await startStack({
          dataDir,
          ports,
          persistent: false,
          external: { postgres: pg, redis, postgresAdminPassword: pgAdmin.password, redisAdmin: redisAdmin.login },
          databasePrefix: `e2e_${id}_`,
          ...(opts.testUsers ? { testUsers: opts.testUsers } : {}),
          ...(opts.registryFile ? { registryFile: opts.registryFile } : {}),
          ...(opts.replicas ? { replicas: opts.replicas } : {}),
          ...(opts.natsCluster ? { natsCluster: true } : {}),
          logDir,
          onProgress: progress,
          // Suites share one Redis and one client IP: each stack counts apart, and the keyless budget is
          // out of the way unless a suite sets it to test it.
          extraEnv: { LOG_LEVEL: 'info', RATE_LIMIT_PREFIX: `rl-${id}`, KEYLESS_POINTS_PER_MIN: '1000000', ...chainEnv, ...extraEnv },
        });
        break;
      } catch (err) {
        if (attempt >= 3 || !(err instanceof Error) || !/is already in use/.test(err.message)) throw err;
        ports = { ...(await freeStackPorts()), redis, postgres: pg };
      }
    }
  } catch (err) {
    await devnet?.stop();
    throw err;
  }
  return {
    stack,
    gatewayUrl: `http://127.0.0.1:${ports.gateway}`,
    gatewayUrls: stack.instancePorts.get('gateway')!.map((p) => `http://127.0.0.1:${p}`),
    ports,
    logDir,
    admin: (...args) => runAdmin({ ...stack.env, ...stack.bus.envFor('operator') }, args),
    connectAs: (user) =>
      connectNats({ url: stack.env['NATS_URL']!, name: `e2e-${user}`, connectTimeoutMs: 5000, ...stack.bus.credentials(user) }),
    databaseUrl: (db) => stack.databaseUrl(db),
    query: (db, sql, params) => queryOnce(stack.databaseUrl(db), sql, params),
    ...(devnet ? { devnet: { ...devnet, fund: (address: Address) => fund(devnet!.rpcUrls, address) } } : {}),
    relayerWallets,
    async restartOnFreshChains() {
      if (!devnet || !devnetOpts) throw new Error('restartOnFreshChains needs a devnet');
      for (const s of [...stack.services.values()].reverse()) await s.stop();
      stack.services.clear();
      const chainPorts = Object.fromEntries([...devnet.chains].map(([name, c]) => [name, Number(new URL(c.rpcUrl).port)]));
      // The CCTP attester keeps its port too, so a URL handed to the services stays good.
      const attesterPort = devnet.attestationUrl ? { attesterPort: Number(new URL(devnet.attestationUrl).port) } : {};
      await devnet.stop();
      devnet = await startDevnet({ ...devnetOpts, ports: chainPorts, ...attesterPort });
      // As startStack starts them: the four behind the gateway, then the gateway, each on its database.
      const start = async (spec: (typeof SERVICES)[number]) => {
        stack.services.set(
          spec.name,
          await startBuiltService({
            spec,
            port: ports[spec.name],
            env: stack.envFor(spec.name),
            logFile: join(logDir, `${spec.name}.log`),
          }),
        );
      };
      await Promise.all(SERVICES.filter((s) => s.name !== 'gateway').map(start));
      await start(SERVICES.find((s) => s.name === 'gateway')!);
    },
    async stop() {
      await stack.stop();
      await devnet?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function runAdmin(env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number; out: any; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'dist/tools/partner-admin/src/main.js'), ...args],
      { env, timeout: 20_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        let out: unknown;
        try {
          out = JSON.parse(code === 0 ? stdout : stderr);
        } catch {
          out = undefined;
        }
        resolve({ code, out, err: stderr });
      },
    );
  });
}

async function queryOnce<R extends object>(url: string, sql: string, params: unknown[] = []): Promise<R[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

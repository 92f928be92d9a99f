import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Managed, launch, waitFor } from './process';
import { startDevPrometheus } from './prometheus-dev';
import { CREDENTIAL_FILES, credentialsDir, restrictSecretFile, writeSecretFile } from './credentials';
import { ROOT } from './services';
import { type Stack, startStack } from './stack';
import { DEFAULT_RESTART_POLICY, type RestartPolicy, type Supervisor, supervise } from './supervisor';

/**
 * `npm start`: the whole system on loopback with its data under .data/ (kept across runs), and,
 * unless EVM_RPC_URLS points elsewhere, local EVM chains (anvil, fresh every run).
 * Ctrl-C stops everything this command started and nothing else.
 */
/** `<DATA_DIR>/devnet.json`, written by tools/devnet's state file (0600). */
const DEVNET_STATE_FILE = 'devnet.json';

const num = (name: string, fallback: number) => {
  const raw = process.env[name];
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) {
    console.error(`${name}=${raw} is not a port number`);
    process.exit(2);
  }
  return n;
};

const whole = (name: string, fallback: number) => {
  const raw = process.env[name];
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`${name}=${raw} is not a whole number of at least 1`);
    process.exit(2);
  }
  return n;
};

async function main(): Promise<void> {
  const started = Date.now();
  const ports = {
    nats: num('NATS_PORT', 4222),
    // NATS monitoring lists every user and subscription and takes no login: only when asked for (D17).
    ...(process.env['NATS_MONITOR_PORT'] ? { natsMonitor: num('NATS_MONITOR_PORT', 8222) } : {}),
    redis: num('REDIS_PORT', 6379),
    postgres: num('POSTGRES_PORT', 5432),
    gateway: num('GATEWAY_PORT', 8080),
    'quote-engine': num('QUOTE_ENGINE_PORT', 8082),
    'price-oracle': num('PRICE_ORACLE_PORT', 8083),
    'gasless-relayer': num('GASLESS_RELAYER_PORT', 8084),
    'partner-service': num('PARTNER_SERVICE_PORT', 8085),
  };
  const restartPolicy: RestartPolicy = {
    ...DEFAULT_RESTART_POLICY,
    firstDelayMs: whole('RESTART_DELAY_MS', DEFAULT_RESTART_POLICY.firstDelayMs),
    maxStartFailures: whole('RESTART_MAX_START_FAILURES', DEFAULT_RESTART_POLICY.maxStartFailures),
  };
  const dataDir = process.env['DATA_DIR'] ?? join(ROOT, '.data');
  // The local chains' state holds keys; a file an older version left readable by others is narrowed
  // now, also when EVM_RPC_URLS means no local chain rewrites it.
  restrictSecretFile(join(dataDir, DEVNET_STATE_FILE));
  const chains = process.env['EVM_RPC_URLS'] ? undefined : await startLocalChains(dataDir);
  let stack: Stack;
  try {
    const registryFile = chains ? devRegistry(dataDir, chains.state.serviceEnv) : undefined;
    stack = await startStack({
      dataDir,
      ports,
      persistent: true,
      logDir: join(dataDir, 'logs'),
      extraEnv: chains?.state.serviceEnv ?? {},
      ...(registryFile ? { registryFile } : {}),
      onProgress: (line) => console.log(`[stack] ${line}`),
    });
  } catch (err) {
    await chains?.proc.stop();
    throw err;
  }
  // PROMETHEUS=1: a real Prometheus scraping every service (after them, so its first scrape finds them up).
  const prometheus = await startDevPrometheus(dataDir, ports).catch(async (err: unknown) => {
    await stack.stop();
    await chains?.proc.stop();
    throw err;
  });
  let stopping = false;
  const supervisors: Supervisor[] = [];
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n[stack] ${signal}: stopping services and servers`);
    for (const s of supervisors) s.stop();
    await prometheus?.proc.stop();
    await stack.stop();
    // After the services, so none of them sees its chain vanish mid-request.
    await chains?.proc.stop();
    console.log('[stack] stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGHUP', () => void shutdown('SIGHUP'));
  // `npm start` runs this under npm's `sh -c`: a SIGTERM to npm ends npm and that shell, not this
  // process, which would go on running every service as an orphan. Whoever started it is gone:
  // stop too.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void shutdown('the process that started npm start exited');
  }, 500).unref();
  // A service that exits is started again with backoff, and left down after failing to start
  // RESTART_MAX_START_FAILURES times in a row (supervisor.ts).
  for (const [name, proc] of stack.services) {
    supervisors.push(
      supervise({
        name,
        running: proc,
        start: () => stack.restart(name),
        policy: restartPolicy,
        logFile: join(dataDir, 'logs', `${name}.log`),
        info: (line) => console.log(line),
        warn: (line) => console.error(line),
      }),
    );
  }
  chains?.proc.child.once('exit', (code) => {
    if (!stopping) console.error(`[stack] the local chains exited unexpectedly (code ${code}); restart npm start`);
  });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`[stack] ready in ${secs}s; logs in ${join(dataDir, 'logs')}`);
  console.log(`[stack] gateway: http://127.0.0.1:${ports.gateway}/json/v1  (try: curl http://127.0.0.1:${ports.gateway}/json/v1/tokens)`);
  console.log(
    `[stack] order explorer: http://127.0.0.1:${ports.gateway}/explorer/  partner console: http://127.0.0.1:${ports.gateway}/console/`,
  );
  // The operator's NATS user for this run (D14): its password changes with every start and is
  // never printed (D17); partner-admin reads it from this 0600 file by itself.
  writeSecretFile(join(credentialsDir(dataDir), CREDENTIAL_FILES.natsOperator), stack.bus.credentials('operator').password);
  const natsEnv = ports.nats === 4222 ? '' : `NATS_URL=nats://127.0.0.1:${ports.nats} `;
  const dataEnv = process.env['DATA_DIR'] ? `DATA_DIR=${dataDir} ` : '';
  console.log(
    `[stack] partners: ${natsEnv}${dataEnv}npm run -s partner-admin -- create-partner --email you@example.com  (then issue-session, create-key)`,
  );
  console.log(
    `[stack] passwords of this run (0600 files, never printed): ${credentialsDir(dataDir)}  (psql: PGPASSFILE=${join(credentialsDir(dataDir), CREDENTIAL_FILES.pgpass)} psql -h 127.0.0.1 -p ${ports.postgres} -U postgres)`,
  );
  if (ports.natsMonitor !== undefined)
    console.log(`[stack] NATS monitoring: http://127.0.0.1:${ports.natsMonitor}  (loopback, no login: any local user can read it)`);
  if (chains) {
    for (const [name, url] of Object.entries(chains.state.rpcUrls))
      console.log(`[stack] ${name} (chain ${chains.state.chainIds[name]}): ${url}`);
    console.log('[stack] fund a wallet on every local chain: npm run -s devnet -- fund <address>');
  } else {
    console.log('[stack] EVM chains: EVM_RPC_URLS (no local chain started)');
  }
  if (prometheus)
    console.log(`[stack] prometheus: ${prometheus.url}  (targets: ${prometheus.url}/targets, alerts: ${prometheus.url}/alerts)`);
  console.log('[stack] Ctrl-C stops everything');
}

/**
 * The registry as the local chains need it: the committed one names the operator's Solana vault
 * and fee payer, whose keys are not on this machine; the local Solana stand-in runs with dev keys
 * (DEV_SOLANA_VAULT, DEV_SOLANA_FEE_PAYER), so the stack seeds a copy naming those instead.
 */
function devRegistry(dataDir: string, serviceEnv: Record<string, string>): string | undefined {
  const vault = serviceEnv['DEV_SOLANA_VAULT'];
  const feePayer = serviceEnv['DEV_SOLANA_FEE_PAYER'];
  if (!vault || !feePayer) return undefined;
  const registry = JSON.parse(readFileSync(join(ROOT, 'config/registry.json'), 'utf8')) as {
    chains: { vm: string; deposit_target: string; fee_payer?: string }[];
  };
  for (const c of registry.chains) {
    if (c.vm !== 'svm') continue;
    c.deposit_target = vault;
    c.fee_payer = feePayer;
  }
  const file = join(dataDir, 'registry.dev.json');
  writeFileSync(file, `${JSON.stringify(registry, null, 2)}\n`);
  return file;
}

/** The part of `<DATA_DIR>/devnet.json` the stack reads (written by tools/devnet's state file). */
interface DevnetState {
  pid: number;
  rpcUrls: Record<string, string>;
  chainIds: Record<string, number>;
  serviceEnv: Record<string, string>;
}

/**
 * Runs `devnet serve` as a program of its own, in its own process group: Ctrl-C then reaches the
 * services but not the chains, which stop after them. (It is a separate program, not an import,
 * because the devnet builds on this package: importing it here would make the two a cycle.)
 * Ready when it has written its state file, which also hands over the services' variables.
 */
async function startLocalChains(dataDir: string): Promise<{ proc: Managed; state: DevnetState }> {
  const stateFile = join(dataDir, DEVNET_STATE_FILE);
  rmSync(stateFile, { force: true });
  const proc = launch('devnet', process.execPath, [join(ROOT, 'dist/tools/devnet/src/main.js'), 'serve', '--until-stdin-closes'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ['pipe', 'inherit', 'inherit'],
    detached: true,
  });
  let state: DevnetState | undefined;
  try {
    await waitFor(
      'the local chains (devnet)',
      async () => {
        state = JSON.parse(readFileSync(stateFile, 'utf8')) as DevnetState;
        return state.pid === proc.child.pid;
      },
      180_000,
      proc,
    );
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return { proc, state: state! };
}

main().catch((err: unknown) => {
  console.error(`[stack] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});

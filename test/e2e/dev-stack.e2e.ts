import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT, freePort, freeStackPorts, until } from '@xchain/stack';
import { expectApiError, gatewayClient } from '../support/http';

jest.setTimeout(300_000);

/** The pids of `parent`'s children whose command line holds `needle` (Linux /proc). */
function childrenRunning(parent: number, needle: string): number[] {
  const pids: number[] = [];
  for (const task of readdirSync(`/proc/${parent}/task`)) {
    const file = `/proc/${parent}/task/${task}/children`;
    if (!existsSync(file)) continue;
    for (const pid of readFileSync(file, 'utf8').split(/\s+/).filter(Boolean).map(Number)) {
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle)) pids.push(pid);
      } catch {
        // it ended meanwhile
      }
    }
  }
  return pids;
}

/** Takes a loopback port as soon as it is free (a crashed service's, a moment after it died). */
async function holdPort(port: number): Promise<Server> {
  return until(
    `port ${port} free to take`,
    () =>
      new Promise<Server | undefined>((resolve) => {
        const server = createServer();
        server.once('error', () => resolve(undefined));
        server.listen(port, '127.0.0.1', () => resolve(server));
      }),
    { timeoutMs: 5_000, everyMs: 5 },
  );
}

/**
 * `npm start` itself (dist/tools/stack/src/dev.js, what scripts/dev.sh runs after the build) on free
 * ports, with one local chain: a service killed with SIGKILL is started again and serves through
 * the gateway; one that cannot start is given up after RESTART_MAX_START_FAILURES tries, with why.
 */
describe('npm start keeps its services running', () => {
  const dataDir = join(ROOT, '.test-data', `dev-stack-${randomBytes(4).toString('hex')}`);
  let dev: ChildProcess;
  let out = '';
  let ports: Awaited<ReturnType<typeof freeStackPorts>>;
  const said = (text: string) => out.includes(text);

  beforeAll(async () => {
    ports = await freeStackPorts();
    mkdirSync(dataDir, { recursive: true });
    // PostgreSQL runs as its own user and must reach its folder under this one.
    chmodSync(dataDir, 0o755);
    // What an older version left: the local chains' state (keys included) readable by everyone.
    writeFileSync(join(dataDir, 'devnet.json'), '{}', { mode: 0o644 });
    chmodSync(join(dataDir, 'devnet.json'), 0o644);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      NATS_PORT: String(ports.nats),
      REDIS_PORT: String(ports.redis),
      POSTGRES_PORT: String(ports.postgres),
      GATEWAY_PORT: String(ports.gateway),
      QUOTE_ENGINE_PORT: String(ports['quote-engine']),
      PRICE_ORACLE_PORT: String(ports['price-oracle']),
      GASLESS_RELAYER_PORT: String(ports['gasless-relayer']),
      PARTNER_SERVICE_PORT: String(ports['partner-service']),
      DEVNET_CHAINS: 'base',
      ANVIL_BASE_PORT: String(await freePort()),
      SOLANA_STANDIN_PORT: String(await freePort()),
      RESTART_DELAY_MS: '1000',
      RESTART_MAX_START_FAILURES: '3',
    };
    for (const name of ['EVM_RPC_URLS', 'SOLANA_RPC_URL', 'PROMETHEUS', 'NATS_MONITOR_PORT']) delete env[name];
    dev = spawn(process.execPath, [join(ROOT, 'dist/tools/stack/src/dev.js')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    dev.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    dev.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await until(
      'npm start printed the gateway URL',
      () => {
        if (dev.exitCode !== null) throw new Error(`npm start exited (code ${dev.exitCode}):\n${out}`);
        return said('[stack] gateway: http://');
      },
      { timeoutMs: 240_000, everyMs: 200, failOnError: true },
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${out}`);
    });
  });

  afterAll(async () => {
    if (dev && dev.exitCode === null) {
      const exited = new Promise((resolve) => dev.once('exit', resolve));
      dev.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves the local chains state (keys) readable by its owner only, also one an older version wrote 0644', () => {
    const state = join(dataDir, 'devnet.json');
    expect(statSync(state).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(state, 'utf8')).serviceEnv).toHaveProperty('RELAYER_PRIVATE_KEYS');
  });

  it('starts a service killed with SIGKILL again, says so, and it serves through the gateway again', async () => {
    const api = gatewayClient(`http://127.0.0.1:${ports.gateway}`);
    const missing = `0x${'ab'.repeat(32)}`;
    // Answered by the quote-engine: 404 while it is up.
    await expectApiError(api.getOrder({ quote_hash: missing }), { http: 404, reason: 'QUOTE_NOT_FOUND' });
    const [pid] = childrenRunning(dev.pid!, 'dist/apps/quote-engine/src/main.js');
    expect(pid).toBeDefined();
    process.kill(pid!, 'SIGKILL');
    await until('the restart announced', () => said('[stack] quote-engine was killed (SIGKILL)'), { timeoutMs: 10_000 });
    expect(out).toContain('[stack] quote-engine was killed (SIGKILL), see ');
    expect(out).toContain('restarting it in 1 s (restart 1 in a row)');
    const restarted = await until(
      'the quote-engine ready again',
      () => /\[stack\] quote-engine restarted and ready \(pid (\d+)\)/.exec(out)?.[1],
      {
        timeoutMs: 90_000,
        everyMs: 200,
      },
    );
    expect(Number(restarted)).not.toBe(pid);
    expect(childrenRunning(dev.pid!, 'dist/apps/quote-engine/src/main.js')).toEqual([Number(restarted)]);
    await until(
      'GetOrder served by the restarted quote-engine',
      async () => (await api.getOrder({ quote_hash: missing }).catch((e: { httpStatus?: number }) => e.httpStatus)) === 404,
      { timeoutMs: 30_000, everyMs: 200 },
    );
    expect(dev.exitCode).toBeNull();
  });

  it('gives a service that cannot start up after RESTART_MAX_START_FAILURES tries in a row, with the reason, and keeps the rest running', async () => {
    const [pid] = childrenRunning(dev.pid!, 'dist/apps/partner-service/src/main.js');
    expect(pid).toBeDefined();
    process.kill(pid!, 'SIGKILL');
    // Its port taken meanwhile (by this test): every start fails.
    const squatter = await holdPort(ports['partner-service']);
    try {
      await until('the partner-service given up', () => said('[stack] partner-service failed to start 3 times in a row'), {
        timeoutMs: 60_000,
        everyMs: 200,
      });
      const lines = out.split('\n').filter((l) => l.startsWith('[stack] partner-service'));
      expect(lines.slice(-4)).toEqual([
        expect.stringMatching(
          /^\[stack\] partner-service was killed \(SIGKILL\), see .*partner-service\.log; restarting it in 1 s \(restart 1 in a row\)$/,
        ),
        `[stack] partner-service did not start (port ${ports['partner-service']} for partner-service is already in use; set PARTNER_SERVICE_PORT to a free port); restarting it in 2 s (restart 2 in a row)`,
        `[stack] partner-service did not start (port ${ports['partner-service']} for partner-service is already in use; set PARTNER_SERVICE_PORT to a free port); restarting it in 4 s (restart 3 in a row)`,
        `[stack] partner-service failed to start 3 times in a row; not restarting it again (fix the cause, then restart npm start). The last attempt: port ${ports['partner-service']} for partner-service is already in use; set PARTNER_SERVICE_PORT to a free port`,
      ]);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
    // The rest of the system still serves, and npm start still runs.
    expect((await gatewayClient(`http://127.0.0.1:${ports.gateway}`).getChains()).chains.length).toBeGreaterThan(0);
    expect(dev.exitCode).toBeNull();
    expect(childrenRunning(dev.pid!, 'dist/apps/partner-service/src/main.js')).toEqual([]);
  });
});

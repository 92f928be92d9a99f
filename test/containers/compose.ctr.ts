import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { XchainClient } from '@xchain/client';
import { until, type UntilOptions } from '@xchain/stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { crossChainOf, gatewayClient } from '../support/http';
import { EVM_REFUND, EVM_USER, USDC_ETH_TO_ARB } from '../support/registry-fixture';
import { SseClient } from '../support/sse';

/**
 * The whole system as `npm run compose:up` runs it (docker/compose.yaml and compose.devnet.yaml,
 * docker-compose against podman's service, every part a container from our images), reached as a
 * user would: through the gateway's published port and the chains' published ports; the operator's
 * partner-admin runs in a container on compose's network. docker/podman/check.sh starts it and sets
 * XCHAIN_GATEWAY_URL and XCHAIN_CONTAINERS_DIR.
 */
jest.setTimeout(300_000);

const APPS = { gateway: 8080, 'quote-engine': 8082, 'price-oracle': 8083, 'gasless-relayer': 8084, 'partner-service': 8085 } as const;
type App = keyof typeof APPS;
const gatewayUrl = process.env['XCHAIN_GATEWAY_URL'] ?? '';
const composeFile = (name: string) =>
  parse(readFileSync(join(__dirname, '../../docker', name), 'utf8'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string> }>;
  };
const COMPOSE = composeFile('compose.yaml');
const DEVNET = composeFile('compose.devnet.yaml');
const podman = (...args: string[]): string => execFileSync('podman', args, { encoding: 'utf8' }).trim();
/** The compose container of a service (docker-compose labels it). */
const container = (service: string): string => {
  const ids = podman(
    'ps',
    '-q',
    '--filter',
    'label=com.docker.compose.project=xchain',
    '--filter',
    `label=com.docker.compose.service=${service}`,
  )
    .split('\n')
    .filter(Boolean);
  if (ids.length !== 1) throw new Error(`expected one running ${service} container, found ${ids.length}`);
  return ids[0] ?? '';
};
const inspect = (id: string): any => (JSON.parse(podman('inspect', id)) as any[])[0];
const ipOf = (id: string): string =>
  Object.values(inspect(id).NetworkSettings.Networks as Record<string, { IPAddress: string }>)[0]?.IPAddress ?? '';
const hostPort = (service: string, port: number): number => Number(/:(\d+)$/.exec(podman('port', container(service), String(port)))?.[1]);

const POLL: UntilOptions = { timeoutMs: 60_000, everyMs: 500 };

/**
 * partner-admin as the operator runs it next to the system: from the chains' image (it holds the
 * whole build) on compose's network, as the `operator` NATS user with the password compose.sh made.
 */
function admin(...args: string[]): Promise<any> {
  const env = readFileSync(join(process.env['XCHAIN_CONTAINERS_DIR'] ?? '', 'compose.env'), 'utf8');
  const password = /^NATS_PASSWORD_OPERATOR=(.+)$/m.exec(env)?.[1] ?? '';
  const run = [
    'run',
    '--rm',
    '--network',
    'xchain_default',
    '--entrypoint',
    'node',
    '-e',
    'NATS_URL=nats://nats:4222',
    '-e',
    'NATS_PASSWORD',
  ];
  return new Promise((resolve, reject) =>
    execFile(
      'podman',
      [...run, 'localhost/xchain/devnet:local', 'dist/tools/partner-admin/src/main.js', ...args],
      { env: { ...process.env, NATS_PASSWORD: password }, timeout: 60_000 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`partner-admin ${args[0]}: ${stderr || err.message}`)) : resolve(JSON.parse(stdout)),
    ),
  );
}

/**
 * A partner's webhook endpoint inside the partner-service's container (its loopback: the only
 * plain-http address the dev settings let a webhook use), started with `podman exec`; it prints
 * each delivery as a JSON line, and exits when its stdin closes (a killed exec client leaves the
 * process running in the container otherwise).
 */
function webhookSink(port: number): { proc: ChildProcess; got: { headers: Record<string, string>; body: string }[] } {
  const script = `require('http').createServer((q, s) => { let b = ''; q.on('data', (c) => (b += c)); q.on('end', () => { console.log(JSON.stringify({ headers: q.headers, body: b })); s.end(); }); }).listen(${port}, '127.0.0.1', () => console.log('{"ready":true}')); process.stdin.on('end', () => process.exit(0)).resume();`;
  const proc = spawn('podman', ['exec', '-i', container('partner-service'), 'node', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const got: { headers: Record<string, string>; body: string }[] = [];
  let buf = '';
  proc.stdout?.on('data', (c: Buffer) => {
    buf += c.toString('utf8');
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = JSON.parse(buf.slice(0, i)) as { ready?: boolean; headers: Record<string, string>; body: string };
      buf = buf.slice(i + 1);
      if (!line.ready) got.push(line);
    }
  });
  return { proc, got };
}

describe('the system in containers (npm run compose:up)', () => {
  let api: XchainClient;

  beforeAll(() => {
    if (!gatewayUrl || !process.env['XCHAIN_CONTAINERS_DIR'])
      throw new Error('run through docker/podman/check.sh (npm run release:check), which starts the system');
    api = gatewayClient(gatewayUrl);
  });

  describe.each(Object.keys(APPS) as App[])('%s', (app) => {
    it('runs from its image as that image’s non-root user, on a read-only root filesystem, without capabilities, with compose’s environment only', () => {
      const c = inspect(container(app));
      expect(c.ImageName).toBe(`localhost/xchain/${app}:local`);
      expect(c.Config.User).toBe(podman('image', 'inspect', '--format', '{{.Config.User}}', c.ImageName));
      expect(c.Config.User).not.toMatch(/^0(:|$)|^root/);
      expect(c.HostConfig.ReadonlyRootfs).toBe(true);
      expect(c.EffectiveCaps ?? []).toEqual([]);
      // Its environment: the image's, what compose sets for it and what every container gets, nothing else.
      const declared = [COMPOSE, DEVNET].flatMap((f) => Object.keys(f.services[app]?.environment ?? {}));
      const image = (inspect(c.ImageName) as { Config: { Env: string[] } }).Config.Env.map((e) => e.split('=')[0]);
      const names = (c.Config.Env as string[]).map((e) => e.split('=')[0]);
      const allowed = new Set([...declared, ...image, 'HOSTNAME', 'HOME', 'TERM', 'container']);
      expect(names.filter((n) => !allowed.has(n ?? ''))).toEqual([]);
      expect(declared.filter((n) => !names.includes(n))).toEqual([]);
    });

    it('answers /readyz and serves /metrics, and its image health check passes', async () => {
      const id = container(app);
      const base = `http://${ipOf(id)}:${APPS[app]}`;
      await until(`${app} /readyz`, async () => (await fetch(`${base}/readyz`)).status === 200, POLL);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(/^# (HELP|TYPE) /m);
      expect(metrics).toContain('process_cpu');
      expect(podman('healthcheck', 'run', id)).toBe('');
    });
  });

  it('serves the seeded tokens and a stored quote through the published gateway port', async () => {
    const tokens = await api.listTokens();
    expect(tokens.tokens.length).toBeGreaterThan(0);
    const q = crossChainOf(await api.getQuote({ ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND }));
    expect(q.quote_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await api.getOrder({ quote_hash: q.quote_hash })).status).toBe('quoted');
  });

  describe('a partner’s gasless order on the containers’ chains', () => {
    let g: GaslessClient;
    let sink: ReturnType<typeof webhookSink>;
    const sinkPort = 20_000 + Math.floor(Math.random() * 10_000);

    beforeAll(() => {
      g = new GaslessClient(
        gatewayUrl,
        new Map((['ethereum', 'base', 'arbitrum'] as const).map((c, i) => [c, `http://127.0.0.1:${hostPort('chains', 8545 + i)}`])),
      );
      sink = webhookSink(sinkPort);
    });
    afterAll(() => sink?.proc.stdin?.end());

    it('is relayed, deposited and filled; its SSE stream and the partner’s webhook see it fulfilled', async () => {
      const email = `ops-${Date.now()}@example.com`;
      await admin('create-partner', '--email', email);
      const { token } = (await admin('issue-session', '--email', email)) as { token: string };
      const partner = gatewayClient(gatewayUrl, { sessionToken: token });
      const key = (await partner.createPartnerKey({ name: 'containers' })).secret;
      const { secret } = (await partner.setPartnerWebhook({ url: `http://127.0.0.1:${sinkPort}/hook` })) as { secret: string };

      const user = g.newUser();
      await g.mint('base', LOCAL_TOKENS.base.USDC, user.address, 500_000_000n);
      const q = await g.gaslessQuote('base', LOCAL_TOKENS.base.USDC, user.address, '250000000', { 'x-api-key': key });
      const sse = await SseClient.open(`${gatewayUrl}/json/v1/orders/${q['quote_hash']}/events`);
      expect(sse.status).toBe(200);
      const r = await g.submit(await g.evmBody(user, q, true), { 'x-api-key': key });
      expect(r).toMatchObject({ status: 200, body: { quote_hash: q['quote_hash'], status: 'queued' } });

      const view = await g.waitOrder(q['quote_hash'], (v) => v.status === 'fulfilled', 180_000);
      expect(view.gasless).toMatchObject({ status: 'confirmed' });
      expect(view.deposit).toMatchObject({ chain: 'base', tx_hash: view.gasless.tx_hash });
      expect(await g.balanceOf('base', LOCAL_TOKENS.base.USDC, user.address)).toBe(250_000_000n);
      await sse.next((e) => e.event === 'order' && JSON.parse(e.data).status === 'fulfilled', 0, 30_000);
      sse.close();

      const delivered = await until(
        'the fulfilled webhook',
        async () => sink.got.find((d) => JSON.parse(d.body).data?.status === 'fulfilled'),
        POLL,
      );
      const sig = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(delivered.headers['x-xchain-signature'] ?? '');
      expect(sig?.[2]).toBe(createHmac('sha256', secret).update(`${sig?.[1]}.${delivered.body}`).digest('hex'));
      expect(JSON.parse(delivered.body)).toMatchObject({
        type: 'order.updated',
        data: { quote_hash: q['quote_hash'], status: 'fulfilled' },
      });
    });

    it('fills an order whose relayer crashed right after taking it: the restarted relayer and its queue finish the work', async () => {
      const user = g.newUser();
      await g.mint('base', LOCAL_TOKENS.base.USDC, user.address, 100_000_000n);
      const q = await g.gaslessQuote('base', LOCAL_TOKENS.base.USDC, user.address, '100000000');
      const id = container('gasless-relayer');
      const restarts = Number(podman('inspect', '--format', '{{.RestartCount}}', id));
      const r = await g.submit(await g.evmBody(user, q, true));
      expect(r).toMatchObject({ status: 200, body: { status: 'queued' } });
      process.kill(Number(podman('inspect', '--format', '{{.State.Pid}}', id)), 'SIGKILL');
      await until('the relayer restarted', async () => Number(inspect(id).RestartCount) > restarts && inspect(id).State.Running, POLL);
      const view = await g.waitOrder(q['quote_hash'], (v) => v.status === 'fulfilled', 180_000);
      expect(view.gasless).toMatchObject({ status: 'confirmed' });
      expect(await g.balanceOf('base', LOCAL_TOKENS.base.USDC, user.address)).toBe(0n);
    });
  });

  it('restarts a killed app container by its restart policy, and nothing it stored is lost', async () => {
    const q = crossChainOf(await api.getQuote({ ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND }));
    const id = container('quote-engine');
    const restarts = Number(podman('inspect', '--format', '{{.RestartCount}}', id));
    const pid = podman('inspect', '--format', '{{.State.Pid}}', id);
    // Its process dies as in a crash or an OOM kill. (`podman kill` would not do: podman records
    // that as stopped by the user, which no restart policy overrides.)
    process.kill(Number(pid), 'SIGKILL');
    await until(
      'the quote-engine restarted',
      async () => {
        const s = inspect(id).State;
        return s.Running && String(s.Pid) !== pid && Number(inspect(id).RestartCount) > restarts;
      },
      POLL,
    );
    await until(
      'the quote-engine ready again',
      async () => (await fetch(`http://${ipOf(id)}:${APPS['quote-engine']}/readyz`)).status === 200,
      POLL,
    );
    // The stored quote is still there, and a new one is made and stored.
    expect((await api.getOrder({ quote_hash: q.quote_hash })).quote_hash).toBe(q.quote_hash);
    const again = crossChainOf(await api.getQuote({ ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND }));
    expect((await api.getOrder({ quote_hash: again.quote_hash })).status).toBe('quoted');
  });
});

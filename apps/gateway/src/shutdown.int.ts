import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListChainsRpc } from '@xchain/contracts';
import { RpcServer, connectNats, type NatsConnection } from '@xchain/messaging';
import { type Managed, SERVICES, entryOf, freePort, newBus, startBuiltService, startNats, testRedisAdmin } from '@xchain/stack';
import pino from 'pino';

jest.setTimeout(60_000);

/**
 * SHUTDOWN_GRACE_MS on a real gateway process (the build's dist/apps/gateway, started as the stack
 * starts it; its bootstrap is every service's, libs/service-kit's startService). The quote-engine
 * is a stand-in on the bus whose ListChains answers only when the test lets it, so a
 * `GET /json/v1/chains` stays in flight for as long as the test wants.
 */
const GRACE_MS = 3000;
const bus = newBus();
const GATEWAY = SERVICES.find((s) => s.name === 'gateway')!;

describe('a gateway process stopped by SIGTERM (SHUTDOWN_GRACE_MS)', () => {
  let dir: string;
  let nats: Managed;
  let natsUrl: string;
  let nc: NatsConnection;
  let quoteEngine: RpcServer;
  /** ListChains requests the stand-in has received, each with the function that answers it. */
  const asked: (() => void)[] = [];
  let onAsked: (() => void) | undefined;
  /** The gateways started, stopped at the end whatever a test left running. */
  const gateways: Managed[] = [];

  beforeAll(async () => {
    if (!existsSync(entryOf('gateway'))) throw new Error('build first (npm run build): this suite runs dist/apps/gateway');
    dir = mkdtempSync(join(tmpdir(), 'gateway-shutdown-'));
    const port = await freePort();
    nats = await startNats(dir, port, undefined, join(dir, 'nats.log'), bus.users);
    natsUrl = `nats://127.0.0.1:${port}`;
    nc = await connectNats({ url: natsUrl, name: 'quote-engine', connectTimeoutMs: 5000, ...bus.credentials('quote-engine') });
    quoteEngine = new RpcServer(nc, 'quote-engine', pino({ level: 'silent' }));
    quoteEngine.handle(
      ListChainsRpc,
      () =>
        new Promise((resolve) => {
          asked.push(() => resolve({ chains: [] }));
          onAsked?.();
        }),
    );
  });

  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    for (const answer of asked) answer();
    await quoteEngine?.close();
    await nc?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function startGateway(name: string): Promise<{ proc: Managed; url: string; logFile: string }> {
    const port = await freePort();
    const logFile = join(dir, `${name}.log`);
    const proc = await startBuiltService({
      spec: GATEWAY,
      port,
      logFile,
      env: {
        PATH: process.env['PATH'],
        LOG_LEVEL: 'info',
        NATS_URL: natsUrl,
        ...bus.envFor('gateway'),
        REDIS_URL: testRedisAdmin().url,
        RATE_LIMIT_PREFIX: `shutdown-${process.pid}`,
        // Long enough that only the grace can end a request the stand-in never answers.
        NATS_REQUEST_TIMEOUT_MS: '30000',
        SHUTDOWN_GRACE_MS: String(GRACE_MS),
      },
    });
    gateways.push(proc);
    return { proc, url: `http://127.0.0.1:${port}`, logFile };
  }

  /** Sends a request and resolves once the stand-in quote-engine holds it (it is in flight), with its response to come. */
  async function inFlight(url: string): Promise<{ response: Promise<Response> }> {
    const held = new Promise<void>((resolve) => (onAsked = resolve));
    const response = fetch(`${url}/json/v1/chains`, { signal: AbortSignal.timeout(30_000) });
    response.catch(() => undefined);
    await held;
    onAsked = undefined;
    return { response };
  }

  const exited = (proc: Managed) =>
    new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null)
        resolve({ code: proc.child.exitCode, signal: proc.child.signalCode, at: Date.now() });
      proc.child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() }));
    });

  it('answers the request in flight, takes no new one, and ends well within the grace', async () => {
    const { proc, url } = await startGateway('answered');
    const { response } = await inFlight(url);
    const exit = exited(proc);
    const stoppedAt = Date.now();
    proc.child.kill('SIGTERM');

    // No new work: refused (the listener is closed) or answered 503 while the server closes.
    await new Promise((r) => setTimeout(r, 300));
    const late = await fetch(`${url}/json/v1/chains`, { signal: AbortSignal.timeout(5000) }).then(
      (r) => r.status,
      () => 'refused',
    );
    expect([503, 'refused']).toContain(late);
    expect(asked).toHaveLength(1);

    // The request in flight is still answered, in full, after the signal.
    asked[0]!();
    const res = await response;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ chains: [] });

    // Then the process ends by itself, as a SIGTERM'd process does, long before the grace.
    const { code, signal, at } = await exit;
    expect(signal === 'SIGTERM' || code === 0).toBe(true);
    expect(at - stoppedAt).toBeLessThan(GRACE_MS);
  });

  it('exits with code 1 once the grace runs out while a request is still in flight', async () => {
    const { proc, url, logFile } = await startGateway('abandoned');
    const { response } = await inFlight(url);
    const exit = exited(proc);
    const stoppedAt = Date.now();
    proc.child.kill('SIGTERM');

    const { code, at } = await exit;
    expect(code).toBe(1);
    expect(at - stoppedAt).toBeGreaterThanOrEqual(GRACE_MS - 50);
    expect(at - stoppedAt).toBeLessThan(GRACE_MS + 2000);
    // The unanswered request's connection ends with the process.
    await expect(response).rejects.toThrow();
    expect(readFileSync(logFile, 'utf8')).toMatch(/shutdown did not finish within SHUTDOWN_GRACE_MS/);
  });
});

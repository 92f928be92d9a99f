import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Subscription } from '@nats-io/transport-node';
import { KEY_CHANGED_SUBJECT, KeyChangedEventSchema } from '@xchain/contracts';
import { ROOT, SERVICES, startBuiltService, until, untilHolds } from '@xchain/stack';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { EVM_REFUND, EVM_USER, USDC_ETH_TO_ARB } from '../support/registry-fixture';

jest.setTimeout(180_000);

const TTL_MS = 1000;
const STALE_MS = 10_000;

/**
 * kill -9 of the partner-service: keys the gateway looked up before keep their last decision for
 * KEY_CACHE_STALE_MS past KEY_CACHE_TTL_MS (instead of every keyed request failing once the TTL
 * passes), then answer 503; a key disabled before the kill stays refused (its key_changed event
 * removed the cached allow); a key never seen answers 503; after a restart keys work again.
 */
describe('keyed requests through a partner-service outage', () => {
  let e2e: E2eStack;
  const body = { ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND };

  const quote = async (apiKey: string) => {
    const res = await fetch(`${e2e.gatewayUrl}/json/v1/quote`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const json = (await res.json()) as any;
    if (res.status !== 200 && res.status !== 503 && res.status !== 401)
      throw new Error(`unexpected ${res.status}: ${JSON.stringify(json)}`);
    return { status: res.status, json, retryAfter: res.headers.get('retry-after') };
  };
  /** The first key_changed event of `sub`, or a failure after 15 s. */
  const waitForEvent = async (sub: Subscription) => {
    const timer = setTimeout(() => sub.unsubscribe(), 15_000);
    try {
      for await (const m of sub) return KeyChangedEventSchema.parse(m.json());
    } finally {
      clearTimeout(timer);
    }
    throw new Error('no key_changed event within 15 s');
  };
  const reason = (json: any) => json?.details?.find((d: any) => d.reason)?.reason as string | undefined;

  beforeAll(async () => {
    e2e = await startE2eStack(
      {
        QUOTING_CONFIG_FILE: join(ROOT, 'test/fixtures/quoting.e2e.json'),
        PRICE_WALK_SEED: '7',
        PRICE_POLL_MS: '600000',
        PRICE_MAX_AGE_SECS: '7200',
        KEY_CACHE_TTL_MS: String(TTL_MS),
        KEY_CACHE_STALE_MS: String(STALE_MS),
      },
      { testUsers: { 'key-watcher': { subscribe: [KEY_CHANGED_SUBJECT] } } },
    );
  });
  afterAll(async () => {
    await e2e?.stop();
  });

  it('serves cached key decisions for the stale window, keeps a disabled key refused, and recovers after a restart', async () => {
    expect((await e2e.admin('create-partner', '--email', 'outage@example.com')).code).toBe(0);
    const kept = (await e2e.admin('create-key', '--email', 'outage@example.com', '--name', 'kept')).out;
    const doomed = (await e2e.admin('create-key', '--email', 'outage@example.com', '--name', 'doomed')).out;
    const never = (await e2e.admin('create-key', '--email', 'outage@example.com', '--name', 'never-used')).out;
    expect(await quote(kept.secret)).toMatchObject({ status: 200, json: {} });
    expect(await quote(doomed.secret)).toMatchObject({ status: 200, json: {} });

    // Disabled while the partner-service is up: its key_changed event drops the gateway's cached allow.
    // Wait for the event itself (the bus hands it to the gateway and to this watcher together; the
    // gateway evicts synchronously on receipt), not a fixed pause that a busy machine can outlast.
    const watcher = await e2e.connectAs('key-watcher');
    const changed = watcher.subscribe(KEY_CHANGED_SUBJECT, { max: 1 });
    await watcher.flush();
    expect((await e2e.admin('disable-key', '--key-id', doomed.key.id)).code).toBe(0);
    const event = await waitForEvent(changed);
    expect(event).toMatchObject({ key_id: doomed.key.id });
    await watcher.close();
    // The last successful lookup of `kept`: its stale window runs from here.
    expect((await quote(kept.secret)).status).toBe(200);
    const fetchedAt = Date.now();

    const partner = e2e.stack.services.get('partner-service')!;
    const exited = new Promise((r) => partner.child.once('exit', r));
    partner.child.kill('SIGKILL');
    await exited;
    const killedAt = Date.now();

    // Well past the TTL, the kept key still quotes; the disabled one is refused (503: no stale allow); a key never looked up is 503.
    const past: number[] = [];
    while (Date.now() < killedAt + 4 * TTL_MS) {
      past.push((await quote(kept.secret)).status);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(past.length).toBeGreaterThan(5);
    expect(past.every((s) => s === 200)).toBe(true);
    const disabled = await quote(doomed.secret);
    expect(disabled.status).toBe(503);
    expect(disabled.json.code).toBe(14);
    const unknown = await quote(never.secret);
    expect(unknown).toMatchObject({ status: 503, json: { code: 14 } });
    expect(reason(unknown.json)).toBe('SERVICE_UNAVAILABLE');
    expect(Number(unknown.retryAfter)).toBeGreaterThanOrEqual(1);

    // After the stale window the kept key stops too: 503, never a 500 and never a pass without a check.
    const seen = new Set<number>();
    const stoppedAt = await until(
      'the kept key to stop',
      async () => {
        const r = await quote(kept.secret);
        seen.add(r.status);
        if (r.status !== 200) {
          expect(r.status).toBe(503);
          expect(r.json.code).toBe(14);
          return Date.now();
        }
        expect((await quote(doomed.secret)).status).toBe(503);
        return undefined;
      },
      { timeoutMs: fetchedAt + TTL_MS + STALE_MS + 5000 - Date.now(), everyMs: 250, failOnError: true },
    );
    expect(stoppedAt).toBeGreaterThan(0);
    expect(stoppedAt).toBeGreaterThanOrEqual(fetchedAt + TTL_MS + STALE_MS - 1000);
    expect([...seen].every((s) => s === 200 || s === 503)).toBe(true);

    // One warning for the whole outage in the gateway's log, not one per request.
    const gatewayLog = readFileSync(join(e2e.logDir, 'gateway.log'), 'utf8');
    expect(gatewayLog.split('\n').filter((l) => l.includes('serving cached key decisions')).length).toBe(1);

    // Restart: keyed requests work again (the disabled key is refused for what it is).
    const spec = SERVICES.find((s) => s.name === 'partner-service')!;
    const restarted = await startBuiltService({
      spec,
      port: e2e.ports['partner-service'],
      env: e2e.stack.envFor('partner-service'),
      logFile: join(e2e.logDir, 'partner-service.log'),
    });
    e2e.stack.services.set('partner-service', restarted);
    const back = await untilHolds(
      'the kept key to quote again',
      () => quote(kept.secret),
      (r) => r.status === 200,
      {
        timeoutMs: 15_000,
        everyMs: 250,
      },
    );
    expect(back.status).toBe(200);
    expect((await quote(never.secret)).status).toBe(200);
    const refused = await quote(doomed.secret);
    expect(refused.status).toBe(401);
    expect(reason(refused.json)).toBe('API_KEY_DISABLED');
  });
});

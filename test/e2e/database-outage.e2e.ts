import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CREDENTIAL_FILES, ROOT, credentialsDir, freeStackPorts, startPostgres, startStack, type Stack, until } from '@xchain/stack';
import { EVM_REFUND, EVM_USER, USDC_ETH_TO_ARB } from '../support/registry-fixture';
import { stackProgressLog, suiteLogDir } from '../support/suite-logs';

jest.setTimeout(240_000);

/** How long PostgreSQL stays down. */
const OUTAGE_MS = 10_000;
/** Lines the partner-service may add to its log during the outage (today: megabytes). */
const MAX_OUTAGE_LOG_LINES = 10;

interface Reply {
  status: number;
  json: any;
  retryAfter: string | null;
}

/**
 * PostgreSQL stopped under a running stack: every operation that needs the database answers
 * 503 UNAVAILABLE / DATABASE_UNAVAILABLE with Retry-After (never 500), the partner-service logs
 * the outage in a line or two instead of one stack per request, and everything answers again
 * after PostgreSQL is back. The stack gets its own PostgreSQL (and Redis) here: the suites'
 * shared one cannot be stopped under the others.
 */
describe('PostgreSQL outage', () => {
  let stack: Stack;
  let gatewayUrl: string;
  let pgDir: string;
  let pgPort: number;
  let dataDir: string;
  let logDir: string;

  const call = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Reply> => {
    const res = await fetch(`${gatewayUrl}${path}`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, json: await res.json(), retryAfter: res.headers.get('retry-after') };
  };
  const quoteBody = { ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND };
  const reason = (r: Reply) => r.json?.details?.find((d: any) => d.reason)?.reason as string | undefined;
  const partnerLog = () =>
    readFileSync(join(logDir, 'partner-service.log'), 'utf8')
      .split('\n')
      .filter((l) => l.length > 0);

  const admin = (...args: string[]): Promise<any> =>
    new Promise((resolve, reject) => {
      execFile(
        process.execPath,
        [join(ROOT, 'dist/tools/partner-admin/src/main.js'), ...args],
        { env: { ...stack.env, ...stack.bus.envFor('operator') }, timeout: 20_000 },
        (err, stdout, stderr) =>
          err ? reject(new Error(`partner-admin ${args[0]}: ${stderr || err.message}`)) : resolve(JSON.parse(stdout)),
      );
    });

  beforeAll(async () => {
    dataDir = join(ROOT, '.test-data', `e2e-dbout-${randomBytes(4).toString('hex')}`);
    logDir = suiteLogDir();
    const ports = await freeStackPorts();
    pgPort = ports.postgres;
    pgDir = join(dataDir, 'postgres');
    stack = await startStack({
      dataDir,
      ports,
      persistent: false,
      logDir,
      onProgress: stackProgressLog(logDir),
      extraEnv: {
        LOG_LEVEL: 'info',
        KEYLESS_POINTS_PER_MIN: '1000000',
        QUOTING_CONFIG_FILE: join(ROOT, 'test/fixtures/quoting.e2e.json'),
        PRICE_WALK_SEED: '7',
        PRICE_POLL_MS: '600000',
        PRICE_MAX_AGE_SECS: '7200',
      },
    });
    gatewayUrl = `http://127.0.0.1:${ports.gateway}`;
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 DATABASE_UNAVAILABLE with Retry-After while PostgreSQL is down, logs the outage once, and recovers', async () => {
    await admin('create-partner', '--email', 'dbout@example.com');
    const session = (await admin('issue-session', '--email', 'dbout@example.com')).token as string;
    // Never used before the outage, so the gateway has no cached decision for it.
    const key = (await admin('create-key', '--email', 'dbout@example.com', '--name', 'fresh')).secret as string;

    const requests: Record<string, () => Promise<Reply>> = {
      GetQuote: () => call('POST', '/json/v1/quote', {}, quoteBody),
      KeyedGetQuote: () => call('POST', '/json/v1/quote', { 'x-api-key': key }, quoteBody),
      ListTokens: () => call('GET', '/json/v1/tokens'),
      GetPartner: () => call('GET', '/json/v1/partner', { authorization: `Bearer ${session}` }),
    };
    // Warm up everything except the keyed quote (its key must stay uncached).
    for (const name of ['GetQuote', 'ListTokens', 'GetPartner'])
      expect({ name, status: (await requests[name]!()).status }).toEqual({ name, status: 200 });

    const pg = stack.servers.find((s) => s.name === 'postgres')!;
    const linesBefore = partnerLog().length;
    // Fast shutdown: PostgreSQL ends every session and exits (clients see their connections terminated).
    const pid = Number(readFileSync(join(pgDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const exited = new Promise((r) => pg.child.once('exit', r));
    process.kill(pid, 'SIGINT');
    await exited;
    const downAt = Date.now();

    const during: Record<string, Reply[]> = { GetQuote: [], KeyedGetQuote: [], ListTokens: [], GetPartner: [] };
    while (Date.now() < downAt + OUTAGE_MS) {
      for (const [name, send] of Object.entries(requests)) during[name]!.push(await send());
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const name of ['GetQuote', 'KeyedGetQuote', 'GetPartner']) {
      const replies = during[name]!;
      expect(replies.length).toBeGreaterThan(5);
      for (const r of replies) {
        expect({ name, status: r.status, code: r.json.code, reason: reason(r) }).toEqual({
          name,
          status: 503,
          code: 14,
          reason: 'DATABASE_UNAVAILABLE',
        });
        expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
      }
    }
    // The registry is served from the quote-engine's memory (reloads that fail keep the last one): tokens stay listed.
    expect(during['ListTokens']!.map((r) => r.status).every((s) => s === 200)).toBe(true);

    const outageLines = partnerLog().slice(linesBefore);
    expect(outageLines.length).toBeLessThanOrEqual(MAX_OUTAGE_LOG_LINES);
    expect(outageLines.filter((l) => l.includes('database unreachable')).length).toBe(1);

    // PostgreSQL back on the same port and data: the same requests answer 200 within a bounded time.
    const restarted = await startPostgres(
      pgDir,
      pgPort,
      false,
      join(logDir, 'postgres.log'),
      join(credentialsDir(dataDir), CREDENTIAL_FILES.postgresAdmin),
    );
    stack.servers[stack.servers.indexOf(pg)] = restarted;
    const pending = new Set(Object.keys(requests));
    await until(
      'every request answered again',
      async () => {
        for (const name of [...pending]) if ((await requests[name]!()).status === 200) pending.delete(name);
        return pending.size === 0;
      },
      { timeoutMs: 30_000, everyMs: 250, failOnError: true, detail: () => `still failing: ${[...pending].join(', ')}` },
    );
    expect([...pending]).toEqual([]);
    await until(
      'partner-service to log the database reachable again',
      () => partnerLog().some((l) => l.includes('database reachable again')),
      {
        timeoutMs: 5000,
        everyMs: 200,
      },
    );
    const recovered = partnerLog().filter((l) => l.includes('database reachable again'));
    expect(recovered.length).toBe(1);
    expect(JSON.parse(recovered[0]!)).toMatchObject({ level: expect.anything(), failures_not_logged: expect.any(Number) });
  });
});

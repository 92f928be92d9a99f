import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type PrismaClient, createPartnerServiceDb } from '@xchain/partner-service-db';
import { SystemClock } from '@xchain/service-kit';
import { freshMigratedDatabase } from '@xchain/stack';
import type { Logger } from '@xchain/telemetry';
import { AddressGuard } from './address-guard';
import { WebhookSecretCipher, keyIdOf } from './secret-cipher';
import { WEBHOOK_SECRET_PREFIX } from './signing';
import { WebhookDispatcher } from './webhook-dispatcher';
import type { WebhookOptions } from './webhook-options';
import { upgradeStoredSecrets } from './webhook-secrets';
import { httpSender } from './webhook-sender';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as unknown as Logger;

jest.setTimeout(60_000);

/** Every byte sequence that would give the secret away: the string, and the 32 random bytes behind it. */
function revealing(secret: string): Buffer[] {
  const raw = Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64url');
  return [
    Buffer.from(secret, 'utf8'),
    Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'utf8'),
    raw,
    Buffer.from(raw.toString('hex'), 'utf8'),
  ];
}

function verifies(secret: string, body: string, header: string | string[] | undefined): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  return !!m && createHmac('sha256', secret).update(`${m[1]}.${body}`).digest('hex') === m[2];
}

describe('webhook secrets at rest, on a real PostgreSQL', () => {
  let db: PrismaClient;
  let db2: PrismaClient;
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);
  const got: { headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => (got.push({ headers: req.headers, body }), res.writeHead(200).end()));
  });
  let url: string;

  const opts = (current: Buffer, old: Buffer[] = []): WebhookOptions => ({
    allowHttpLocalhost: true,
    timeoutMs: 2000,
    retry: { baseMs: 1000, maxMs: 1000, windowMs: 3_600_000 },
    redisUrl: 'redis://unused',
    queuePrefix: 'unused',
    concurrency: 1,
    sweepMs: 600_000,
    secretKeys: { current, old },
  });
  const dispatcher = (cipher: WebhookSecretCipher) =>
    new WebhookDispatcher(
      new WebhooksRepository(db),
      httpSender(new AddressGuard(true), 2000),
      { timeoutMs: 2000, retry: opts(k1).retry, cipher },
      silent,
      new SystemClock(),
    );
  const newPartner = async () => {
    const id = `ptn_${randomBytes(6).toString('hex')}`;
    await db.partner.create({ data: { id, email: `${id}@example.com` } });
    return id;
  };
  const dueDelivery = (partnerId: string) =>
    db.webhookDelivery.create({
      data: {
        partnerId,
        eventId: `e-${randomBytes(4).toString('hex')}`,
        quoteHash: `0x${'44'.repeat(32)}`,
        version: 1,
        body: '{"n":1}',
        status: 'pending',
        nextAttemptAt: new Date(),
      },
    });
  /** The row as PostgreSQL has it, every column, read with SQL. */
  const rawRow = async (partnerId: string) =>
    (await db.$queryRaw<Record<string, unknown>[]>`SELECT * FROM webhooks WHERE partner_id = ${partnerId}`)[0]!;
  const expectNoClearSecret = (row: Record<string, unknown>, secret: string) => {
    for (const [column, value] of Object.entries(row)) {
      const stored = typeof value === 'string' ? Buffer.from(value, 'utf8') : value instanceof Uint8Array ? Buffer.from(value) : undefined;
      if (!stored) continue;
      for (const r of revealing(secret)) expect({ column, leaks: stored.includes(r) }).toEqual({ column, leaks: false });
    }
  };

  beforeAll(async () => {
    const dbUrl = await freshMigratedDatabase('partner-service', 'ps_webhook_secrets');
    db = createPartnerServiceDb(dbUrl, 4);
    db2 = createPartnerServiceDb(dbUrl, 4);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });

  afterAll(async () => {
    await db?.$disconnect();
    await db2?.$disconnect();
    await new Promise((r) => server.close(r));
  });

  it('stores a new secret encrypted, never in clear, and a delivery is signed with it', async () => {
    const partner = await newPartner();
    const { secret } = await new WebhooksService(new WebhooksRepository(db), opts(k1), new SystemClock()).set(partner, url);
    const row = await rawRow(partner);
    expect(row).toMatchObject({ secret: '', secret_key_id: keyIdOf(k1) });
    expect(row['secret_ciphertext']).toBeInstanceOf(Uint8Array);
    expectNoClearSecret(row, secret);

    const d = await dueDelivery(partner);
    await expect(dispatcher(new WebhookSecretCipher({ current: k1, old: [] })).attempt(d.id)).resolves.toBeUndefined();
    const sent = got.find((g) => g.headers['x-xchain-event-id'] === d.eventId)!;
    expect(verifies(secret, sent.body, sent.headers['x-xchain-signature'])).toBe(true);
  });

  it('with a key that is not the one it was stored under, sends nothing and records why; given the old key, moves it to the new one', async () => {
    const partner = await newPartner();
    const { secret } = await new WebhooksService(new WebhooksRepository(db), opts(k1), new SystemClock()).set(partner, url);
    const d = await dueDelivery(partner);
    const sentBefore = got.length;

    const wrong = new WebhookSecretCipher({ current: k2, old: [] });
    await expect(dispatcher(wrong).attempt(d.id)).resolves.toBeGreaterThan(0); // retried: another replica may hold the key
    expect(got).toHaveLength(sentBefore);
    const failed = await db.webhookDelivery.findUniqueOrThrow({ where: { id: d.id } });
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
    expect(failed.lastError).toBe(
      `not sent: the webhook secret is encrypted under key ${keyIdOf(k1)}, which is neither WEBHOOK_SECRET_KEY (${keyIdOf(k2)}) nor in WEBHOOK_SECRET_KEYS_OLD`,
    );
    const stuck = await upgradeStoredSecrets(new WebhooksRepository(db), wrong);
    expect(stuck.unreadable).toContainEqual({ partnerId: partner, keyId: keyIdOf(k1) });
    expect((await rawRow(partner))['secret_key_id']).toBe(keyIdOf(k1)); // left as it was

    // The rotation: k2 is current, k1 listed as old. Every row moves to k2, once.
    const rotated = new WebhookSecretCipher({ current: k2, old: [k1] });
    const moved = await upgradeStoredSecrets(new WebhooksRepository(db), rotated);
    expect(moved.rekeyed).toBeGreaterThanOrEqual(1);
    expect(moved.unreadable).toEqual([]);
    expect(await upgradeStoredSecrets(new WebhooksRepository(db), rotated)).toEqual({ encrypted: 0, rekeyed: 0, unreadable: [] });
    const row = await rawRow(partner);
    expect(row['secret_key_id']).toBe(keyIdOf(k2));
    expectNoClearSecret(row, secret);

    // Now k2 alone signs it, with the same secret the partner was given.
    await db.webhookDelivery.update({ where: { id: d.id }, data: { nextAttemptAt: new Date() } });
    await expect(dispatcher(wrong).attempt(d.id)).resolves.toBeUndefined();
    const sent = got.find((g) => g.headers['x-xchain-event-id'] === d.eventId)!;
    expect(verifies(secret, sent.body, sent.headers['x-xchain-signature'])).toBe(true);
  });

  it('encrypts the clear secrets an earlier version stored, once, with two replicas at it together', async () => {
    const cipher = new WebhookSecretCipher({ current: k2, old: [] });
    const clear = new Map<string, string>();
    for (let i = 0; i < 30; i++) {
      const partner = await newPartner();
      const secret = WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64url');
      clear.set(partner, secret);
      // As the previous version wrote it (the migration then added the encrypted columns, empty).
      await db.$executeRaw`INSERT INTO webhooks (partner_id, url, secret) VALUES (${partner}, ${url}, ${secret})`;
    }
    const [a, b] = await Promise.all([
      upgradeStoredSecrets(new WebhooksRepository(db), cipher),
      upgradeStoredSecrets(new WebhooksRepository(db2), cipher),
    ]);
    expect(a.encrypted + b.encrypted).toBe(clear.size);
    expect(await upgradeStoredSecrets(new WebhooksRepository(db), cipher)).toEqual({ encrypted: 0, rekeyed: 0, unreadable: [] });
    for (const [partner, secret] of clear) {
      const row = await rawRow(partner);
      expect(row).toMatchObject({ secret: '', secret_key_id: keyIdOf(k2) });
      expectNoClearSecret(row, secret);
    }
    const [partner, secret] = [...clear][0]!;
    const d = await dueDelivery(partner);
    await expect(dispatcher(cipher).attempt(d.id)).resolves.toBeUndefined();
    const sent = got.find((g) => g.headers['x-xchain-event-id'] === d.eventId)!;
    expect(verifies(secret, sent.body, sent.headers['x-xchain-signature'])).toBe(true);
  });

  it('signs with a clear secret an earlier replica wrote over an encrypted one (a rolling update), then encrypts it', async () => {
    const cipher = new WebhookSecretCipher({ current: k2, old: [] });
    const partner = await newPartner();
    await new WebhooksService(new WebhooksRepository(db), opts(k2), new SystemClock()).set(partner, url);
    const replaced = WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64url');
    await db.$executeRaw`UPDATE webhooks SET secret = ${replaced} WHERE partner_id = ${partner}`; // the old version's PUT
    const d = await dueDelivery(partner);
    await expect(dispatcher(cipher).attempt(d.id)).resolves.toBeUndefined();
    const sent = got.find((g) => g.headers['x-xchain-event-id'] === d.eventId)!;
    expect(verifies(replaced, sent.body, sent.headers['x-xchain-signature'])).toBe(true);
    expect((await upgradeStoredSecrets(new WebhooksRepository(db), cipher)).encrypted).toBe(1);
    const row = await rawRow(partner);
    expect(row['secret']).toBe('');
    expectNoClearSecret(row, replaced);
    expect(
      new WebhookSecretCipher({ current: k2, old: [] }).open(partner, {
        keyId: row['secret_key_id'] as string,
        iv: row['secret_iv'] as Uint8Array,
        tag: row['secret_tag'] as Uint8Array,
        ciphertext: row['secret_ciphertext'] as Uint8Array,
      }),
    ).toBe(replaced);
  });
});

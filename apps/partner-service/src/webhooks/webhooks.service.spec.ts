import { Code } from '@xchain/contracts';
import { provideValue } from '@xchain/service-kit';
import { newTestService } from '@xchain/service-kit/testing';
import { refusal } from '../test-support.testing';
import { encodeIdCursor } from '../referrals/cursor';
import { WebhookSecretCipher } from './secret-cipher';
import { WEBHOOK_SECRET_PREFIX } from './signing';
import { WEBHOOK_OPTIONS, type WebhookOptions } from './webhook-options';
import { openSecret } from './webhook-secrets';
import { type DeliveryRow, WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

const opts: WebhookOptions = {
  allowHttpLocalhost: false,
  timeoutMs: 1000,
  retry: { baseMs: 10, maxMs: 100, windowMs: 1000 },
  redisUrl: 'redis://127.0.0.1:6379',
  queuePrefix: 'bull',
  concurrency: 1,
  sweepMs: 1000,
  secretKeys: { current: Buffer.alloc(32, 7), old: [] },
};

function webhooks() {
  const t = newTestService(WebhooksService, [provideValue(WEBHOOK_OPTIONS, opts)]);
  return { svc: t.sut, repo: t.mock(WebhooksRepository), clock: t.clock };
}

const delivery = (id: number): DeliveryRow => ({
  id: BigInt(id),
  partnerId: 'ptn_a',
  eventId: `e${id}`,
  quoteHash: '0xq',
  version: 1,
  status: 'pending',
  attempts: 0,
  lastStatusCode: null,
  lastError: null,
  nextAttemptAt: null,
  createdAt: new Date(0),
  deliveredAt: null,
  body: '{}',
  firstAttemptAt: null,
});

describe('WebhooksService', () => {
  it('sets the endpoint with a fresh secret, stored sealed (never in the clear), dated by the clock', async () => {
    const { svc, repo, clock } = webhooks();
    repo.upsert.mockResolvedValue();
    const set = await svc.set('ptn_a', 'https://hooks.example.com/x');
    expect(set).toEqual({
      url: 'https://hooks.example.com/x',
      secret: expect.stringMatching(new RegExp(`^${WEBHOOK_SECRET_PREFIX}`)) as unknown,
      created_at: clock.now().toISOString(),
    });
    const [partnerId, row] = repo.upsert.mock.calls[0]!;
    expect([partnerId, row.url, row.createdAt, row.legacySecret]).toEqual(['ptn_a', 'https://hooks.example.com/x', clock.now(), '']);
    expect(openSecret(new WebhookSecretCipher(opts.secretKeys), { partnerId, ...row })).toBe(set.secret);
  });

  it('refuses a URL it may not call, storing nothing', async () => {
    const { svc, repo } = webhooks();
    await expect(svc.set('ptn_a', 'http://127.0.0.1/x')).rejects.toMatchObject({
      status: expect.objectContaining({ code: Code.INVALID_ARGUMENT }),
    });
    expect(repo.upsert).not.toHaveBeenCalled();
  });

  it('is NOT_FOUND with no endpoint set', async () => {
    const { svc, repo } = webhooks();
    repo.find.mockResolvedValue(null);
    await expect(svc.get('ptn_a')).rejects.toMatchObject(refusal(Code.NOT_FOUND, 'WEBHOOK_NOT_FOUND'));
  });

  it('pages deliveries newest first, with a cursor only when more remain', async () => {
    const { svc, repo } = webhooks();
    repo.deliveries.mockResolvedValue([delivery(9), delivery(8), delivery(7)]);
    const page = await svc.deliveries('ptn_a', undefined, 2);
    expect(repo.deliveries).toHaveBeenCalledWith('ptn_a', undefined, 3);
    expect(page.deliveries.map((d) => d.event_id)).toEqual(['e9', 'e8']);
    expect(page.next_cursor).toBe(encodeIdCursor('d1', 8n));
    repo.deliveries.mockResolvedValue([delivery(7)]);
    await expect(svc.deliveries('ptn_a', page.next_cursor, 2)).resolves.toMatchObject({ next_cursor: '' });
    expect(repo.deliveries).toHaveBeenLastCalledWith('ptn_a', 8n, 3);
  });
});

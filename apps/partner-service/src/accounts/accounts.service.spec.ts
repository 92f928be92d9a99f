import { Code, KEY_CHANGED_SUBJECT } from '@xchain/contracts';
import type { ApiKey, Session } from '@xchain/partner-service-db';
import { NATS, provideValue } from '@xchain/service-kit';
import { PARTNERS_CONFIG, type PartnersConfig } from '../config';
import { UniqueViolation } from '../db.providers';
import { newTestService } from '@xchain/service-kit/testing';
import { FAKE_TX, refusal } from '../test-support.testing';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { KeysRepository } from './keys.repository';

const config: PartnersConfig = {
  tiers: { standard: 60, pro: 600 },
  default_tier: 'standard',
  default_max_keys: 2,
  session_ttl_secs: 3600,
  funding: {
    chain: 'base',
    router_address: '0x1111111111111111111111111111111111111111',
    tokens: ['0x2222222222222222222222222222222222222222'],
  },
  voucher_routers: {},
};

const apiKey = (over: Partial<ApiKey> = {}): ApiKey => ({
  id: 'key_1',
  partnerId: 'ptn_a',
  prefix: 'xk_abcdefgh',
  secretHash: 'h',
  name: 'k',
  tier: 'standard',
  pointsPerMin: 60,
  disabled: false,
  disabledAt: null,
  createdAt: new Date(0),
  ...over,
});

function accounts() {
  const publish = jest.fn();
  const t = newTestService(AccountsService, [provideValue(PARTNERS_CONFIG, config), { provide: NATS, useValue: { publish } }]);
  return { svc: t.sut, clock: t.clock, repo: t.mock(AccountsRepository), keys: t.mock(KeysRepository), publish };
}

describe('AccountsService sessions', () => {
  const session = (expiresAt: Date, revokedAt: Date | null = null): Session => ({
    id: 'ses_1',
    partnerId: 'ptn_a',
    tokenHash: 'th',
    expiresAt,
    revokedAt,
    createdAt: new Date(0),
  });

  it('issues a session that ends its lifetime after now', async () => {
    const { svc, clock, repo } = accounts();
    repo.partnerByEmail.mockResolvedValue({ id: 'ptn_a', email: 'a@example.com', maxKeys: 2, createdAt: new Date(0) });
    repo.createSession.mockImplementation(async (s) => ({ ...s, revokedAt: null, createdAt: clock.now() }));
    const issued = await svc.issueSession('A@Example.com', 120);
    expect(repo.partnerByEmail).toHaveBeenCalledWith('a@example.com');
    expect(issued.expires_at).toBe(new Date(clock.nowMs() + 120_000).toISOString());
    expect(issued.token).toMatch(/^xps_/);
  });

  it('accepts a session until the instant it expires, and never a revoked one', async () => {
    const { svc, clock, repo } = accounts();
    repo.sessionByTokenHash.mockResolvedValue(session(new Date(clock.nowMs() + 1000)));
    await expect(svc.authenticateSession('th')).resolves.toMatchObject({ partner_id: 'ptn_a', session_id: 'ses_1' });
    clock.advance(1000);
    await expect(svc.authenticateSession('th')).rejects.toMatchObject(refusal(Code.UNAUTHENTICATED, 'INVALID_SESSION'));
    clock.advance(-1000);
    repo.sessionByTokenHash.mockResolvedValue(session(new Date(clock.nowMs() + 1000), new Date(0)));
    await expect(svc.authenticateSession('th')).rejects.toMatchObject(refusal(Code.UNAUTHENTICATED, 'INVALID_SESSION'));
  });

  it("answers revoking another partner's session like a missing one, and revoking twice is fine", async () => {
    const { svc, repo } = accounts();
    repo.revokeSession.mockResolvedValue(false);
    repo.ownsSession.mockResolvedValue(false);
    await expect(svc.revokeSession('ptn_b', 'ses_1')).rejects.toMatchObject(refusal(Code.NOT_FOUND, 'SESSION_NOT_FOUND'));
    repo.ownsSession.mockResolvedValue(true);
    await expect(svc.revokeSession('ptn_a', 'ses_1')).resolves.toEqual({});
  });
});

describe('AccountsService keys', () => {
  it('refuses a key beyond max_keys, under the partner lock, creating none', async () => {
    const { svc, keys } = accounts();
    keys.lockPartnerMaxKeys.mockResolvedValue(2);
    keys.count.mockResolvedValue(2);
    await expect(svc.createKey('ptn_a', 'third')).rejects.toMatchObject(refusal(Code.FAILED_PRECONDITION, 'MAX_KEYS_REACHED'));
    expect(keys.lockPartnerMaxKeys).toHaveBeenCalledWith(FAKE_TX, 'ptn_a');
    expect(keys.create).not.toHaveBeenCalled();
  });

  it('creates a key in the default tier, storing only its hash', async () => {
    const { svc, keys } = accounts();
    keys.lockPartnerMaxKeys.mockResolvedValue(2);
    keys.count.mockResolvedValue(1);
    keys.create.mockImplementation(async (_tx, k) => apiKey(k));
    const { key, secret } = await svc.createKey('ptn_a', 'second');
    expect(key).toMatchObject({ tier: 'standard', points_per_min: '60', key: secret.slice(0, 11) });
    expect(keys.create.mock.calls[0]![1].secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(keys.create.mock.calls)).not.toContain(secret);
  });

  it('refuses an unknown tier, and a partner that does not exist', async () => {
    const { svc, keys } = accounts();
    await expect(svc.createKey('ptn_a', 'k', 'gold')).rejects.toMatchObject(refusal(Code.INVALID_ARGUMENT, 'UNKNOWN_TIER'));
    keys.lockPartnerMaxKeys.mockResolvedValue(undefined);
    await expect(svc.createKey('ptn_x', 'k')).rejects.toMatchObject(refusal(Code.NOT_FOUND, 'PARTNER_NOT_FOUND'));
  });

  it('tells the gateways when a key is disabled, writing nothing for a key already disabled', async () => {
    const { svc, keys, publish, clock } = accounts();
    keys.find.mockResolvedValue(apiKey());
    keys.disable.mockImplementation(async (id, at) => apiKey({ id, disabled: true, disabledAt: at }));
    await expect(svc.disableKey('ptn_a', 'key_1')).resolves.toMatchObject({ disabled: true });
    expect(keys.disable).toHaveBeenCalledWith('key_1', clock.now());
    keys.find.mockResolvedValue(apiKey({ disabled: true }));
    await svc.disableKey(undefined, 'key_1');
    expect(keys.disable).toHaveBeenCalledTimes(1);
    expect(publish.mock.calls).toEqual([
      [KEY_CHANGED_SUBJECT, JSON.stringify({ key_id: 'key_1', key_hash: 'h' })],
      [KEY_CHANGED_SUBJECT, JSON.stringify({ key_id: 'key_1', key_hash: 'h' })],
    ]);
  });
});

describe('AccountsService.createPartner', () => {
  it('refuses an email that is taken', async () => {
    const { svc, repo } = accounts();
    repo.createPartner.mockRejectedValue(new UniqueViolation('email'));
    await expect(svc.createPartner('a@example.com')).rejects.toMatchObject(refusal(Code.ALREADY_EXISTS, 'PARTNER_EXISTS'));
  });
});

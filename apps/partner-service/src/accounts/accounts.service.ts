import { Inject, Injectable } from '@nestjs/common';
import { Code, KEY_CHANGED_SUBJECT, RpcError, errorInfo, type KeyChangedEvent } from '@xchain/contracts';
import type { NatsConnection } from '@xchain/messaging';
import { Clock, Ids, NATS } from '@xchain/service-kit';
import { failedPrecondition } from '../caller-guard';
import { PARTNERS_CONFIG, type PartnersConfig } from '../config';
import { UniqueViolation } from '../db.providers';
import { LedgerRepository } from '../ledger/ledger.repository';
import { newApiKey, newSessionToken, sha256Hex } from '../secrets';
import { AccountsRepository } from './accounts.repository';
import { type ApiKey, KeysRepository } from './keys.repository';

export interface ApiKeyView {
  id: string;
  key: string;
  name: string;
  tier: string;
  points_per_min: string;
  disabled: boolean;
  created_at: string;
}

const notFound = (what: string) => RpcError.notFound(`no such ${what}`, `${what.toUpperCase().replace(/ /g, '_')}_NOT_FOUND`);

/** Partners, their sessions and API keys. Secrets leave this class once, at creation, and are never stored. */
@Injectable()
export class AccountsService {
  constructor(
    @Inject(AccountsRepository) private readonly accounts: AccountsRepository,
    @Inject(KeysRepository) private readonly keys: KeysRepository,
    @Inject(LedgerRepository) private readonly ledger: LedgerRepository,
    @Inject(PARTNERS_CONFIG) private readonly config: PartnersConfig,
    @Inject(NATS) private readonly nc: Pick<NatsConnection, 'publish'>,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(Ids) private readonly ids: Ids,
  ) {}

  async createPartner(email: string, maxKeys?: number) {
    try {
      const p = await this.accounts.createPartner({
        id: this.ids.id('ptn'),
        email: email.toLowerCase(),
        maxKeys: maxKeys ?? this.config.default_max_keys,
      });
      return { partner_id: p.id, email: p.email, max_keys: String(p.maxKeys), created_at: p.createdAt.toISOString() };
    } catch (err) {
      if (err instanceof UniqueViolation) {
        throw new RpcError(Code.ALREADY_EXISTS, `a partner with email ${email} exists`, [errorInfo('PARTNER_EXISTS')]);
      }
      throw err;
    }
  }

  async partnerByEmail(email: string) {
    const p = await this.accounts.partnerByEmail(email.toLowerCase());
    if (!p) throw notFound('partner');
    return p;
  }

  async issueSession(email: string, ttlSecs?: number) {
    const partner = await this.partnerByEmail(email);
    const token = newSessionToken();
    const s = await this.accounts.createSession({
      id: this.ids.id('ses'),
      partnerId: partner.id,
      tokenHash: sha256Hex(token),
      expiresAt: new Date(this.clock.nowMs() + (ttlSecs ?? this.config.session_ttl_secs) * 1000),
    });
    return { session_id: s.id, token, expires_at: s.expiresAt.toISOString() };
  }

  /** Unknown, expired and revoked sessions all answer the same UNAUTHENTICATED. */
  async authenticateSession(tokenHash: string) {
    const s = await this.accounts.sessionByTokenHash(tokenHash);
    if (!s || s.revokedAt !== null || s.expiresAt.getTime() <= this.clock.nowMs()) {
      throw new RpcError(Code.UNAUTHENTICATED, 'the bearer token is not a valid session', [errorInfo('INVALID_SESSION')]);
    }
    return { partner_id: s.partnerId, session_id: s.id, expires_at: s.expiresAt.toISOString() };
  }

  /** Another partner's session is NOT_FOUND, exactly like one that does not exist. Revoking twice is fine. */
  async revokeSession(partnerId: string, sessionId: string): Promise<Record<string, never>> {
    if (!(await this.accounts.revokeSession(partnerId, sessionId, this.clock.now()))) {
      if (!(await this.accounts.ownsSession(partnerId, sessionId))) throw notFound('session');
    }
    return {};
  }

  async getPartner(partnerId: string) {
    const p = await this.accounts.partnerWithKeys(partnerId);
    if (!p) throw notFound('partner');
    return { email: p.email, keys: p.apiKeys.map(keyView), max_keys: String(p.maxKeys) };
  }

  /** At most max_keys keys, disabled ones included (a disabled key still names its history). */
  async createKey(partnerId: string, name: string, tier?: string) {
    const tierName = tier ?? this.config.default_tier;
    const points = this.config.tiers[tierName];
    if (points === undefined) throw RpcError.invalidArgument([{ field: 'tier', description: `unknown tier ${tierName}` }], 'UNKNOWN_TIER');
    const { secret, shown } = newApiKey();
    const key = await this.keys.transaction(async (tx) => {
      const maxKeys = await this.keys.lockPartnerMaxKeys(tx, partnerId);
      if (maxKeys === undefined) throw notFound('partner');
      const count = await this.keys.count(tx, partnerId);
      if (count >= maxKeys) {
        throw failedPrecondition(`the partner already holds its ${maxKeys} keys`, 'MAX_KEYS_REACHED', { max_keys: String(maxKeys) });
      }
      return this.keys.create(tx, {
        id: this.ids.id('key'),
        partnerId,
        prefix: shown,
        secretHash: sha256Hex(secret),
        name,
        tier: tierName,
        pointsPerMin: points,
      });
    });
    return { key: keyView(key), secret };
  }

  /** `partnerId` undefined: the operator, who may disable any key. */
  async disableKey(partnerId: string | undefined, keyId: string) {
    const key = await this.keys.find(keyId, partnerId);
    if (!key) throw notFound('api key');
    const updated = key.disabled ? key : await this.keys.disable(keyId, this.clock.now());
    this.announce(updated);
    return keyView(updated);
  }

  async setKeyTier(keyId: string, tier: string, pointsPerMin?: number) {
    const points = pointsPerMin ?? this.config.tiers[tier];
    if (points === undefined) throw RpcError.invalidArgument([{ field: 'tier', description: `unknown tier ${tier}` }], 'UNKNOWN_TIER');
    const key = await this.keys.find(keyId);
    if (!key) throw notFound('api key');
    const updated = await this.keys.setTier(keyId, tier, points);
    this.announce(updated);
    return keyView(updated);
  }

  async showPartner(email: string, entries: number) {
    const p = await this.partnerByEmail(email);
    const [keys, sessions, ledger, balance] = await Promise.all([
      this.keys.ofPartner(p.id),
      this.accounts.activeSessions(p.id, this.clock.now()),
      this.ledger.latest(p.id, entries),
      this.ledger.balance(p.id),
    ]);
    return {
      partner_id: p.id,
      email: p.email,
      max_keys: String(p.maxKeys),
      created_at: p.createdAt.toISOString(),
      keys: keys.map(keyView),
      balance_usd_micros: String(balance),
      active_sessions: String(sessions),
      ledger: ledger.map((e) => ({
        id: String(e.id),
        kind: e.kind,
        delta_usd_micros: String(e.deltaUsdMicros),
        reason: e.reason,
        created_at: e.createdAt.toISOString(),
      })),
    };
  }

  /** Unknown keys are NOT_FOUND; a disabled key is returned as such (the gateway refuses it). */
  async authenticateKey(keyHash: string) {
    const key = await this.keys.byHash(keyHash);
    if (!key) throw notFound('api key');
    return { key_id: key.id, partner_id: key.partnerId, tier: key.tier, points_per_min: key.pointsPerMin, disabled: key.disabled };
  }

  /** Tells every gateway to drop its cached lookup of this key. */
  private announce(key: ApiKey): void {
    const event: KeyChangedEvent = { key_id: key.id, key_hash: key.secretHash };
    this.nc.publish(KEY_CHANGED_SUBJECT, JSON.stringify(event));
  }
}

export function keyView(k: ApiKey): ApiKeyView {
  return {
    id: k.id,
    key: k.prefix,
    name: k.name,
    tier: k.tier,
    points_per_min: String(k.pointsPerMin),
    disabled: k.disabled,
    created_at: k.createdAt.toISOString(),
  };
}

import { Inject, Injectable } from '@nestjs/common';
import { Code, KEY_CHANGED_SUBJECT, RpcError, errorInfo, type KeyChangedEvent } from '@xchain/contracts';
import type { NatsConnection } from '@xchain/messaging';
import { Prisma, type ApiKey, type PrismaClient } from '@xchain/partner-service-db';
import { NATS } from '@xchain/service-kit';
import { failedPrecondition } from '../caller-guard';
import { PARTNERS_CONFIG, type PartnersConfig } from '../config';
import { DB } from '../db.providers';
import { newApiKey, newId, newSessionToken, sha256Hex } from '../secrets';

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
    @Inject(DB) private readonly db: PrismaClient,
    @Inject(PARTNERS_CONFIG) private readonly config: PartnersConfig,
    @Inject(NATS) private readonly nc: NatsConnection,
  ) {}

  async createPartner(email: string, maxKeys?: number) {
    try {
      const p = await this.db.partner.create({
        data: { id: newId('ptn'), email: email.toLowerCase(), maxKeys: maxKeys ?? this.config.default_max_keys },
      });
      return { partner_id: p.id, email: p.email, max_keys: String(p.maxKeys), created_at: p.createdAt.toISOString() };
    } catch (err) {
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
        throw new RpcError(Code.ALREADY_EXISTS, `a partner with email ${email} exists`, [errorInfo('PARTNER_EXISTS')]);
      }
      throw err;
    }
  }

  async partnerByEmail(email: string) {
    const p = await this.db.partner.findUnique({ where: { email: email.toLowerCase() } });
    if (!p) throw notFound('partner');
    return p;
  }

  async issueSession(email: string, ttlSecs?: number) {
    const partner = await this.partnerByEmail(email);
    const token = newSessionToken();
    const s = await this.db.session.create({
      data: {
        id: newId('ses'),
        partnerId: partner.id,
        tokenHash: sha256Hex(token),
        expiresAt: new Date(Date.now() + (ttlSecs ?? this.config.session_ttl_secs) * 1000),
      },
    });
    return { session_id: s.id, token, expires_at: s.expiresAt.toISOString() };
  }

  /** Unknown, expired and revoked sessions all answer the same UNAUTHENTICATED. */
  async authenticateSession(tokenHash: string) {
    const s = await this.db.session.findUnique({ where: { tokenHash } });
    if (!s || s.revokedAt !== null || s.expiresAt.getTime() <= Date.now()) {
      throw new RpcError(Code.UNAUTHENTICATED, 'the bearer token is not a valid session', [errorInfo('INVALID_SESSION')]);
    }
    return { partner_id: s.partnerId, session_id: s.id, expires_at: s.expiresAt.toISOString() };
  }

  /** Another partner's session is NOT_FOUND, exactly like one that does not exist. Revoking twice is fine. */
  async revokeSession(partnerId: string, sessionId: string): Promise<Record<string, never>> {
    const revoked = await this.db.session.updateMany({
      where: { id: sessionId, partnerId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    if (revoked.count === 0) {
      const own = await this.db.session.findFirst({ where: { id: sessionId, partnerId }, select: { id: true } });
      if (!own) throw notFound('session');
    }
    return {};
  }

  async getPartner(partnerId: string) {
    const p = await this.db.partner.findUnique({
      where: { id: partnerId },
      include: { apiKeys: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
    });
    if (!p) throw notFound('partner');
    return { email: p.email, keys: p.apiKeys.map(keyView), max_keys: String(p.maxKeys) };
  }

  /** At most max_keys keys, disabled ones included (a disabled key still names its history). */
  async createKey(partnerId: string, name: string, tier?: string) {
    const tierName = tier ?? this.config.default_tier;
    const points = this.config.tiers[tierName];
    if (points === undefined) throw RpcError.invalidArgument([{ field: 'tier', description: `unknown tier ${tierName}` }], 'UNKNOWN_TIER');
    const { secret, shown } = newApiKey();
    const key = await this.db.$transaction(async (tx) => {
      const [p] = await tx.$queryRaw<{ max_keys: number }[]>`SELECT max_keys FROM partners WHERE id = ${partnerId} FOR UPDATE`;
      if (!p) throw notFound('partner');
      const count = await tx.apiKey.count({ where: { partnerId } });
      if (count >= p.max_keys) {
        throw failedPrecondition(`the partner already holds its ${p.max_keys} keys`, 'MAX_KEYS_REACHED', { max_keys: String(p.max_keys) });
      }
      return tx.apiKey.create({
        data: { id: newId('key'), partnerId, prefix: shown, secretHash: sha256Hex(secret), name, tier: tierName, pointsPerMin: points },
      });
    });
    return { key: keyView(key), secret };
  }

  /** `partnerId` undefined: the operator, who may disable any key. */
  async disableKey(partnerId: string | undefined, keyId: string) {
    const key = await this.db.apiKey.findFirst({ where: { id: keyId, ...(partnerId ? { partnerId } : {}) } });
    if (!key) throw notFound('api key');
    const updated = key.disabled ? key : await this.db.apiKey.update({ where: { id: keyId }, data: { disabled: true, disabledAt: new Date() } });
    this.announce(updated);
    return keyView(updated);
  }

  async setKeyTier(keyId: string, tier: string, pointsPerMin?: number) {
    const points = pointsPerMin ?? this.config.tiers[tier];
    if (points === undefined) throw RpcError.invalidArgument([{ field: 'tier', description: `unknown tier ${tier}` }], 'UNKNOWN_TIER');
    const key = await this.db.apiKey.findUnique({ where: { id: keyId } });
    if (!key) throw notFound('api key');
    const updated = await this.db.apiKey.update({ where: { id: keyId }, data: { tier, pointsPerMin: points } });
    this.announce(updated);
    return keyView(updated);
  }

  async showPartner(email: string, entries: number) {
    const p = await this.partnerByEmail(email);
    const [keys, sessions, ledger, balance] = await Promise.all([
      this.db.apiKey.findMany({ where: { partnerId: p.id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
      this.db.session.count({ where: { partnerId: p.id, revokedAt: null, expiresAt: { gt: new Date() } } }),
      this.db.ledgerEntry.findMany({ where: { partnerId: p.id }, orderBy: { id: 'desc' }, take: entries }),
      this.db.$queryRaw<{ b: string }[]>`SELECT COALESCE(SUM(delta_usd_micros), 0)::text AS b FROM ledger_entries WHERE partner_id = ${p.id}`,
    ]);
    return {
      partner_id: p.id,
      email: p.email,
      max_keys: String(p.maxKeys),
      created_at: p.createdAt.toISOString(),
      keys: keys.map(keyView),
      balance_usd_micros: balance[0]?.b ?? '0',
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
    const key = await this.db.apiKey.findUnique({ where: { secretHash: keyHash } });
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

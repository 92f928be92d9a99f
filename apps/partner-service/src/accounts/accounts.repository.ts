import { Inject, Injectable } from '@nestjs/common';
import type { Partner, PrismaClient, Session } from '@xchain/partner-service-db';
import { DB, uniqueOrThrow } from '../db.providers';

/** Partners and their sessions. */
@Injectable()
export class AccountsRepository {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  /** Throws `UniqueViolation` when the email is taken. */
  createPartner(data: { id: string; email: string; maxKeys: number }): Promise<Partner> {
    return uniqueOrThrow(this.db.partner.create({ data }));
  }

  partnerByEmail(email: string): Promise<Partner | null> {
    return this.db.partner.findUnique({ where: { email } });
  }

  /** The partner with its keys, oldest first. */
  partnerWithKeys(partnerId: string) {
    return this.db.partner.findUnique({
      where: { id: partnerId },
      include: { apiKeys: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
    });
  }

  createSession(data: { id: string; partnerId: string; tokenHash: string; expiresAt: Date }): Promise<Session> {
    return this.db.session.create({ data });
  }

  sessionByTokenHash(tokenHash: string): Promise<Session | null> {
    return this.db.session.findUnique({ where: { tokenHash } });
  }

  /** Revokes the partner's session if it is not revoked yet; false when none was (revoked, another's, unknown). */
  async revokeSession(partnerId: string, sessionId: string, at: Date): Promise<boolean> {
    const revoked = await this.db.session.updateMany({ where: { id: sessionId, partnerId, revokedAt: null }, data: { revokedAt: at } });
    return revoked.count > 0;
  }

  async ownsSession(partnerId: string, sessionId: string): Promise<boolean> {
    return (await this.db.session.findFirst({ where: { id: sessionId, partnerId }, select: { id: true } })) !== null;
  }

  activeSessions(partnerId: string, now: Date): Promise<number> {
    return this.db.session.count({ where: { partnerId, revokedAt: null, expiresAt: { gt: now } } });
  }
}

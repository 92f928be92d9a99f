import { createHash } from 'node:crypto';
import {
  AuthenticateKeyRpc,
  AuthenticateSessionRpc,
  Code,
  RpcError,
  errorInfo,
  retryInfo,
  type ApiKeyIdentity,
  type CallerContext,
  type HttpOperation,
} from '@xchain/contracts';
import type { RpcClient } from '@xchain/messaging';
import type { LimitBucket, LimitDecision, RateLimits } from '../limits/rate-limits';
import type { KeyCache } from './key-cache';

export interface Credentials {
  ip: string;
  apiKey: string | undefined;
  authorization: string | undefined;
}

export type Admission = { ok: true; caller: CallerContext; limit: LimitDecision } | { ok: false; status: RpcError; limit?: LimitDecision };

const MAX_SECRET_CHARS = 512;
const sha256Hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const unauthenticated = (message: string, reason: string) => new RpcError(Code.UNAUTHENTICATED, message, [errorInfo(reason)]);

/**
 * Who is calling and whether they may, before any work is done (decisions D9, D10):
 * - `/v1/partner…` needs `Authorization: Bearer <session token>`; every check goes to the
 *   partner-service, so a revoked or expired session stops working on its next request.
 * - public operations take an optional `x-api-key`: an unknown or disabled key is refused, never
 *   treated as keyless. Key lookups are cached (see KeyCache).
 * - then the caller's budget: the key's points_per_min, the partner's for partner operations, or
 *   the client IP's for keyless calls. Failed key checks spend the IP's budget, so guessing keys
 *   runs into the keyless limit.
 * Secrets are hashed here and never logged or sent on.
 */
export class AccessControl {
  constructor(
    private readonly rpc: RpcClient,
    private readonly keys: KeyCache,
    private readonly limits: RateLimits,
    private readonly authTimeoutMs: number,
  ) {}

  async admit(op: HttpOperation, cred: Credentials): Promise<Admission> {
    const cost = op.points ?? 1;
    if (op.auth === 'bearer') {
      const session = await this.session(cred);
      if (session instanceof RpcError) return this.refuse(session, cred.ip);
      const caller: CallerContext = { kind: 'partner_session', client_ip: cred.ip, ...session };
      return this.charge(caller, { kind: 'partner', partnerId: session.partner_id }, cost);
    }
    if (cred.apiKey === undefined) {
      return this.charge({ kind: 'keyless', client_ip: cred.ip }, { kind: 'ip', ip: cred.ip }, cost);
    }
    const key = await this.key(cred.apiKey);
    if (key instanceof RpcError) return this.refuse(key, cred.ip);
    const caller: CallerContext = { kind: 'api_key', client_ip: cred.ip, key_id: key.key_id, tier: key.tier, partner_id: key.partner_id };
    return this.charge(caller, { kind: 'key', keyId: key.key_id, pointsPerMin: key.points_per_min }, cost);
  }

  private async session(cred: Credentials): Promise<{ partner_id: string; session_id: string } | RpcError> {
    if (!cred.authorization) return unauthenticated('this operation needs Authorization: Bearer <session token>', 'MISSING_CREDENTIALS');
    const m = /^Bearer +(\S+)\s*$/i.exec(cred.authorization);
    if (!m || m[1]!.length > MAX_SECRET_CHARS)
      return unauthenticated('the Authorization header is not "Bearer <token>"', 'INVALID_SESSION');
    try {
      const s = await this.rpc.call(AuthenticateSessionRpc, { token_hash: sha256Hex(m[1]!) }, { timeoutMs: this.authTimeoutMs });
      return { partner_id: s.partner_id, session_id: s.session_id };
    } catch (err) {
      if (err instanceof RpcError && err.status.code === Code.UNAUTHENTICATED) return err;
      throw err; // the partner-service is unavailable: 503/504, never a silent pass
    }
  }

  private async key(apiKey: string): Promise<ApiKeyIdentity | RpcError> {
    if (apiKey.length === 0 || apiKey.length > MAX_SECRET_CHARS)
      return unauthenticated('the x-api-key is not a valid API key', 'INVALID_API_KEY');
    const identity = await this.keys.get(sha256Hex(apiKey), async (hash) => {
      try {
        return await this.rpc.call(AuthenticateKeyRpc, { key_hash: hash }, { timeoutMs: this.authTimeoutMs });
      } catch (err) {
        if (err instanceof RpcError && err.status.code === Code.NOT_FOUND) return null;
        throw err;
      }
    });
    if (!identity) return unauthenticated('the x-api-key is not a valid API key', 'INVALID_API_KEY');
    if (identity.disabled) return unauthenticated('the x-api-key is disabled', 'API_KEY_DISABLED');
    return identity;
  }

  /** A refused credential still costs the IP one point; past the keyless budget it is 429. */
  private async refuse(status: RpcError, ip: string): Promise<Admission> {
    const limit = await this.limits.consume({ kind: 'ip', ip }, 1);
    return { ok: false, status: limit.allowed ? status : exhausted(limit), limit };
  }

  private async charge(caller: CallerContext, bucket: LimitBucket, cost: number): Promise<Admission> {
    const limit = await this.limits.consume(bucket, cost);
    return limit.allowed ? { ok: true, caller, limit } : { ok: false, status: exhausted(limit), limit };
  }
}

function exhausted(limit: LimitDecision): RpcError {
  return new RpcError(
    Code.RESOURCE_EXHAUSTED,
    `rate limit of ${limit.limit} points per minute reached; retry in ${limit.retryAfterSecs}s`,
    [errorInfo('RATE_LIMITED', { limit: String(limit.limit), window_secs: '60' }), retryInfo(limit.retryAfterSecs)],
  );
}

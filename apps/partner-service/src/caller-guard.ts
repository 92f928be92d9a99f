import { Code, RpcError, errorInfo, type CallerContext } from '@xchain/contracts';

/** Partner operations act for the partner of the caller's session, never for one named in a body. */
export function sessionPartner(caller: CallerContext | undefined): { partnerId: string; sessionId: string } {
  if (caller?.kind !== 'partner_session') {
    throw new RpcError(Code.UNAUTHENTICATED, 'a partner session is required', [errorInfo('SESSION_REQUIRED')]);
  }
  return { partnerId: caller.partner_id, sessionId: caller.session_id };
}

/** Operator and service-to-service operations: never reachable through the gateway. */
export function requireInternal(caller: CallerContext | undefined): void {
  if (caller?.kind !== 'internal') {
    throw new RpcError(Code.PERMISSION_DENIED, 'internal operation', [errorInfo('INTERNAL_ONLY')]);
  }
}

export function failedPrecondition(message: string, reason: string, metadata?: Record<string, string>): RpcError {
  return new RpcError(Code.FAILED_PRECONDITION, message, [errorInfo(reason, metadata)]);
}

import { Code, RpcError, errorInfo } from '@xchain/contracts';

/*
 * Who may call each operation is declared on its contract (`access`) and enforced in one place:
 * the bus lets only the declared callers publish it, and the RPC server gives a `partner`
 * operation the session's partner (`ctx.session`). Nothing here checks callers any more.
 */

export function failedPrecondition(message: string, reason: string, metadata?: Record<string, string>): RpcError {
  return new RpcError(Code.FAILED_PRECONDITION, message, [errorInfo(reason, metadata)]);
}

import { Code, RpcError, errorInfo, httpStatusOf, type Status } from '@xchain/contracts';
import type { FastifyReply } from 'fastify';

/** Sends a google.rpc.Status body with the HTTP status of decisions D2 (or an explicit one). */
export function sendStatus(reply: FastifyReply, status: Status, httpStatus = httpStatusOf(status.code)): FastifyReply {
  const retry = status.details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.RetryInfo');
  if (retry && 'retry_delay' in retry) reply.header('retry-after', String(Math.ceil(parseFloat(retry.retry_delay))));
  return reply.status(httpStatus).type('application/json; charset=utf-8').send(status);
}

/** Transport-level failures that D2's table does not cover get their HTTP-specific status. */
export const httpErrors = {
  routeNotFound: (path: string): Status =>
    new RpcError(Code.NOT_FOUND, `no operation at ${path}`, [errorInfo('ROUTE_NOT_FOUND')]).status,
  methodNotAllowed: (method: string, allowed: string[]): Status =>
    new RpcError(Code.UNIMPLEMENTED, `method ${method} is not allowed here; use ${allowed.join(', ')}`, [
      errorInfo('METHOD_NOT_ALLOWED', { allowed: allowed.join(',') }),
    ]).status,
  malformedJson: (): Status =>
    new RpcError(Code.INVALID_ARGUMENT, 'request body is not valid JSON', [errorInfo('MALFORMED_JSON')]).status,
  unsupportedMediaType: (got: string | undefined): Status =>
    new RpcError(Code.INVALID_ARGUMENT, 'request body must be application/json', [
      errorInfo('UNSUPPORTED_MEDIA_TYPE', got ? { content_type: got } : undefined),
    ]).status,
  bodyTooLarge: (limit: number): Status =>
    new RpcError(Code.INVALID_ARGUMENT, `request body exceeds ${limit} bytes`, [
      errorInfo('BODY_TOO_LARGE', { max_bytes: String(limit) }),
    ]).status,
  unimplemented: (operationId: string): Status =>
    new RpcError(Code.UNIMPLEMENTED, `${operationId} is not served by this version yet`, [
      errorInfo('NOT_YET_SERVED', { operation: operationId }),
    ]).status,
};

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
  routeNotFound: (path: string): Status => new RpcError(Code.NOT_FOUND, `no operation at ${path}`, [errorInfo('ROUTE_NOT_FOUND')]).status,
  methodNotAllowed: (method: string, allowed: string[]): Status =>
    new RpcError(Code.UNIMPLEMENTED, `method ${method} is not allowed here; use ${allowed.join(', ')}`, [
      errorInfo('METHOD_NOT_ALLOWED', { allowed: allowed.join(',') }),
    ]).status,
  malformedJson: (): Status => new RpcError(Code.INVALID_ARGUMENT, 'request body is not valid JSON', [errorInfo('MALFORMED_JSON')]).status,
  unsupportedMediaType: (got: string | undefined): Status =>
    new RpcError(Code.INVALID_ARGUMENT, 'request body must be application/json', [
      errorInfo('UNSUPPORTED_MEDIA_TYPE', got ? { content_type: got } : undefined),
    ]).status,
  bodyTooLarge: (limit: number): Status =>
    new RpcError(Code.INVALID_ARGUMENT, `request body exceeds ${limit} bytes`, [errorInfo('BODY_TOO_LARGE', { max_bytes: String(limit) })])
      .status,
  nulCharacter: (field: string): Status =>
    RpcError.invalidArgument([{ field, description: 'must not contain a NUL character' }], 'INVALID_CHARACTER').status,
  malformedUrl: (): Status =>
    new RpcError(Code.INVALID_ARGUMENT, 'the request path is not a valid URL (bad percent-encoding)', [errorInfo('MALFORMED_URL')]).status,
  pathTooLong: (maxLength: number): Status =>
    new RpcError(Code.INVALID_ARGUMENT, `a path parameter is longer than ${maxLength} characters`, [
      errorInfo('PATH_PARAMETER_TOO_LONG', { max_length: String(maxLength) }),
    ]).status,
  /** Refused by Node's HTTP parser, before any route: oversized headers, a slow or broken request. */
  clientError: (code: string | undefined): { status: Status; http: number } =>
    code === 'HPE_HEADER_OVERFLOW'
      ? {
          status: new RpcError(Code.INVALID_ARGUMENT, 'the request headers are too large', [errorInfo('HEADERS_TOO_LARGE')]).status,
          http: 431,
        }
      : code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? {
            status: new RpcError(Code.DEADLINE_EXCEEDED, 'the request was not received in time', [errorInfo('REQUEST_TIMEOUT')]).status,
            http: 408,
          }
        : {
            status: new RpcError(Code.INVALID_ARGUMENT, 'the request is not valid HTTP', [errorInfo('MALFORMED_REQUEST')]).status,
            http: 400,
          },
  unimplemented: (operationId: string): Status =>
    new RpcError(Code.UNIMPLEMENTED, `${operationId} is not served by this version yet`, [
      errorInfo('NOT_YET_SERVED', { operation: operationId }),
    ]).status,
};

import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Inject, NotFoundException } from '@nestjs/common';
import { Code, RpcError, errorInfo, type CodeNumber, type Status } from '@xchain/contracts';
import { LOGGER } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GATEWAY_ENV } from '../tokens';
import type { GatewayEnv } from '../env';
import { RouteTable } from './route-table';
import { httpErrors, sendStatus } from './status-reply';

const CODE_BY_HTTP: Record<number, CodeNumber> = {
  400: Code.INVALID_ARGUMENT,
  401: Code.UNAUTHENTICATED,
  403: Code.PERMISSION_DENIED,
  404: Code.NOT_FOUND,
  409: Code.ALREADY_EXISTS,
  429: Code.RESOURCE_EXHAUSTED,
  501: Code.UNIMPLEMENTED,
  503: Code.UNAVAILABLE,
  504: Code.DEADLINE_EXCEEDED,
};

/**
 * Everything that fails in the gateway leaves as a google.rpc.Status: service errors unchanged,
 * routing and body-parsing failures with their documented reasons, and anything unexpected as
 * INTERNAL, logged with the trace id, without its message: no stack trace or upstream text leaks.
 */
@Catch()
export class StatusExceptionFilter implements ExceptionFilter {
  constructor(
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(RouteTable) private readonly routes: RouteTable,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const req = http.getRequest<FastifyRequest>();
    if (exception instanceof RpcError) {
      sendStatus(reply, exception.status);
      return;
    }
    if (exception instanceof NotFoundException) {
      const path = req.url.split('?')[0] ?? req.url;
      const allowed = this.routes.allowed(path);
      if (allowed.length > 0) {
        reply.header('allow', allowed.join(', '));
        sendStatus(reply, httpErrors.methodNotAllowed(req.method, allowed), 405);
      } else {
        sendStatus(reply, httpErrors.routeNotFound(path));
      }
      return;
    }
    const parsing = this.parsingFailure(exception, req);
    if (parsing) {
      sendStatus(reply, parsing.status, parsing.http);
      return;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code = CODE_BY_HTTP[status] ?? (status < 500 ? Code.INVALID_ARGUMENT : Code.INTERNAL);
      sendStatus(reply, new RpcError(code, exception.message, [errorInfo('HTTP_ERROR')]).status, status);
      return;
    }
    const gone = clientGone(exception, req);
    if (gone) {
      // The client stopped sending (cut off at the request deadline, or it hung up): its doing, not
      // ours, so no error line; the answer mirrors the one it got, for the access log.
      const { status, http } = httpErrors.clientError(gone);
      this.log.info({ err: describe(exception), reason: gone }, 'request body not received: the client was cut off or went away');
      sendStatus(reply, status, http);
      return;
    }
    this.log.error({ err: describe(exception) }, 'unhandled error');
    sendStatus(reply, RpcError.internal().status);
  }

  /** Fastify's body-parsing errors (they happen before any handler runs). */
  private parsingFailure(exception: unknown, req: FastifyRequest): { status: Status; http: number } | undefined {
    // Nest wraps Fastify's errors in an HttpException whose cause is the original.
    const original = exception instanceof HttpException && exception.cause ? exception.cause : exception;
    const code = (original as { code?: unknown } | null)?.code;
    switch (code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return { status: httpErrors.unsupportedMediaType(req.headers['content-type']), http: 415 };
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return { status: httpErrors.bodyTooLarge(this.env.BODY_LIMIT_BYTES), http: 413 };
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return { status: httpErrors.malformedJson(), http: 400 };
    }
    if (original instanceof SyntaxError) return { status: httpErrors.malformedJson(), http: 400 };
    return undefined;
  }
}

/**
 * Why the body stopped arriving when the client is to blame: the code the socket was destroyed
 * with (ERR_HTTP_REQUEST_TIMEOUT after our 408), or ECONNRESET for a hang-up mid-body.
 */
function clientGone(exception: unknown, req: FastifyRequest): string | undefined {
  const original = exception instanceof HttpException && exception.cause ? exception.cause : exception;
  const code = (original as { code?: unknown } | null)?.code;
  const socket = req.raw.socket as (typeof req.raw.socket & { errored?: NodeJS.ErrnoException | null }) | null;
  if (code !== 'ECONNRESET' && !req.raw.destroyed && !socket?.destroyed) return undefined;
  return socket?.errored?.code ?? 'ECONNRESET';
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

import { STATUS_CODES } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { LOGGER, startService } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { GatewayModule } from './app.module';
import type { GatewayEnv } from './env';
import { AccessControl } from './access/access-control';
import { installAccessHook } from './access/access-hook';
import { installCors } from './http/cors';
import { installHttpHooks } from './http/fastify-hooks';
import { installHttpTracing } from './http/http-tracing';
import { httpErrors, sendStatus } from './http/status-reply';
import { OperationRoutes } from './operation-routes';
import { DEFAULT_WEB_DIR, installWebPages } from './web/web-pages';

/** Longest path parameter (ids are far shorter); a longer one is refused before routing. */
const MAX_PARAM_LENGTH = 100;

/** Starts the gateway: Nest on Fastify, every path under /json/v1. */
export function startGateway(env: GatewayEnv): Promise<INestApplication> {
  return startService({
    service: 'gateway',
    module: GatewayModule.forEnv(env),
    host: env.HOST,
    port: env.GATEWAY_PORT,
    metrics: env.METRICS_ENABLED,
    // The API is JSON only (415 otherwise, docs/api.md): Nest's parsers would also take urlencoded forms.
    bodyParser: false,
    fastify: {
      bodyLimit: env.BODY_LIMIT_BYTES,
      // Slow clients (D2: never a hang): the request must arrive within HTTP_REQUEST_TIMEOUT_MS
      // (408 REQUEST_TIMEOUT from clientErrorHandler below), a silent socket is closed after
      // HTTP_IDLE_TIMEOUT_MS. Node checks the request deadlines on an interval (30 s by default),
      // so it is tightened to keep the cut-off within a second of the deadline. Responses are not
      // bounded by these: an order event stream writes a heartbeat well inside the idle timeout.
      requestTimeout: env.HTTP_REQUEST_TIMEOUT_MS,
      connectionTimeout: env.HTTP_IDLE_TIMEOUT_MS,
      http: {
        requestTimeout: env.HTTP_REQUEST_TIMEOUT_MS,
        headersTimeout: Math.min(env.HTTP_HEADERS_TIMEOUT_MS, env.HTTP_REQUEST_TIMEOUT_MS),
        connectionsCheckingInterval: Math.min(1000, Math.max(100, Math.floor(env.HTTP_REQUEST_TIMEOUT_MS / 4))),
      },
      trustProxy: env.TRUSTED_PROXIES.length > 0 ? env.TRUSTED_PROXIES : false,
      return503OnClosing: true,
      routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
      // What Fastify refuses before any route or hook runs still answers in the error shape of D2.
      frameworkErrors: (err, _req, reply) =>
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? sendStatus(reply, httpErrors.pathTooLong(MAX_PARAM_LENGTH), 414)
          : sendStatus(reply, httpErrors.malformedUrl(), 400),
      clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
        if (err.code === 'ECONNRESET' || socket.destroyed) return;
        const { status, http } = httpErrors.clientError(err.code);
        const body = JSON.stringify(status);
        if (socket.writable) {
          socket.write(
            `HTTP/1.1 ${http} ${STATUS_CODES[http]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
          );
        }
        socket.destroy(err);
      },
    },
    configure: (app) => {
      const fastify = app.getHttpAdapter().getInstance();
      // First, so every later hook, the handler and the access log run in the request's trace.
      installHttpTracing(fastify);
      installCors(fastify, env.CORS_ALLOWED_ORIGINS);
      installHttpHooks(fastify, app.get<Logger>(LOGGER));
      installAccessHook(fastify, app.get(AccessControl), app.get<Logger>(LOGGER));
      // Every operation's route, built from HTTP_OPERATIONS on Fastify directly (operation-routes.ts).
      app.get(OperationRoutes).register(fastify);
      // The order explorer and the partner console (apps/web), when built.
      if (installWebPages(fastify, env.WEB_DIR ?? DEFAULT_WEB_DIR).length === 0)
        app
          .get<Logger>(LOGGER)
          .warn({ dir: env.WEB_DIR ?? DEFAULT_WEB_DIR }, 'no browser pages built: /explorer/ and /console/ answer 404');
    },
  });
}

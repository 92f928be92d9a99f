import { STATUS_CODES } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { HTTP_OPERATIONS } from '@xchain/contracts';
import { LOGGER, startService } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { GatewayModule } from './app.module';
import type { GatewayEnv } from './env';
import { AccessControl } from './access/access-control';
import { installAccessHook } from './access/access-hook';
import { installCors } from './http/cors';
import { installHttpHooks } from './http/fastify-hooks';
import { httpErrors, sendStatus } from './http/status-reply';

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
    fastify: {
      bodyLimit: env.BODY_LIMIT_BYTES,
      trustProxy: env.TRUSTED_PROXIES.length > 0 ? env.TRUSTED_PROXIES : false,
      return503OnClosing: true,
      routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
      // What Fastify refuses before any route or hook runs still answers in the error shape of D2.
      frameworkErrors: (err, _req, reply) =>
        err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? sendStatus(reply, httpErrors.pathTooLong(MAX_PARAM_LENGTH), 414) : sendStatus(reply, httpErrors.malformedUrl(), 400),
      clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
        if (err.code === 'ECONNRESET' || socket.destroyed) return;
        const { status, http } = httpErrors.clientError(err.code);
        const body = JSON.stringify(status);
        if (socket.writable) {
          socket.write(`HTTP/1.1 ${http} ${STATUS_CODES[http]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`);
        }
        socket.destroy(err);
      },
    },
    configure: (app) => {
      const fastify = app.getHttpAdapter().getInstance();
      installCors(fastify, env.CORS_ALLOWED_ORIGINS);
      installHttpHooks(fastify, app.get<Logger>(LOGGER));
      installAccessHook(fastify, app.get(AccessControl), app.get<Logger>(LOGGER));
      for (const op of HTTP_OPERATIONS.filter((o) => !o.served)) {
        fastify.route({
          method: op.method,
          url: `/json${op.path.replace(/\{(\w+)\}/g, ':$1')}`,
          handler: (_req, reply) => sendStatus(reply, httpErrors.unimplemented(op.operationId)),
        });
      }
    },
  });
}

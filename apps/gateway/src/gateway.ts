import type { INestApplication } from '@nestjs/common';
import { HTTP_OPERATIONS } from '@xchain/contracts';
import { LOGGER, startService } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { GatewayModule } from './app.module';
import type { GatewayEnv } from './env';
import { AccessControl } from './access/access-control';
import { installAccessHook } from './access/access-hook';
import { installHttpHooks } from './http/fastify-hooks';
import { httpErrors, sendStatus } from './http/status-reply';

/** Starts the gateway: Nest on Fastify, every path under /json/v1. */
export function startGateway(env: GatewayEnv): Promise<INestApplication> {
  return startService({
    service: 'gateway',
    module: GatewayModule.forEnv(env),
    host: env.HOST,
    port: env.GATEWAY_PORT,
    fastify: { bodyLimit: env.BODY_LIMIT_BYTES, trustProxy: env.TRUSTED_PROXIES.length > 0 ? env.TRUSTED_PROXIES : false, return503OnClosing: true },
    configure: (app) => {
      const fastify = app.getHttpAdapter().getInstance();
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

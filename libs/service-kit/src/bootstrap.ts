import type { ServerOptions as HttpServerOptions } from 'node:http';
import { type DynamicModule, type INestApplication, type LoggerService, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { RpcServer } from '@xchain/messaging';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger, stopTelemetry, type Logger } from '@xchain/telemetry';
import type { FastifyServerOptions } from 'fastify';
import { processMetrics } from './metrics';
import { installHttpMetrics, serveMetrics } from './metrics-http';

/** Routes Nest's own messages into the service's JSON log. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pino: Logger) {}
  log(message: unknown, context?: string) {
    this.pino.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.pino.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.pino.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.pino.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.pino.trace({ context }, String(message));
  }
}

export interface ServiceStartOptions {
  service: string;
  module: Type<unknown> | DynamicModule;
  host: string;
  port: number;
  /** Fastify's options; `http` goes to Node's `http.createServer` (request and header deadlines, their check interval). */
  fastify?: FastifyServerOptions & { http?: HttpServerOptions };
  /** Serve `/metrics` and count HTTP requests (the service's METRICS_ENABLED; default true). */
  metrics?: boolean;
  /**
   * Let Nest register its body parsers (JSON and urlencoded forms; default true). false leaves
   * Fastify's own, which parse JSON only, for a service that must refuse forms.
   */
  bodyParser?: boolean;
  /** Runs on the Nest app before it starts listening (routes, hooks). */
  configure?: (app: NestFastifyApplication) => void | Promise<void>;
}

/**
 * Creates and starts a service's Nest app on Fastify. A taken port or a failed dependency ends
 * the process with one clear log line instead of a stack trace.
 */
export async function startService(opts: ServiceStartOptions): Promise<INestApplication> {
  const log = createLogger(opts.service);
  try {
    const app = await NestFactory.create<NestFastifyApplication>(opts.module, new FastifyAdapter(opts.fastify), {
      logger: new PinoNestLogger(log),
      bufferLogs: false,
      abortOnError: false,
      bodyParser: opts.bodyParser ?? true,
    });
    app.enableShutdownHooks();
    if (opts.metrics !== false) {
      const fastify = app.getHttpAdapter().getInstance();
      processMetrics.enableProcessMetrics();
      installHttpMetrics(fastify, processMetrics);
      serveMetrics(fastify, processMetrics);
    }
    await opts.configure?.(app);
    await serveRpc(app);
    await app.listen(opts.port, opts.host);
    log.info({ url: `http://${opts.host}:${opts.port}` }, `${opts.service} ready`);
    return app;
  } catch (err) {
    log.fatal({ err: describeStartupError(err, opts) }, `${opts.service} failed to start`);
    await stopTelemetry();
    process.exit(1);
  }
}

/**
 * Connects the service's NATS RPC transport (its `RpcServer` provider) as a Nest microservice, so
 * its controllers' `@Rpc` methods are served with the app's guards, interceptors and filters. The
 * modules are initialised first (databases, caches, subscriptions), so no request reaches a
 * handler whose dependencies are not ready; readiness over HTTP comes after.
 */
export async function serveRpc(app: INestApplication): Promise<void> {
  let server: RpcServer;
  try {
    server = app.get(RpcServer, { strict: false });
  } catch {
    return; // a service without RPC operations (the gateway only calls them)
  }
  app.connectMicroservice<MicroserviceOptions>({ strategy: server }, { inheritAppConfig: true });
  await app.init();
  await app.startAllMicroservices();
}

export function describeStartupError(err: unknown, opts: { host: string; port: number }): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'EADDRINUSE') return `port ${opts.port} on ${opts.host} is already in use; set another port`;
  if (e?.code === 'EACCES') return `no permission to listen on ${opts.host}:${opts.port}`;
  return err instanceof Error ? err.message : String(err);
}

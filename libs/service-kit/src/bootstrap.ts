import type { ServerOptions as HttpServerOptions } from 'node:http';
import { type DynamicModule, type INestApplication, type LoggerService, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { RpcServer } from '@xchain/messaging';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger, stopTelemetry, type Logger } from '@xchain/telemetry';
import type { FastifyServerOptions } from 'fastify';
import { BaseEnv, loadEnv } from './env';
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
  /**
   * After SIGTERM or SIGINT, how long the work in flight may take to finish before the process
   * exits anyway (see `boundShutdown`). Default: the environment's SHUTDOWN_GRACE_MS (BaseEnv),
   * which every service's own schema has already checked.
   */
  shutdownGraceMs?: number;
}

/**
 * Creates and starts a service's Nest app on Fastify. A taken port or a failed dependency ends
 * the process with one clear log line instead of a stack trace.
 */
export async function startService(opts: ServiceStartOptions): Promise<INestApplication> {
  const log = createLogger(opts.service);
  try {
    const graceMs = opts.shutdownGraceMs ?? loadEnv(BaseEnv.pick({ SHUTDOWN_GRACE_MS: true })).SHUTDOWN_GRACE_MS;
    const app = await NestFactory.create<NestFastifyApplication>(opts.module, new FastifyAdapter(opts.fastify), {
      logger: new PinoNestLogger(log),
      bufferLogs: false,
      abortOnError: false,
      bodyParser: opts.bodyParser ?? true,
    });
    app.enableShutdownHooks();
    boundShutdown(log, graceMs, app.getHttpAdapter().getInstance().server);
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
 * Bounds a service's graceful shutdown. On the first SIGTERM or SIGINT, Nest's shutdown hooks
 * (`enableShutdownHooks`) stop taking work and let the work in flight finish: the RPC
 * subscriptions end, and the HTTP server stops accepting connections and waits for the requests it
 * is answering; then the services' `onApplicationShutdown` hooks stop their background loops and
 * close their connections (NATS is drained), and the process ends. A keep-alive connection whose
 * request finishes after the signal would hold the HTTP server open until its client lets go (the
 * server closes only the connections idle at the signal), so `server`'s idle connections are closed
 * every 100 ms from then on. Whatever of all that is still unfinished `graceMs` after the signal (a
 * request that never ends, a hook that hangs) is abandoned: the process logs it and exits with
 * code 1, rather than waiting for Kubernetes' SIGKILL. Returns a function that removes the bound.
 */
export function boundShutdown(
  log: Logger,
  graceMs: number,
  server?: { closeIdleConnections(): void },
  signals: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'],
): () => void {
  const arm = (signal: NodeJS.Signals) => {
    remove();
    log.info({ signal, graceMs }, 'stopping: no new work; the work in flight has SHUTDOWN_GRACE_MS to finish');
    if (server) setInterval(() => server.closeIdleConnections(), 100).unref();
    setTimeout(() => {
      log.error({ signal, graceMs }, 'shutdown did not finish within SHUTDOWN_GRACE_MS: exiting with work unfinished');
      process.exit(1);
    }, graceMs).unref();
  };
  const remove = () => {
    for (const s of signals) process.removeListener(s, arm);
  };
  for (const s of signals) process.on(s, arm);
  return remove;
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

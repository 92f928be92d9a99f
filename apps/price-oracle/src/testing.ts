import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Kvm, type KV } from '@nats-io/kv';
import { type Health, ListPriceFeedsRpc, PRICES_BUCKET } from '@xchain/contracts';
import { RpcServer, type NatsConnection } from '@xchain/messaging';
import pino from 'pino';
import { PriceOracleEnv } from './env';
import { type OracleModuleOptions, PriceOracleModule } from './oracle.module';
import type { Feed } from './sources/source';

/** Helpers for the integration suites (not used by the service). */

export interface RunningOracle {
  app: INestApplication;
  readiness(): Promise<{ status: number; body: Health }>;
  close(): Promise<void>;
}

/** Boots the real oracle module on a free loopback port, with the given environment. */
export async function bootOracle(env: Record<string, string>, opts: OracleModuleOptions = {}): Promise<RunningOracle> {
  process.env['LOG_LEVEL'] ??= 'silent';
  const parsed = PriceOracleEnv.parse({ ...env, PRICE_ORACLE_PORT: '0' });
  const app = await NestFactory.create(PriceOracleModule.forEnv(parsed, opts), new FastifyAdapter(), { logger: false });
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  const url = await app.getUrl();
  return {
    app,
    async readiness() {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5000) });
      return { status: res.status, body: (await res.json()) as Health };
    },
    close: () => app.close(),
  };
}

const KV = `KV_${PRICES_BUCKET}`;
/**
 * The NATS test user of the oracle suites (D14: they run NATS with authorization; the oracle
 * connects as its real user): it answers ListPriceFeeds as the quote-engine would and reads the
 * bucket (and may create it, as a suite does before the oracle starts). It never writes prices.
 */
export const PRICE_READER = {
  subscribe: [ListPriceFeedsRpc.subject],
  allowResponses: true,
  publish: [
    '$JS.API.INFO',
    `$JS.API.STREAM.CREATE.${KV}`,
    `$JS.API.STREAM.INFO.${KV}`,
    // Reads by direct get only (openPrices): STREAM.MSG.GET can kill nats-server 2.9.10, so the
    // suites may not send it; a plain open() that tries is refused instead.
    `$JS.API.DIRECT.GET.${KV}.>`,
    `$JS.API.CONSUMER.CREATE.${KV}.>`,
    `$JS.API.CONSUMER.DELETE.${KV}.>`,
  ],
};

/**
 * The prices bucket as a reader sees it, without creating it, and read by direct get.
 *
 * A plain `open()` only binds and reads with $JS.API.STREAM.MSG.GET. nats-server 2.9.10 (what apt
 * installs here) lists a stream before its storage exists, and a STREAM.MSG.GET that arrives in
 * that window dereferences the missing storage and kills the server (panic in jsMsgGetRequest;
 * reproduced in 4 create/delete rounds against a client sending MSG.GET in a loop, never with
 * DIRECT.GET, STREAM.INFO or CONSUMER.CREATE in 400). A suite that polls the bucket while the
 * oracle creates it hit that window now and then. A direct get is answered by the stream itself,
 * which subscribes only once its storage is up; before that it gets "no responders", and polls
 * again. The oracle reads its own bucket by direct get already (it creates it with allow_direct).
 */
export function openPrices(nc: NatsConnection): Promise<KV> {
  return new Kvm(nc).open(PRICES_BUCKET, { allow_direct: true });
}

/** Answers ListPriceFeeds as the quote-engine would. */
export function serveFeeds(nc: NatsConnection, feeds: Feed[]): RpcServer {
  const server = new RpcServer(nc, 'quote-engine', pino({ level: 'silent' }));
  server.handle(ListPriceFeedsRpc, async () => ({ feeds }));
  return server;
}

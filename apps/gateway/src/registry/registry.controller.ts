import { Controller, Get, Inject, Injectable, type OnApplicationShutdown, type OnModuleInit, type Provider, Req, Res } from '@nestjs/common';
import { ListChainsRpc, ListTokensRpc, REGISTRY_CHANGED_SUBJECT, type RpcContract } from '@xchain/contracts';
import { RpcClient, type NatsConnection, type Subscription } from '@xchain/messaging';
import { NATS } from '@xchain/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { callerOf } from '../http/caller';
import { ifNoneMatchHits } from '../http/etag';
import { RegistryLists } from './registry-lists';

/**
 * ListTokens and GetChains: read-only, cacheable by ETag, served from the lists this gateway keeps
 * (RegistryLists): the quote-engine is asked when a list is missing, older than
 * REGISTRY_LIST_MAX_AGE_MS, or dropped because a quote-engine said it changed.
 */
@Controller('json/v1')
export class RegistryController {
  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(RegistryLists) private readonly lists: RegistryLists,
  ) {}

  @Get('tokens')
  tokens(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.cacheable(ListTokensRpc, req, reply);
  }

  @Get('chains')
  chains(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.cacheable(ListChainsRpc, req, reply);
  }

  private async cacheable<Res extends z.ZodType>(
    contract: RpcContract<z.ZodType<Record<string, never>>, Res>,
    req: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const { body, etag } = await this.lists.get(contract.subject, () => this.rpc.call(contract, {}, { caller: callerOf(req) }));
    reply.header('etag', etag).header('cache-control', 'public, max-age=0, must-revalidate');
    if (ifNoneMatchHits(req.headers['if-none-match'], etag)) {
      await reply.status(304).send();
      return;
    }
    await reply.status(200).type('application/json; charset=utf-8').send(body);
  }
}

/**
 * Drops the kept lists the moment a quote-engine says its registry changed, and after every
 * reconnect to NATS: a notice sent while this gateway was cut off is lost (core NATS keeps nothing).
 */
@Injectable()
export class RegistryChangeListener implements OnModuleInit, OnApplicationShutdown {
  private sub?: Subscription;

  constructor(
    @Inject(NATS) private readonly nc: Pick<NatsConnection, 'subscribe' | 'status'>,
    @Inject(RegistryLists) private readonly lists: Pick<RegistryLists, 'changed'>,
  ) {}

  onModuleInit(): void {
    this.sub = this.nc.subscribe(REGISTRY_CHANGED_SUBJECT, {
      callback: (err) => {
        if (!err) this.lists.changed();
      },
    });
    void this.dropOnReconnect();
  }

  /** Ends with the connection (its status stream ends when it closes). */
  private async dropOnReconnect(): Promise<void> {
    for await (const s of this.nc.status()) if (s.type === 'reconnect') this.lists.changed();
  }

  onApplicationShutdown(): void {
    this.sub?.unsubscribe();
  }
}

export function registryProviders(maxAgeMs: number): Provider[] {
  return [{ provide: RegistryLists, useFactory: () => new RegistryLists(maxAgeMs) }, RegistryChangeListener];
}

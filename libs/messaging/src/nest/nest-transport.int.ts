import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Controller,
  Injectable,
  Module,
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  type INestMicroservice,
  type NestInterceptor,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, MessagePattern, type MicroserviceOptions } from '@nestjs/microservices';
import { Code, RpcError, defineRpc, type Status } from '@xchain/contracts';
import { freePort, newBus, startNats, type Managed } from '@xchain/stack';
import pino from 'pino';
import { lastValueFrom, map, type Observable } from 'rxjs';
import { z } from 'zod';
import { connectNats, type NatsConnection } from '../connection';
import { RpcClient } from '../rpc-client';
import { RpcServer } from '../rpc-server';
import { Rpc, type RpcBody, type RpcCtx } from './rpc.decorator';

const PUBLIC = { access: 'public' } as const;
const Shout = defineRpc('nest.v1.shout', z.object({ text: z.string().min(1) }), z.object({ text: z.string(), by: z.string() }), PUBLIC);
const Mine = defineRpc('nest.v1.mine', z.object({}), z.object({ partner: z.string() }), { access: 'partner' });
const Closed = defineRpc('nest.v1.closed', z.object({}), z.object({}), PUBLIC);
const Alone = defineRpc('nest.v1.alone', z.object({}), z.object({ up: z.boolean() }), PUBLIC);
const Loud = defineRpc('nest.v1.loud', z.object({ text: z.string() }), z.object({ text: z.string(), by: z.string() }), PUBLIC);
const Fails = defineRpc('nest.v1.fails', z.object({ how: z.enum(['rpc', 'plain', 'reply']) }), z.object({ n: z.number() }), PUBLIC);

const bus = newBus({
  'nest-server': { subscribe: ['nest.v1.>'], allowResponses: true },
  'nest-client': { publish: ['nest.v1.>'] },
});

/** Counts the calls it wraps and stamps the reply, so the test sees an interceptor ran around the handler. */
@Injectable()
class StampInterceptor implements NestInterceptor {
  calls = 0;
  intercept(_ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    this.calls += 1;
    return next.handle().pipe(map((reply: { text: string; by: string }) => ({ ...reply, by: `${reply.by}+stamp` })));
  }
}
const stamp = new StampInterceptor();

/** A guard that refuses by returning false (not by throwing). */
class ClosedGuard implements CanActivate {
  canActivate(): boolean {
    return false;
  }
}

@Controller()
class TestHandlers {
  @Rpc(Shout)
  @UseInterceptors(stamp)
  shout(req: RpcBody<typeof Shout>, ctx: RpcCtx<typeof Shout>) {
    return { text: req.text.toUpperCase(), by: ctx.caller?.kind ?? 'nobody' };
  }

  @Rpc(Mine)
  mine(_req: RpcBody<typeof Mine>, ctx: RpcCtx<typeof Mine>) {
    return { partner: ctx.session.partnerId };
  }

  @Rpc(Closed)
  @UseGuards(ClosedGuard)
  closed() {
    return {};
  }

  @Rpc(Fails)
  async fails(req: RpcBody<typeof Fails>): Promise<{ n: number }> {
    if (req.how === 'rpc') throw RpcError.notFound('no such thing', 'THING_NOT_FOUND');
    if (req.how === 'plain') throw new Error('a bug');
    return { n: 'not a number' } as unknown as { n: number };
  }
}

/** An interceptor on the class applies to each of its methods. */
@Controller()
@UseInterceptors(stamp)
class StampedHandlers {
  @Rpc(Loud)
  loud(req: RpcBody<typeof Loud>) {
    return { text: `${req.text}!`, by: 'loud' };
  }
}

@Module({ controllers: [TestHandlers, StampedHandlers] })
class TestModule {}

@Controller()
class Unbound {
  @MessagePattern('nest.v1.unbound')
  unbound() {
    return {};
  }
}

@Module({ controllers: [Unbound] })
class UnboundModule {}

@Controller()
class EventHandler {
  @EventPattern('nest.v1.event')
  onEvent(_data: unknown) {
    return undefined;
  }
}

@Module({ controllers: [EventHandler] })
class EventModule {}

@Controller()
class SecondShout {
  @Rpc(Shout)
  shout(req: RpcBody<typeof Shout>) {
    return { text: req.text, by: 'second' };
  }
}

@Module({ controllers: [TestHandlers, SecondShout] })
class TwiceModule {}

const statusOf = async (p: Promise<unknown>): Promise<Status> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof RpcError) return err.status;
    throw err;
  }
  throw new Error('the call succeeded');
};
const reasonOf = (s: Status) => (s.details.find((d) => 'reason' in d) as { reason?: string } | undefined)?.reason;

describe('the Nest NATS transport: @Rpc controllers on a real NATS server', () => {
  let nats: Managed;
  let dir: string;
  let url: string;
  let serverConn: NatsConnection;
  let clientConn: NatsConnection;
  let app: INestMicroservice;
  let client: RpcClient;
  const log = pino({ level: 'silent' });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nats-nest-'));
    const [port, monitor] = [await freePort(), await freePort()];
    nats = await startNats(dir, port, monitor, join(dir, 'nats.log'), bus.users);
    url = `nats://127.0.0.1:${port}`;
    serverConn = await connectNats({ url, name: 'server', connectTimeoutMs: 2000, ...bus.credentials('nest-server') });
    clientConn = await connectNats({ url, name: 'client', connectTimeoutMs: 2000, ...bus.credentials('nest-client') });
    app = await NestFactory.createMicroservice<MicroserviceOptions>(TestModule, {
      strategy: new RpcServer(serverConn, 'test', log),
      logger: false,
    });
    await app.listen();
    await serverConn.flush();
    client = new RpcClient(clientConn, 2000);
  });

  afterAll(async () => {
    await app?.close();
    await clientConn?.close();
    await serverConn?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a controller method with the validated request, the caller context and its interceptor', async () => {
    const before = stamp.calls;
    await expect(client.call(Shout, { text: 'hi' }, { caller: { kind: 'keyless', client_ip: '127.0.0.1' } })).resolves.toEqual({
      text: 'HI',
      by: 'keyless+stamp',
    });
    expect(stamp.calls).toBe(before + 1);
  });

  it('refuses a request that breaks the contract before the handler (and its interceptor) runs', async () => {
    const before = stamp.calls;
    const status = await statusOf(client.call(Shout, { text: '' }));
    expect(status.code).toBe(Code.INVALID_ARGUMENT);
    expect(JSON.stringify(status.details)).toContain('text');
    expect(stamp.calls).toBe(before);
  });

  it("checks the contract's access in the guard: a partner operation needs a partner session and gets its partner", async () => {
    const refused = await statusOf(client.call(Mine, {}, { caller: { kind: 'keyless', client_ip: '127.0.0.1' } }));
    expect([refused.code, reasonOf(refused)]).toEqual([Code.UNAUTHENTICATED, 'SESSION_REQUIRED']);
    const session = { kind: 'partner_session', client_ip: '127.0.0.1', partner_id: 'p-1', session_id: 's-1' } as const;
    await expect(client.call(Mine, {}, { caller: session })).resolves.toEqual({ partner: 'p-1' });
  });

  it('applies a further guard: refusing by returning false answers PERMISSION_DENIED, not a bare Nest error', async () => {
    const status = await statusOf(client.call(Closed, {}));
    expect([status.code, reasonOf(status)]).toEqual([Code.PERMISSION_DENIED, 'HANDLER_REFUSED']);
  });

  it('turns every failure into a google.rpc.Status: an RpcError as thrown, a bug and a broken reply as INTERNAL', async () => {
    const notFound = await statusOf(client.call(Fails, { how: 'rpc' }));
    expect([notFound.code, reasonOf(notFound), notFound.message]).toEqual([Code.NOT_FOUND, 'THING_NOT_FOUND', 'no such thing']);
    const bug = await statusOf(client.call(Fails, { how: 'plain' }));
    expect(bug.code).toBe(Code.INTERNAL);
    expect(bug.message).not.toContain('a bug');
    const broken = await statusOf(client.call(Fails, { how: 'reply' }));
    expect(broken.code).toBe(Code.INTERNAL);
    // The service is still serving after all three.
    await expect(client.call(Shout, { text: 'still' })).resolves.toMatchObject({ text: 'STILL' });
  });

  it('runs the interceptors and guards a method or its class has on every request, not only the first', async () => {
    const before = stamp.calls;
    for (let i = 0; i < 3; i++) {
      await expect(client.call(Shout, { text: `hi ${i}` })).resolves.toEqual({ text: `HI ${i}`, by: 'nobody+stamp' });
      await expect(client.call(Loud, { text: `hey ${i}` })).resolves.toEqual({ text: `hey ${i}!`, by: 'loud+stamp' });
      const status = await statusOf(client.call(Closed, {}));
      expect([status.code, reasonOf(status)]).toEqual([Code.PERMISSION_DENIED, 'HANDLER_REFUSED']);
    }
    expect(stamp.calls).toBe(before + 6);
  });

  it('serves a method Nest adds nothing to alike from its second request on: its own context, the access check, every failure', async () => {
    for (let i = 1; i <= 3; i++) {
      const refused = await statusOf(client.call(Mine, {}, { caller: { kind: 'keyless', client_ip: '127.0.0.1' } }));
      expect([refused.code, reasonOf(refused)]).toEqual([Code.UNAUTHENTICATED, 'SESSION_REQUIRED']);
      const session = { kind: 'partner_session', client_ip: '127.0.0.1', partner_id: `p-${i}`, session_id: `s-${i}` } as const;
      await expect(client.call(Mine, {}, { caller: session })).resolves.toEqual({ partner: `p-${i}` });
      const notFound = await statusOf(client.call(Fails, { how: 'rpc' }));
      expect([notFound.code, reasonOf(notFound)]).toEqual([Code.NOT_FOUND, 'THING_NOT_FOUND']);
      expect((await statusOf(client.call(Fails, { how: 'plain' }))).code).toBe(Code.INTERNAL);
      expect((await statusOf(client.call(Fails, { how: 'reply' }))).code).toBe(Code.INTERNAL);
      expect((await statusOf(client.call(Mine, {}))).code).toBe(Code.UNAUTHENTICATED);
    }
  });

  it("serves Nest's own ClientProxy.send(contract, data) as an observable with the same checks", async () => {
    await expect(lastValueFrom(client.send(Shout, { text: 'obs' }))).resolves.toEqual({ text: 'OBS', by: 'nobody+stamp' });
    const err = await lastValueFrom(client.send(Shout, { text: '' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect((err as RpcError).status.code).toBe(Code.INVALID_ARGUMENT);
    const unknown = await lastValueFrom(client.send('nest.v1.not-a-contract', {})).catch((e: unknown) => e);
    expect(reasonOf((unknown as RpcError).status)).toBe('UNKNOWN_CONTRACT');
  });

  it('refuses to start a handler that is not bound to a contract (so no operation escapes validation and access)', async () => {
    const conn = await connectNats({ url, name: 'unbound', connectTimeoutMs: 2000, ...bus.credentials('nest-server') });
    try {
      const unbound = await NestFactory.createMicroservice<MicroserviceOptions>(UnboundModule, {
        strategy: new RpcServer(conn, 'test', log),
        logger: false,
      });
      await expect(unbound.listen()).rejects.toThrow(/nest\.v1\.unbound is not bound to a contract/);
      await unbound.close().catch(() => undefined);
    } finally {
      await conn.close();
    }
  });

  it('refuses to start an event handler, or a contract bound by two handlers', async () => {
    for (const [module, refusal] of [
      [EventModule, /nest\.v1\.event: .*requests only/],
      [TwiceModule, /nest\.v1\.shout is bound by two handlers/],
    ] as const) {
      const conn = await connectNats({ url, name: 'refused', connectTimeoutMs: 2000, ...bus.credentials('nest-server') });
      try {
        const refused = await NestFactory.createMicroservice<MicroserviceOptions>(module, {
          strategy: new RpcServer(conn, 'test', log),
          logger: false,
        });
        await expect(refused.listen()).rejects.toThrow(refusal);
        await refused.close().catch(() => undefined);
      } finally {
        await conn.close();
      }
    }
  });

  it('a closed transport stops answering at once (no responders), so a drained replica takes no new requests', async () => {
    const conn = await connectNats({ url, name: 'alone', connectTimeoutMs: 2000, ...bus.credentials('nest-server') });
    try {
      const alone = new RpcServer(conn, 'alone', log);
      alone.handle(Alone, async () => ({ up: true }));
      await conn.flush();
      await expect(client.call(Alone, {})).resolves.toEqual({ up: true });
      await alone.close();
      await conn.flush();
      const status = await statusOf(client.call(Alone, {}));
      expect([status.code, reasonOf(status)]).toEqual([Code.UNAVAILABLE, 'SERVICE_UNAVAILABLE']);
    } finally {
      await conn.close();
    }
  });
});

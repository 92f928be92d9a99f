import { Code, RpcError, errorInfo, retryInfo } from '@xchain/contracts';
import type { Logger } from '@xchain/telemetry';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Claim, IdempotencyStore, StoredAnswer } from './idempotency-store';
import { canonicalJson, fingerprintOf, idempotentHandler, type IdempotencyOutcome } from './idempotent-route';

/** The store's contract in memory: claims, answers and releases, or a Redis that does not answer. */
class MemoryStore {
  readonly entries = new Map<string, { fp: string; token: string; answer?: StoredAnswer }>();
  calls = 0;
  down = false;
  private next = 0;

  async claim(key: string, fp: string): Promise<Claim> {
    this.calls++;
    if (this.down) throw new Error('Redis did not answer');
    const e = this.entries.get(key);
    if (!e) {
      const token = `t${this.next++}`;
      this.entries.set(key, { fp, token });
      return { kind: 'claimed', token };
    }
    if (e.fp !== fp) return { kind: 'mismatch' };
    return e.answer ? { kind: 'replay', answer: e.answer } : { kind: 'in_progress', leaseLeftMs: 1000 };
  }
  async complete(key: string, token: string, answer: StoredAnswer): Promise<boolean> {
    this.calls++;
    const e = this.entries.get(key);
    if (e?.token !== token) return false;
    e.answer = answer;
    return true;
  }
  async release(key: string, token: string): Promise<boolean> {
    this.calls++;
    return this.entries.get(key)?.token === token && this.entries.delete(key);
  }
}

interface Sent {
  status?: number;
  headers: Record<string, string>;
  body?: Buffer;
}
function fakeReply(): { reply: FastifyReply; sent: Sent } {
  const sent: Sent = { headers: {} };
  const reply = {
    header: (k: string, v: string) => ((sent.headers[k] = v), reply),
    headers: (h: Record<string, string>) => (Object.assign(sent.headers, h), reply),
    status: (s: number) => ((sent.status = s), reply),
    send: (b: Buffer) => ((sent.body = b), reply),
  };
  return { reply: reply as unknown as FastifyReply, sent };
}
const req = (body: unknown, key?: string, ip = '203.0.113.5') =>
  ({ headers: key === undefined ? {} : { 'idempotency-key': key }, body, ip }) as unknown as FastifyRequest;
const log = { warn: jest.fn(), error: jest.fn(), info: jest.fn(), debug: jest.fn() } as unknown as Logger;

describe('idempotentHandler', () => {
  let store: MemoryStore;
  let outcomes: IdempotencyOutcome[];
  let runs: number;
  let result: () => Promise<unknown>;
  const handler = () =>
    idempotentHandler(
      'GetQuote',
      async () => {
        runs++;
        return result();
      },
      () => undefined,
      { store: store as unknown as IdempotencyStore, log, onOutcome: (o) => outcomes.push(o) },
    );
  const call = async (body: unknown, key?: string, ip?: string) => {
    const { reply, sent } = fakeReply();
    try {
      const out = await handler()(req(body, key, ip), reply);
      return { out, sent };
    } catch (err) {
      return { err: err as RpcError, sent };
    }
  };

  beforeEach(() => {
    store = new MemoryStore();
    outcomes = [];
    runs = 0;
    result = async () => Buffer.from('{"quote_hash":"0x01"}');
  });

  it('does not touch the store without the header', async () => {
    const { sent } = await call({ a: 1 });
    expect(sent).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: Buffer.from('{"quote_hash":"0x01"}'),
    });
    expect(store.calls).toBe(0);
  });

  it('runs once and replays the answer, marked as a replay, to the same body in any key order', async () => {
    const first = await call({ a: 1, b: [1, { c: 2, d: 3 }] }, 'k');
    const again = await call({ b: [1, { d: 3, c: 2 }], a: 1 }, 'k');
    expect(runs).toBe(1);
    expect(first.sent).toEqual({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: first.sent.body });
    expect(again.sent.body).toEqual(first.sent.body);
    expect(again.sent.headers['idempotent-replayed']).toBe('true');
    expect(outcomes).toEqual(['executed', 'replayed']);
  });

  it('refuses another body with the key, and a duplicate while the first runs', async () => {
    await call({ a: 1 }, 'k');
    const reused = await call({ a: 2 }, 'k');
    expect(reused.err?.status.details).toContainEqual(expect.objectContaining({ reason: 'IDEMPOTENCY_KEY_REUSED' }));
    expect(reused.err?.status.code).toBe(Code.ALREADY_EXISTS);
    // The first request with k2 has not answered yet when its duplicate arrives.
    let release!: () => void;
    result = () => new Promise((r) => (release = () => r(Buffer.from('{}'))));
    const held = call({ a: 1 }, 'k2');
    await new Promise((r) => setImmediate(r));
    const dup = await call({ a: 1 }, 'k2');
    expect(dup.err?.status.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ reason: 'IDEMPOTENCY_REQUEST_IN_PROGRESS' }), retryInfo(1)]),
    );
    release();
    await held;
    expect(runs).toBe(2); // k, then k2 once
  });

  it('keeps a 4xx answer with its Retry-After, but gives the key up after a 5xx so a retry runs', async () => {
    result = async () => {
      throw new RpcError(Code.FAILED_PRECONDITION, 'no route', [errorInfo('ROUTE_UNSUPPORTED')]);
    };
    await call({ a: 1 }, 'k4');
    const replay = await call({ a: 1 }, 'k4');
    expect(runs).toBe(1);
    expect(replay.sent.status).toBe(400);
    expect(JSON.parse(replay.sent.body!.toString())).toMatchObject({ code: Code.FAILED_PRECONDITION });

    result = async () => {
      throw RpcError.unavailable('quote-engine away', 'UPSTREAM_UNAVAILABLE', 2);
    };
    const failed = await call({ a: 1 }, 'k5');
    expect(failed.err?.status.code).toBe(Code.UNAVAILABLE);
    result = async () => Buffer.from('{"ok":true}');
    const retried = await call({ a: 1 }, 'k5');
    expect(runs).toBe(3);
    expect(retried.sent.status).toBe(200);
    expect(retried.sent.headers['idempotent-replayed']).toBeUndefined();
  });

  it('refuses a malformed key with 400 before the store is asked', async () => {
    for (const bad of ['', 'x'.repeat(256), 'caf\u00e9', 'a\nb']) {
      const { err } = await call({ a: 1 }, bad);
      expect(err?.status.code).toBe(Code.INVALID_ARGUMENT);
      expect(err?.status.details).toContainEqual(expect.objectContaining({ reason: 'INVALID_IDEMPOTENCY_KEY' }));
    }
    expect(store.calls).toBe(0);
    expect((await call({ a: 1 }, 'x'.repeat(255))).sent.status).toBe(200);
  });

  it('keeps callers apart: the same key from another client IP is another request', async () => {
    await call({ a: 1 }, 'k6', '203.0.113.5');
    const other = await call({ a: 2 }, 'k6', '203.0.113.6');
    expect(other.sent.status).toBe(200);
    expect(runs).toBe(2);
  });

  it('fails open when the store does not answer: the request runs, counted', async () => {
    store.down = true;
    const { sent } = await call({ a: 1 }, 'k7');
    expect(sent).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: Buffer.from('{"quote_hash":"0x01"}'),
    });
    expect(sent.headers['idempotent-replayed']).toBeUndefined();
    expect(outcomes).toEqual(['fail_open']);
    // The same handler through the rest of the outage: counted each time, warned once.
    const h = handler();
    (log.warn as jest.Mock).mockClear();
    for (let i = 0; i < 3; i++) await h(req({ a: 1 }, 'k8'), fakeReply().reply);
    expect(outcomes).toHaveLength(4);
    expect(log.warn).toHaveBeenCalledTimes(1);
  });

  it('fingerprints canonical JSON of the operation and body', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 's'] })).toBe('{"a":[true,null,"s"],"b":1}');
    expect(fingerprintOf('GetQuote', { a: 1 })).not.toBe(fingerprintOf('SubmitGaslessOrder', { a: 1 }));
  });
});

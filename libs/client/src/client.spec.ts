import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HTTP_OPERATIONS, buildOpenApiDocument } from '@xchain/contracts';
import { XchainClient } from './client';
import { XchainApiError, XchainNetworkError, XchainResponseError, XchainTimeoutError } from './errors';
import { CLIENT_OPERATIONS, type OperationId, methodName } from './operations';

interface Sent {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | undefined;
}

/** A fetch that records the request and answers with `answer`. */
const recorder = (answer: () => Response) => {
  const sent: Sent[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    sent.push({
      method: init!.method!,
      url: new URL(String(input)),
      headers: { ...(init!.headers as Record<string, string>) },
      body: init!.body as string | undefined,
    });
    return answer();
  }) as typeof fetch;
  return { sent, fetchImpl };
};

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

type DocParam = { name: string; in: string; required: boolean };
type DocOp = { operationId: string; parameters: DocParam[]; requestBody?: unknown; security?: Record<string, unknown>[] };

describe('XchainClient against the served OpenAPI document', () => {
  const doc = buildOpenApiDocument(HTTP_OPERATIONS, { title: 't', version: '1', serverUrl: 'http://gw' }) as {
    paths: Record<string, Record<string, DocOp>>;
  };

  it.each(Object.keys(CLIENT_OPERATIONS) as OperationId[])('sends %s as the document describes it', async (id) => {
    const entry = Object.entries(doc.paths)
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })))
      .find((e) => e.op.operationId === id);
    expect(entry).toBeDefined();
    const { path, method, op } = entry!;
    const { sent, fetchImpl } = recorder(() => json(400, { code: 3, message: 'stop here', details: [] }));
    const client = new XchainClient({ baseUrl: 'http://gw/', apiKey: 'xk_key', sessionToken: 'xps_token', fetch: fetchImpl });
    // a value for every documented path and query parameter, distinct per name
    const params = Object.fromEntries(op.parameters.filter((p) => p.in !== 'header').map((p) => [p.name, `v-${p.name}`]));
    const spec = CLIENT_OPERATIONS[id] as Record<string, unknown>;
    const args: unknown[] = [];
    if (spec['pathParams'] || spec['query']) args.push(params);
    if (spec['body']) args.push({ probe: true });
    const fn = (client as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[methodName(id)]!;
    await expect(fn(...args)).rejects.toBeInstanceOf(XchainApiError);

    const req = sent[0]!;
    expect(req.method.toLowerCase()).toBe(method);
    const filled = path.replace(/\{(\w+)\}/g, (_, n: string) => `v-${n}`);
    expect(req.url.pathname).toBe(filled);
    const query = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
    expect([...req.url.searchParams.keys()].sort()).toEqual([...query].sort());
    expect(req.body !== undefined).toBe(op.requestBody !== undefined);
    if (req.body !== undefined) expect(JSON.parse(req.body)).toEqual({ probe: true });
    // credentials go exactly where the document's security says
    const bearer = op.security?.some((s) => 'bearer' in s) ?? false;
    const apiKey = op.security?.some((s) => 'apiKey' in s) ?? false;
    expect(req.headers['authorization']).toBe(bearer ? 'Bearer xps_token' : undefined);
    expect(req.headers['x-api-key']).toBe(apiKey ? 'xk_key' : undefined);
  });

  it('opens StreamOrderEvents as the document describes it', async () => {
    const [path, methods] = Object.entries(doc.paths).find(([, m]) => m['get']?.operationId === 'StreamOrderEvents')!;
    const op = methods['get']!;
    const { sent, fetchImpl } = recorder(() => json(400, { code: 3, message: 'stop here', details: [] }));
    const stream = new XchainClient({
      baseUrl: 'http://gw',
      apiKey: 'xk_key',
      sessionToken: 'xps_token',
      fetch: fetchImpl,
    }).streamOrderEvents('v-quote_hash');
    await expect(stream.next()).rejects.toBeInstanceOf(XchainApiError);
    expect(sent[0]!.url.pathname).toBe(path.replace('{quote_hash}', 'v-quote_hash'));
    expect(op.parameters.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(['quote_hash']);
    expect(op.security?.some((s) => 'apiKey' in s)).toBe(true);
    expect([sent[0]!.headers['x-api-key'], sent[0]!.headers['authorization']]).toEqual(['xk_key', undefined]);
  });

  it('sends an idempotency key to the operations whose document takes one, and refuses it elsewhere', async () => {
    const takers = Object.values(doc.paths)
      .flatMap((methods) => Object.values(methods))
      .filter((op) => op.parameters.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'))
      .map((op) => op.operationId);
    expect(takers.sort()).toEqual(['GetQuote', 'SubmitGaslessOrder']);
    const { sent, fetchImpl } = recorder(() => json(400, { code: 3, message: 'stop here', details: [] }));
    const client = new XchainClient({ baseUrl: 'http://gw', fetch: fetchImpl });
    await expect(client.getQuote({ probe: true } as never, { idempotencyKey: 'k-1' })).rejects.toBeInstanceOf(XchainApiError);
    expect(sent[0]!.headers['idempotency-key']).toBe('k-1');
    await expect(client.previewQuote({ probe: true } as never, { idempotencyKey: 'k-2' })).rejects.toThrow(/takes no idempotency key/);
    expect(sent).toHaveLength(1);
  });
});

describe('XchainClient base URL', () => {
  it.each([
    'http://127.0.0.1:8080',
    'http://127.0.0.1:8080/',
    'http://127.0.0.1:8080/json/v1',
    'http://127.0.0.1:8080/json/v1/',
    'http://127.0.0.1:8080/json/v1//',
  ])('reaches the same paths from %s (the origin, or the API root npm start prints)', async (baseUrl) => {
    const { sent, fetchImpl } = recorder(() => json(200, { chains: [] }));
    const client = new XchainClient({ baseUrl, fetch: fetchImpl });
    await client.getChains();
    await expect(client.getQuote({ probe: true } as never)).rejects.toBeInstanceOf(XchainResponseError);
    const stream = client.streamOrderEvents(`0x${'ab'.repeat(32)}`);
    await stream.next().catch(() => undefined);
    expect(sent.map((r) => r.url.href)).toEqual([
      'http://127.0.0.1:8080/json/v1/chains',
      'http://127.0.0.1:8080/json/v1/quote',
      `http://127.0.0.1:8080/json/v1/orders/0x${'ab'.repeat(32)}/events`,
    ]);
  });

  it('keeps a path in front of the API root (a gateway behind a prefix)', async () => {
    const { sent, fetchImpl } = recorder(() => json(200, { chains: [] }));
    await new XchainClient({ baseUrl: 'https://example.test/swap/json/v1/', fetch: fetchImpl }).getChains();
    await new XchainClient({ baseUrl: 'https://example.test/swap', fetch: fetchImpl }).getChains();
    expect(sent.map((r) => r.url.href)).toEqual(['https://example.test/swap/json/v1/chains', 'https://example.test/swap/json/v1/chains']);
  });
});

describe('XchainClient answers and errors', () => {
  it('returns the value its response schema gives, and the raw answer through call()', async () => {
    const { fetchImpl } = recorder(() => json(200, { chains: [], extra: 'ignored' }));
    const client = new XchainClient({ baseUrl: 'http://gw', fetch: fetchImpl });
    expect(await client.getChains()).toEqual({ chains: [] });
    const full = await client.call('GetChains');
    expect(full).toMatchObject({ status: 200, data: { chains: [] }, body: { chains: [], extra: 'ignored' } });
  });

  it('fails loudly when a 2xx answer does not match the response schema', async () => {
    const { fetchImpl } = recorder(() => json(200, { chains: 'not a list' }));
    const err = await new XchainClient({ baseUrl: 'http://gw', fetch: fetchImpl }).getChains().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(XchainResponseError);
    expect((err as Error).message).toMatch(/GetChains: answer does not match its response schema \(chains: /);
  });

  it('turns a google.rpc.Status into an XchainApiError with its reason, metadata, fields and retry delay', async () => {
    const status = {
      code: 14,
      message: 'bridge suspended',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'BRIDGE_SUSPENDED',
          domain: 'xchain.api',
          metadata: { chain: 'bsc' },
        },
        { '@type': 'type.googleapis.com/google.rpc.BadRequest', field_violations: [{ field: 'dst_chain', description: 'suspended' }] },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retry_delay: '7s' },
      ],
    };
    const { fetchImpl } = recorder(() => json(503, status, { 'retry-after': '3' }));
    const err = (await new XchainClient({ baseUrl: 'http://gw', fetch: fetchImpl })
      .getOrder({ quote_hash: '0xab' })
      .catch((e: unknown) => e)) as XchainApiError;
    expect(err).toBeInstanceOf(XchainApiError);
    expect({ ...err, fields: err.fields, message: err.message }).toMatchObject({
      operationId: 'GetOrder',
      httpStatus: 503,
      code: 14,
      message: 'bridge suspended',
      reason: 'BRIDGE_SUSPENDED',
      metadata: { chain: 'bsc' },
      fields: ['dst_chain'],
      retryAfterSecs: 7,
      status,
    });
  });

  it('takes the retry delay from Retry-After when the Status has no RetryInfo', async () => {
    const { fetchImpl } = recorder(() => json(429, { code: 8, message: 'slow down', details: [] }, { 'retry-after': '2' }));
    const err = (await new XchainClient({ baseUrl: 'http://gw', fetch: fetchImpl })
      .listTokens()
      .catch((e: unknown) => e)) as XchainApiError;
    expect([err.code, err.reason, err.retryAfterSecs, err.metadata]).toEqual([8, undefined, 2, {}]);
  });

  it('reports an error body that is not a Status as a response error', async () => {
    const { fetchImpl } = recorder(() => new Response('<html>bad gateway</html>', { status: 502 }));
    const err = await new XchainClient({ baseUrl: 'http://gw', fetch: fetchImpl }).listTokens().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(XchainResponseError);
    expect((err as XchainResponseError).httpStatus).toBe(502);
  });

  it('reports a refused connection as a network error', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    const err = await new XchainClient({ baseUrl: `http://127.0.0.1:${port}` }).listTokens().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(XchainNetworkError);
  });

  it('gives up after timeoutMs on a server that never answers, with a timeout error', async () => {
    const server = createServer(() => undefined); // accepts, never answers
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const err = await new XchainClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 200 }).listTokens().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(XchainTimeoutError);
      expect((err as XchainTimeoutError).timeoutMs).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it("rethrows the caller's own abort", async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const ctl = new AbortController();
      const pending = new XchainClient({ baseUrl: `http://127.0.0.1:${port}` }).listTokens({ signal: ctl.signal }).catch((e: unknown) => e);
      ctl.abort(new Error('caller gave up'));
      expect(((await pending) as Error).message).toBe('caller gave up');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

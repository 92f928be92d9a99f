import { XchainClient } from './client';
import { XchainApiError, XchainTimeoutError } from './errors';
import { fetchFrom } from './source-address';
import { serve } from './testing';

const HASH = `0x${'ab'.repeat(32)}`;

describe('XchainClient localAddress', () => {
  it('sends each client from its own source address, the request otherwise as the default fetch sends it', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json', 'ratelimit-remaining': '3' });
      res.end(
        JSON.stringify({
          code: 3,
          message: 'refused',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'AMOUNT_BELOW_MIN',
              domain: 'xchain.api',
              metadata: { min_amount: '1' },
            },
          ],
        }),
      );
    });
    try {
      const body = { src_chain: 'ethereum', amount: 'ünïcode' };
      const outcomes = await Promise.all(
        ['127.0.0.2', '127.0.0.3'].map((localAddress) =>
          new XchainClient({ baseUrl: s.url, apiKey: 'xk_key', localAddress })
            .previewQuote(body as never, { headers: { 'x-forwarded-for': '198.51.100.1' } })
            .catch((e: unknown) => e),
        ),
      );
      expect(s.seen.map((r) => r.from).sort()).toEqual(['127.0.0.2', '127.0.0.3']);
      for (const r of s.seen) {
        expect([r.method, r.url, JSON.parse(r.body)]).toEqual(['POST', '/json/v1/quote/preview', body]);
        expect(r.headers).toMatchObject({
          'x-api-key': 'xk_key',
          'x-forwarded-for': '198.51.100.1',
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(r.body)),
        });
      }
      // the answer is read as through the default fetch: a typed error with its headers
      for (const err of outcomes) {
        expect(err).toBeInstanceOf(XchainApiError);
        expect([
          (err as XchainApiError).reason,
          (err as XchainApiError).metadata,
          (err as XchainApiError).headers.get('ratelimit-remaining'),
        ]).toEqual(['AMOUNT_BELOW_MIN', { min_amount: '1' }, '3']);
      }
      // and without the option, the default fetch goes from 127.0.0.1
      await new XchainClient({ baseUrl: s.url }).listTokens().catch(() => undefined);
      expect(s.seen.at(-1)!.from).toBe('127.0.0.1');
    } finally {
      await s.close();
    }
  });

  it('returns a 2xx answer, its status and headers through call()', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'r1' });
      res.end(JSON.stringify({ chains: [] }));
    });
    try {
      const r = await new XchainClient({ baseUrl: s.url, localAddress: '127.0.0.4' }).call('GetChains');
      expect([r.status, r.headers.get('x-request-id'), r.data]).toEqual([200, 'r1', { chains: [] }]);
      expect(s.seen[0]!.from).toBe('127.0.0.4');
    } finally {
      await s.close();
    }
  });

  it('streams order events through it, and stops when the caller aborts', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n'); // then stays open, events or not
    });
    try {
      const ctl = new AbortController();
      const comments: string[] = [];
      const stream = new XchainClient({ baseUrl: s.url, localAddress: '127.0.0.5' }).streamOrderEvents(HASH, {
        signal: ctl.signal,
        onComment: (c) => {
          comments.push(c);
          ctl.abort();
        },
      });
      const got: unknown[] = [];
      for await (const e of stream) got.push(e);
      expect([got, comments, s.seen[0]!.from]).toEqual([[], ['open'], '127.0.0.5']);
    } finally {
      await s.close();
    }
  });

  it('gives up after timeoutMs on a server that never answers', async () => {
    const s = await serve(() => undefined);
    try {
      const err = await new XchainClient({ baseUrl: s.url, localAddress: '127.0.0.6', timeoutMs: 200 })
        .listTokens()
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(XchainTimeoutError);
    } finally {
      await s.close();
    }
  });

  it('refuses a source address together with a fetch of its own, and what it cannot send', async () => {
    expect(() => new XchainClient({ baseUrl: 'http://127.0.0.1:1', fetch, localAddress: '127.0.0.2' })).toThrow(
      /either fetch or localAddress/,
    );
    const bound = fetchFrom('127.0.0.2');
    await expect(bound('ftp://127.0.0.1/x')).rejects.toThrow(/unsupported protocol/);
    await expect(bound('http://127.0.0.1:1/x', { method: 'POST', body: new Uint8Array([1]) })).rejects.toThrow(/string bodies only/);
  });
});

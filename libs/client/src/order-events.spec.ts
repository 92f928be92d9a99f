import { XchainClient } from './client';
import { XchainApiError, XchainResponseError } from './errors';
import { serve } from './testing';

const HASH = `0x${'ab'.repeat(32)}`;
const view = (status: string) => ({
  quote_hash: HASH,
  status,
  terminal: status === 'fulfilled' || status === 'refunded' || status === 'expired',
  src_chain: 'ethereum',
  dst_chain: 'arbitrum',
  src_token: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
  dst_token: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
  amount_in: '1000000',
  amount_out: '990000',
  min_amount_out: '985000',
  quoted_at: '2026-11-23T10:00:00Z',
  expires_at: '2026-11-23T10:30:00Z',
  retained_until: '2026-11-30T10:00:00Z',
});

describe('XchainClient.streamOrderEvents', () => {
  it('yields each order view with its id, skipping heartbeats and other events, resuming with Last-Event-ID', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('retry: 2000\n\n: heartbeat\n\n');
      res.write(`id: e1\nevent: order\ndata: ${JSON.stringify(view('quoted'))}\n\n`);
      res.write('event: other\ndata: {}\n\n');
      // one event split across two writes, CRLF line ends
      const second = `id: e2\r\nevent: order\r\ndata: ${JSON.stringify(view('deposited'))}\r\n\r\n`;
      res.write(second.slice(0, 20));
      res.end(second.slice(20));
    });
    try {
      const got: [string | undefined, string][] = [];
      const client = new XchainClient({ baseUrl: s.url, apiKey: 'xk_key' });
      for await (const e of client.streamOrderEvents(HASH, { lastEventId: 'e0' })) got.push([e.id, e.order.status]);
      expect(got).toEqual([
        ['e1', 'quoted'],
        ['e2', 'deposited'],
      ]);
      const req = s.seen[0]!;
      expect(req.url).toBe(`/json/v1/orders/${HASH}/events`);
      expect([req.headers['last-event-id'], req.headers['x-api-key'], req.headers['accept']]).toEqual([
        'e0',
        'xk_key',
        'text/event-stream',
      ]);
    } finally {
      await s.close();
    }
  });

  it('reports the opened stream and each heartbeat comment to the callbacks', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req-1' });
      res.write(': hello\n\n');
      res.write(`id: e1\nevent: order\ndata: ${JSON.stringify(view('quoted'))}\n:tick\n\n`);
      res.end(': bye\n\n');
    });
    try {
      const log: string[] = [];
      const stream = new XchainClient({ baseUrl: s.url }).streamOrderEvents(HASH, {
        onOpen: ({ status, headers }) => log.push(`open ${status} ${headers.get('x-request-id')}`),
        onComment: (text) => log.push(`comment ${text}`),
      });
      for await (const e of stream) log.push(`event ${e.id}`);
      expect(log).toEqual(['open 200 req-1', 'comment hello', 'comment tick', 'event e1', 'comment bye']);
    } finally {
      await s.close();
    }
  });

  it('does not report a refused stream as opened', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 5, message: 'no such quote', details: [] }));
    });
    try {
      const opened: number[] = [];
      const it = new XchainClient({ baseUrl: s.url }).streamOrderEvents(HASH, { onOpen: ({ status }) => opened.push(status) });
      await expect(it.next()).rejects.toBeInstanceOf(XchainApiError);
      expect(opened).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('throws the Status of a refusal before the stream opens', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          code: 8,
          message: 'too many',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TOO_MANY_STREAMS', domain: 'xchain.api' }],
        }),
      );
    });
    try {
      const it = new XchainClient({ baseUrl: s.url }).streamOrderEvents(HASH);
      const err = await it.next().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(XchainApiError);
      expect((err as XchainApiError).reason).toBe('TOO_MANY_STREAMS');
    } finally {
      await s.close();
    }
  });

  it('fails loudly on an order event that does not match the schema', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: order\ndata: ${JSON.stringify({ ...view('quoted'), status: 'teleported' })}\n\n`);
    });
    try {
      const it = new XchainClient({ baseUrl: s.url }).streamOrderEvents(HASH);
      await expect(it.next()).rejects.toBeInstanceOf(XchainResponseError);
    } finally {
      await s.close();
    }
  });

  it('stops quietly when the caller aborts an open stream', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`id: e1\nevent: order\ndata: ${JSON.stringify(view('quoted'))}\n\n`); // then stays open
    });
    try {
      const ctl = new AbortController();
      const got: string[] = [];
      for await (const e of new XchainClient({ baseUrl: s.url }).streamOrderEvents(HASH, { signal: ctl.signal })) {
        got.push(e.order.status);
        ctl.abort();
      }
      expect(got).toEqual(['quoted']);
    } finally {
      await s.close();
    }
  });
});

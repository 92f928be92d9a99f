import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { AddressGuard } from './address-guard';
import { httpSender } from './webhook-sender';

/** A receiver on a free loopback port that answers as `reply` says and records what it got. */
async function receiver(reply: (req: IncomingMessage, res: ServerResponse) => void) {
  const got: { headers: IncomingMessage['headers']; body: string }[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      reply(req, res);
    });
  });
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    got,
    close: () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}

describe('webhook sender', () => {
  const send = httpSender(new AddressGuard(true), 300);
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });

  it('posts the body with the headers it is given and reports a 2xx as delivered', async () => {
    const r = await receiver((_q, res) => res.writeHead(204).end());
    closers.push(r.close);
    await expect(send(r.url, '{"a":1}', { 'content-type': 'application/json', 'x-xchain-event-id': 'e1' })).resolves.toEqual({
      ok: true,
      statusCode: 204,
    });
    expect(r.got).toEqual([
      {
        headers: expect.objectContaining({ 'content-type': 'application/json', 'x-xchain-event-id': 'e1', 'content-length': '7' }),
        body: '{"a":1}',
      },
    ]);
  });

  it('reports other statuses, and does not follow a redirect', async () => {
    const target = await receiver((_q, res) => res.writeHead(200).end());
    const r = await receiver((req, res) =>
      req.url === '/500' ? res.writeHead(500).end('boom') : res.writeHead(302, { location: target.url }).end(),
    );
    closers.push(r.close, target.close);
    await expect(send(`${r.url.replace('/hook', '/500')}`, '{}', {})).resolves.toEqual({
      ok: false,
      statusCode: 500,
      error: 'answered 500',
    });
    await expect(send(r.url, '{}', {})).resolves.toEqual({ ok: false, statusCode: 302, error: 'answered 302; redirects are not followed' });
    expect(target.got).toEqual([]);
  });

  it('gives up on a receiver that never answers, at the timeout', async () => {
    const r = await receiver(() => undefined); // takes the request, never answers
    closers.push(r.close);
    const started = Date.now();
    await expect(send(r.url, '{}', {})).resolves.toEqual({ ok: false, error: 'no answer within 300 ms' });
    // The error names the timeout that fired; the bound only proves the sender gave up at all (the
    // receiver never answers), generous so a busy machine cannot fail it.
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.got).toHaveLength(1);
  }, 20_000);

  it('reports a refused connection', async () => {
    const r = await receiver(() => undefined);
    await r.close();
    const res = await send(r.url, '{}', {});
    expect(res).toMatchObject({ ok: false, error: expect.stringMatching(/^ECONNREFUSED/) });
  });

  it('refuses private addresses, by IP and by name, without connecting', async () => {
    const r = await receiver((_q, res) => res.writeHead(200).end());
    closers.push(r.close);
    const strict = httpSender(new AddressGuard(false), 300);
    await expect(strict(r.url, '{}', {})).resolves.toEqual({ ok: false, error: 'refused: 127.0.0.1 is a private address' });
    const byName = await strict(`http://localhost:${r.port}/hook`, '{}', {});
    expect(byName).toMatchObject({ ok: false, error: expect.stringMatching(/^refused: localhost resolves to .*a private address$/) });
    expect(r.got).toEqual([]);
  });
});

import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RawConnection, parseResponse, rawTarget } from './raw-http';

const bytes = (s: string) => Buffer.from(s, 'latin1');

describe('rawTarget', () => {
  it('builds the request node:http would send, body length included', () => {
    const t = rawTarget({
      url: 'http://127.0.0.1:8080/json/v1/quote?x=1',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":"é"}',
    });
    expect(t).toMatchObject({ host: '127.0.0.1', port: 8080 });
    expect(t.request.toString('utf8')).toBe(
      'POST /json/v1/quote?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nConnection: keep-alive\r\ncontent-type: application/json\r\nContent-Length: 10\r\n\r\n{"a":"é"}',
    );
  });

  it('sends a GET without a body or its length, and refuses anything but plain HTTP', () => {
    expect(rawTarget({ url: 'http://localhost:9/json/v1/chains' }).request.toString()).toBe(
      'GET /json/v1/chains HTTP/1.1\r\nHost: localhost:9\r\nConnection: keep-alive\r\n\r\n',
    );
    expect(() => rawTarget({ url: 'https://localhost/' })).toThrow('plain HTTP only');
  });
});

describe('parseResponse', () => {
  const head = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n';

  it('waits for the whole head and the whole Content-Length body', () => {
    expect(parseResponse(bytes('HTTP/1.1 200 OK\r\ncontent-len'))).toBeUndefined();
    expect(parseResponse(bytes(`${head}content-length: 5\r\n\r\nabc`))).toBeUndefined();
    const full = bytes(`${head}Content-Length: 5\r\n\r\nabcdeHTTP/1.1`);
    expect(parseResponse(full)).toEqual({ status: 200, end: full.length - 'HTTP/1.1'.length, close: false });
  });

  it('follows chunked bodies to their last chunk', () => {
    const body = '4\r\nabcd\r\n3\r\nefg\r\n0\r\n\r\n';
    const whole = bytes(`HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\n${body}`);
    for (let cut = whole.length - body.length; cut < whole.length; cut++) expect(parseResponse(whole.subarray(0, cut))).toBeUndefined();
    expect(parseResponse(whole)).toEqual({ status: 201, end: whole.length, close: false });
  });

  it('ends a 204 at its head, and reports a server that closes the connection', () => {
    const r = bytes('HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n');
    expect(parseResponse(r)).toEqual({ status: 204, end: r.length, close: true });
  });

  it('throws on what it cannot delimit', () => {
    expect(() => parseResponse(bytes('SSH-2.0-OpenSSH\r\n\r\n'))).toThrow('not an HTTP/1.x response');
    expect(() => parseResponse(bytes(`${head}\r\n`))).toThrow('neither Content-Length nor chunked');
    expect(() => parseResponse(bytes('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n'))).toThrow('malformed chunked body');
  });
});

describe('RawConnection against a node:http server', () => {
  let server: Server;
  let port: number;
  let handler: (req: IncomingMessage, res: ServerResponse, body: string) => void;
  const connections: number[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => handler(req, res, body));
    });
    server.on('connection', () => connections.push(Date.now()));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  beforeEach(() => {
    connections.length = 0;
  });

  it('sends request after request on one keep-alive connection, each body intact, and returns each status', async () => {
    const seen: string[] = [];
    handler = (req, res, body) => {
      seen.push(`${req.method} ${req.url} ${req.headers['content-type']} ${body}`);
      res.writeHead(seen.length % 2 ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ n: seen.length }));
    };
    const conn = new RawConnection(
      rawTarget({ url: `http://127.0.0.1:${port}/echo`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"k":1}' }),
    );
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push(await conn.send());
    expect(statuses).toEqual([200, 404, 200, 404, 200]);
    expect(seen).toEqual(Array(5).fill('POST /echo application/json {"k":1}'));
    expect(connections).toHaveLength(1);
    expect(conn.usable).toBe(true);
    conn.close();
  });

  it('reads a chunked answer, and is no longer usable once the server closes the connection', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { connection: 'close' });
      res.write('part one, ');
      setTimeout(() => res.end('part two'), 5);
    };
    const conn = new RawConnection(rawTarget({ url: `http://127.0.0.1:${port}/` }));
    await expect(conn.send()).resolves.toBe(200);
    expect(conn.usable).toBe(false);
    await expect(conn.send()).rejects.toThrow();
  });

  it('fails a request the server never answers at its deadline, and refuses a second one in flight', async () => {
    handler = () => undefined;
    const conn = new RawConnection(rawTarget({ url: `http://127.0.0.1:${port}/` }), 100);
    const first = conn.send();
    await expect(conn.send()).rejects.toThrow('already in flight');
    await expect(first).rejects.toThrow('timeout');
    expect(conn.usable).toBe(false);
  });

  it('fails when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const free = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect(new RawConnection(rawTarget({ url: `http://127.0.0.1:${free}/` })).send()).rejects.toThrow(/ECONNREFUSED/);
  });
});

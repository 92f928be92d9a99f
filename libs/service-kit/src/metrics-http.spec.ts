import Fastify from 'fastify';
import { Registry } from 'prom-client';
import { Metrics } from './metrics';
import { UNMATCHED_ROUTE, installHttpMetrics, methodLabel, serveMetrics } from './metrics-http';

function countOf(text: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`http_requests_total{${labels}} `));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('HTTP metrics', () => {
  /** A real server on a loopback port (light-my-request's ESM dependencies do not load under Jest). */
  async function server() {
    const metrics = new Metrics(new Registry());
    const f = Fastify();
    installHttpMetrics(f, metrics);
    serveMetrics(f, metrics);
    f.get('/json/v1/orders/:quote_hash', async () => ({ ok: true }));
    f.post('/json/v1/quote', async (_req, reply) => reply.status(400).send({ code: 3 }));
    const base = await f.listen({ port: 0, host: '127.0.0.1' });
    const app = {
      async inject(o: { method: string; url: string; payload?: unknown }) {
        const res = await fetch(`${base}${o.url}`, {
          method: o.method,
          ...(o.payload !== undefined ? { body: JSON.stringify(o.payload), headers: { 'content-type': 'application/json' } } : {}),
        });
        return {
          statusCode: res.status,
          headers: Object.fromEntries(res.headers) as Record<string, string | undefined>,
          body: await res.text(),
        };
      },
      close: () => f.close(),
    };
    return { app, metrics };
  }

  it('labels a request with its route pattern, never the raw URL, so paths cannot multiply the series', async () => {
    const { app } = await server();
    for (const id of ['0xaa', '0xbb', '0xcc'])
      expect((await app.inject({ method: 'GET', url: `/json/v1/orders/${id}?x=${id}` })).statusCode).toBe(200);
    await app.inject({ method: 'POST', url: '/json/v1/quote', payload: {} });
    for (const path of ['/nope', '/json/v1/nope/1', '/a/b/c/d'])
      expect((await app.inject({ method: 'GET', url: path })).statusCode).toBe(404);
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(countOf(text, 'method="GET",route="/json/v1/orders/:quote_hash",status="200"')).toBe(3);
    expect(countOf(text, 'method="POST",route="/json/v1/quote",status="400"')).toBe(1);
    expect(countOf(text, `method="GET",route="${UNMATCHED_ROUTE}",status="404"`)).toBe(3);
    expect(text).not.toContain('0xaa');
    expect(text).not.toContain('/nope');
    expect(text).toContain(
      'http_request_duration_seconds_bucket{le="0.005",method="GET",route="/json/v1/orders/:quote_hash",status="200"}',
    );
    await app.close();
  });

  it('serves the Prometheus text format at /metrics', async () => {
    const { app } = await server();
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.body).toContain('# TYPE http_requests_total counter');
    await app.close();
  });

  it('keeps methods to a fixed set', () => {
    expect(methodLabel('GET')).toBe('GET');
    expect(methodLabel('PROPFIND')).toBe('OTHER');
  });
});

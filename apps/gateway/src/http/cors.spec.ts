import Fastify from 'fastify';
import { installCors } from './cors';

/** A real server on a loopback port (light-my-request's ESM dependencies do not load under Jest). */
async function app(origins: string[]) {
  const f = Fastify();
  installCors(f, origins);
  f.get('/x', async () => ({ ok: true }));
  const base = await f.listen({ port: 0, host: '127.0.0.1' });
  return {
    async inject(o: { method?: string; url: string; headers: Record<string, string> }) {
      const res = await fetch(`${base}${o.url}`, { method: o.method ?? 'GET', headers: o.headers });
      await res.arrayBuffer();
      return { statusCode: res.status, headers: Object.fromEntries(res.headers) as Record<string, string | undefined> };
    },
    close: () => f.close(),
  };
}

describe('CORS', () => {
  it('echoes an allowed origin, varies on Origin, and gives nothing to another origin', async () => {
    const f = await app(['https://app.example', 'https://wallet.example']);
    const ok = await f.inject({ url: '/x', headers: { origin: 'https://wallet.example' } });
    expect(ok.headers['access-control-allow-origin']).toBe('https://wallet.example');
    expect(ok.headers['vary']).toBe('origin');
    const other = await f.inject({ url: '/x', headers: { origin: 'https://evil.example' } });
    expect(other.statusCode).toBe(200); // CORS is the browser's guard; the server still answers
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await f.inject({
      method: 'OPTIONS',
      url: '/x',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers['access-control-allow-methods']).toBeUndefined();
    await f.close();
  });

  it('answers a preflight from an allowed origin with the methods and headers the API uses', async () => {
    const f = await app(['*']);
    const r = await f.inject({
      method: 'OPTIONS',
      url: '/anything',
      headers: { origin: 'https://a.example', 'access-control-request-method': 'POST' },
    });
    expect(r.statusCode).toBe(204);
    expect(r.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD, POST, PUT, DELETE',
      'access-control-max-age': '600',
    });
    expect(r.headers['vary']).toBeUndefined();
    await f.close();
  });

  it('adds nothing when no origin is allowed', async () => {
    const f = await app([]);
    const r = await f.inject({ url: '/x', headers: { origin: 'https://app.example' } });
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
    await f.close();
  });
});

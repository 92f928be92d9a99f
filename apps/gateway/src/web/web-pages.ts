import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The browser pages (apps/web, built into dist/web by scripts/build.sh): the order explorer at
 * /explorer/ and the partner console at /console/, each one HTML document whatever the path under
 * it (the page routes itself), and their hashed assets under /web/assets/. Everything is read into
 * memory once at start (a few hundred kilobytes), gzipped too.
 *
 * The documents carry a strict Content-Security-Policy: scripts, styles and connections from this
 * origin only (the pages call the API here, through @xchain/client), no inline script or style, no
 * eval, no frames, no plugins.
 */
export const WEB_PAGES = { explorer: '/explorer', console: '/console' } as const;
export const WEB_ASSETS_PREFIX = '/web/assets/';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

interface WebFile {
  type: string;
  body: Buffer;
  gzip: Buffer;
}

function load(path: string): WebFile {
  const body = readFileSync(path);
  return { type: TYPES[extname(path)] ?? 'application/octet-stream', body, gzip: gzipSync(body, { level: 9 }) };
}

/** Where scripts/build.sh writes the pages, from this file's place in dist/ (the images keep the same layout). */
export const DEFAULT_WEB_DIR = join(__dirname, '../../../../web');

/**
 * Registers the pages on the gateway's Fastify; returns the paths served, for the route table.
 * Without a build (`dir` missing) nothing is registered: the paths answer 404 like any unknown one.
 */
export function installWebPages(fastify: FastifyInstance, dir: string): string[] {
  if (!existsSync(join(dir, 'explorer/index.html'))) return [];
  const assets = new Map<string, WebFile>();
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) for (const name of readdirSync(assetDir)) assets.set(name, load(join(assetDir, name)));

  const send = (req: FastifyRequest, reply: FastifyReply, file: WebFile, cache: string) => {
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    reply.header('content-type', file.type).header('cache-control', cache).header('vary', 'accept-encoding');
    if (gzip) reply.header('content-encoding', 'gzip');
    return reply.send(gzip ? file.gzip : file.body);
  };

  const served: string[] = [];
  for (const [name, prefix] of Object.entries(WEB_PAGES)) {
    const page = load(join(dir, name, 'index.html'));
    const handler = (req: FastifyRequest, reply: FastifyReply) => {
      reply.headers(SECURITY_HEADERS);
      // The document names the current assets, so it is checked again on every visit.
      return send(req, reply, page, 'no-cache');
    };
    for (const path of [prefix, `${prefix}/`, `${prefix}/*`]) fastify.get(path, handler);
    served.push(prefix, `${prefix}/*`);
  }
  fastify.get(`${WEB_ASSETS_PREFIX}:name`, (req: FastifyRequest<{ Params: { name: string } }>, reply) => {
    const file = assets.get(req.params.name);
    if (!file) {
      reply.headers(SECURITY_HEADERS);
      return reply.code(404).type('text/plain; charset=utf-8').send('not found');
    }
    reply.header('x-content-type-options', 'nosniff');
    // Each name carries a hash of its content: it never changes.
    return send(req, reply, file, 'public, max-age=31536000, immutable');
  });
  served.push(`${WEB_ASSETS_PREFIX}*`);
  return served;
}

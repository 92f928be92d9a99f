// The order explorer and the partner console: one Vite build, two pages (explorer/, console/)
// sharing their chunks, written to dist/web and served by the gateway (apps/gateway/src/web).
// `@xchain/client` is the package's published browser build (dist/libs/client-pkg, made by
// `npm run client:pack`, which scripts/build.sh runs first), never the library's sources.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const pkgDir = join(root, 'dist/libs/client-pkg');

function clientBrowserEntry() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  } catch {
    throw new Error(`no client package at ${pkgDir}: run npm run client:pack (scripts/build.sh does) first`);
  }
  const entry = manifest.exports?.['.']?.browser;
  if (typeof entry !== 'string') throw new Error('the client package has no browser export');
  return join(pkgDir, entry);
}

export default defineConfig({
  root: here,
  base: '/web/',
  logLevel: 'warn',
  resolve: { alias: { '@xchain/client': clientBrowserEntry() } },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: join(root, 'dist/web'),
    emptyOutDir: true,
    target: 'es2022',
    // The polyfill would be a script of its own; every browser we support preloads modules.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    rollupOptions: {
      input: { explorer: join(here, 'explorer/index.html'), console: join(here, 'console/index.html') },
      output: { chunkFileNames: 'assets/shared-[hash].js', assetFileNames: 'assets/[name]-[hash][extname]' },
    },
  },
});

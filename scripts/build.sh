#!/usr/bin/env bash
# Generates the Prisma clients, compiles every app, lib and tool with swc into dist/, then packs
# @xchain/client and bundles the browser pages (the explorer and the console) against its browser
# build into dist/web, which the gateway serves.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
# A few lines of npm packages rewritten for speed, same behaviour (scripts/patch-deps.cjs says which and why).
node scripts/patch-deps.cjs
# The CLI would download a schema engine that `generate` does not need; point it at a no-op.
for cfg in prisma/*/prisma.config.ts; do
  PRISMA_SCHEMA_ENGINE_BINARY=/bin/false PRISMA_HIDE_UPDATE_MESSAGE=1 prisma generate --config "$cfg" >/dev/null 2>&1 || PRISMA_SCHEMA_ENGINE_BINARY=/bin/false prisma generate --config "$cfg"
done
rm -rf dist
swc apps libs prisma tools contracts test -d dist --ignore '**/*.spec.ts' --ignore 'apps/web/**' --quiet
node dist/tools/client-pkg/src/main.js >/dev/null
vite build --config apps/web/vite.config.mjs

#!/usr/bin/env bash
# The fast inner loop: the unit suites only, with no build, lint or server. The one thing they need
# is the Prisma clients (their types and enums), generated here when a schema is newer than its client,
# and the dependency patches (npm install's postinstall applies them; again here, in case the packages
# were installed with --ignore-scripts: idempotent, and quiet when nothing is left to patch).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
node scripts/patch-deps.cjs
for cfg in prisma/*/prisma.config.ts; do
  dir=$(dirname "$cfg")
  if [ ! -f "$dir/generated/client.ts" ] || [ "$dir/schema.prisma" -nt "$dir/generated/client.ts" ]; then
    PRISMA_SCHEMA_ENGINE_BINARY=/bin/false PRISMA_HIDE_UPDATE_MESSAGE=1 prisma generate --config "$cfg" >/dev/null
  fi
done
exec jest --selectProjects unit "$@"

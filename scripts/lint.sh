#!/usr/bin/env bash
# Prettier checks the formatting; then ESLint with the Nx module-boundary rule, which reads Nx's
# cached project graph and silently skips itself when there is none (a fresh clone), so build the
# graph first and fail if skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH" NX_DAEMON=false NX_NO_CLOUD=true
prettier --check --log-level warn apps libs tools test prisma || {
  echo "lint: run npx prettier --write apps libs tools test prisma"
  exit 1
}
nx show projects >/dev/null
out=$(eslint --max-warnings=0 --no-error-on-unmatched-pattern apps libs tools prisma test contracts 2>&1) || {
  echo "$out"
  exit 1
}
if grep -q "No cached ProjectGraph" <<<"$out"; then
  echo "$out"
  echo "lint: the module-boundary rule was skipped (no project graph)"
  exit 1
fi
[ -z "$out" ] || echo "$out"

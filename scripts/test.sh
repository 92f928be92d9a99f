#!/usr/bin/env bash
# One command: lint, type-check, then unit, integration and end-to-end suites against servers it
# starts on free loopback ports (and stops, whatever happens).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH" NX_DAEMON=false NX_NO_CLOUD=true
started=$(date +%s)
bash scripts/ensure-deps.sh
bash scripts/build.sh
echo "[test] lint"
npm run -s lint
echo "[test] typecheck"
npm run -s typecheck
echo "[test] unit, integration and end-to-end suites"
node dist/tools/stack/src/test-servers.js -- jest --ci --maxWorkers=2 "$@"
echo "[test] done in $(( $(date +%s) - started ))s"

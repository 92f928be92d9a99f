#!/usr/bin/env bash
# npm run test:flakes [-- --full N --alone N --only REGEX]: the whole suite N times, and each
# end-to-end suite that kills, stops or times something N times alone; a table per suite at the end
# (tools/test-runs/src/flakes.ts). Installs and builds first, as npm test does.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH" NX_DAEMON=false NX_NO_CLOUD=true
bash scripts/ensure-deps.sh
bash scripts/build.sh
exec node dist/tools/test-runs/src/flakes.js "$@"

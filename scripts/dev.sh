#!/usr/bin/env bash
# One command: the whole system on this machine. Ctrl-C stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build.sh
exec node_modules/.bin/node dist/tools/stack/src/dev.js

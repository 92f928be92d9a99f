#!/usr/bin/env bash
# One command: lint, type-check, then unit, integration and end-to-end suites against servers it
# starts on free loopback ports (and stops, whatever happens). Prints each phase's time; a suite
# that fails gets the tails of its services' logs and its failing tests' traces printed under it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH" NX_DAEMON=false NX_NO_CLOUD=true
started=$(date +%s)
phase() {
  local name=$1 t rc=0
  t=$(date +%s)
  shift
  "$@" || rc=$?
  echo "[test] phase $name: $(( $(date +%s) - t )) s$( ((rc == 0)) || echo ", FAILED (exit $rc)")"
  return $rc
}
phase deps bash scripts/ensure-deps.sh
phase build bash scripts/build.sh
# Lint and the type-check are single-threaded: on two cores they run side by side.
echo "[test] lint and typecheck"
log_dir=$(mktemp -d)
phase lint npm run -s lint >"$log_dir/lint" 2>&1 &
lint=$!
phase typecheck npm run -s typecheck >"$log_dir/typecheck" 2>&1 &
typecheck=$!
failed=0
wait $lint || failed=1
wait $typecheck || failed=1
cat "$log_dir/lint" "$log_dir/typecheck"
rm -rf "$log_dir"
[ $failed -eq 0 ] || { echo "[test] lint or typecheck failed"; exit 1; }
echo "[test] unit, integration and end-to-end suites"
results=.test-data/jest-results.json
mkdir -p .test-data
rm -f "$results"
code=0
phase suites node dist/tools/stack/src/test-servers.js -- jest --ci --maxWorkers=2 --json --outputFile="$results" \
  --reporters=default --reporters="$PWD/dist/tools/test-runs/src/failure-logs.reporter.js" "$@" || code=$?
node dist/tools/test-runs/src/slowest.js "$results" 10
echo "[test] done in $(( $(date +%s) - started ))s"
exit $code

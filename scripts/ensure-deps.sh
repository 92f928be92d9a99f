#!/usr/bin/env bash
# Installs what the project needs and is missing: Debian's nats-server, redis-server, postgresql,
# prometheus and chromium (through apt, saying so), and the npm packages of the lockfile.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v nats-server >/dev/null 2>&1 || missing+=(nats-server)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
# Prometheus and promtool: the metrics tests scrape the services and check the alert rules.
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
# Chromium: the browser suites (test/e2e/explorer.e2e.ts, console.e2e.ts) drive it headless with
# playwright-core; no browser download works here, so it is Debian's package.
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  echo "[deps] installing with apt-get: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  # Debian starts the packaged servers as system services; the project runs its own instances.
  for svc in redis-server postgresql nats-server prometheus prometheus-node-exporter; do $SUDO service "$svc" stop >/dev/null 2>&1 || true; done
fi

# npm ci refuses lockfiles made against this registry (see README); npm install keeps the lock as is.
if [ ! -x node_modules/.bin/node ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[deps] installing npm packages"
  npm install --no-audit --no-fund --loglevel=error
fi

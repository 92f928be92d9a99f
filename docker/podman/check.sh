#!/usr/bin/env bash
# npm run release:check: what a release runs before it ships the images, on a fresh Debian machine
# (root, podman from Debian, installed by env.sh when missing):
#   1. npm run images                      the six images (and the Node base image when missing)
#   2. tools/deploy/src/images.ctr.ts      each image's files and settings
#   3. npm run compose:up                  the whole system from them, with the local chains
#   4. test/containers/compose.ctr.ts      end to end through the published gateway port
#   5. test/containers/kube.ctr.ts         the dev overlay's Deployments under podman kube play
#   6. npm run compose:down -- --volumes
# then removes every image, container and volume (the whole of XCHAIN_CONTAINERS_DIR) unless
# --keep is given. Prints how long each step took. Extra arguments after -- go to Jest.
set -euo pipefail
cd "$(dirname "$0")/../.."
keep=false
[[ ${1:-} == --keep ]] && { keep=true; shift; }
[[ ${1:-} == -- ]] && shift
source docker/podman/env.sh
export PATH="$PWD/node_modules/.bin:$PATH"
started=$SECONDS
step() { echo "[release:check] $1: $(($SECONDS - $2)) s" >&2; }

[[ -x node_modules/.bin/jest ]] || npm install --no-audit --no-fund --loglevel=error

cleanup() {
  local code=$?
  bash docker/podman/compose.sh down --volumes >/dev/null 2>&1 || true
  if ! $keep; then
    podman system reset -f >/dev/null 2>&1 || true
    rm -rf "$XCHAIN_CONTAINERS_DIR"
  fi
  echo "[release:check] $( ((code == 0)) && echo passed || echo FAILED) in $((SECONDS - started)) s" >&2
  exit $code
}
trap cleanup EXIT

t=$SECONDS; bash docker/podman/images.sh; step images $t
t=$SECONDS; jest -c test/containers/jest.config.js --runInBand --testPathPatterns 'tools/deploy/src/images\.ctr\.ts' "$@"; step 'image files' $t

export GATEWAY_PUBLISH_PORT="${GATEWAY_PUBLISH_PORT:-$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}"
export NATS_PUBLISH_PORT="${NATS_PUBLISH_PORT:-$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}"
t=$SECONDS; bash docker/podman/compose.sh up; step 'compose up' $t
t=$SECONDS
XCHAIN_GATEWAY_URL="http://127.0.0.1:$GATEWAY_PUBLISH_PORT" jest -c test/containers/jest.config.js --runInBand --testPathPatterns 'test/containers/compose\.ctr\.ts' "$@"
step 'compose suite' $t
t=$SECONDS
jest -c test/containers/jest.config.js --runInBand --testPathPatterns 'test/containers/kube\.ctr\.ts' "$@"
step 'kube play suite' $t

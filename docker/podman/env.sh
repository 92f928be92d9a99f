# Sourced by the container scripts (npm run images, compose:up, kube:play, release:check): podman with
# its storage, configuration and temporary files in one folder outside the repository
# (XCHAIN_CONTAINERS_DIR, default /var/tmp/xchain-containers), so `rm -rf` of it removes every image
# and container these scripts made. Installs podman and its helpers from Debian when missing.
# The settings are the ones these machines need (../shared/guide/machine.md, "Operate tooling"):
# runc (crun fails on their hybrid cgroups), ulimits within root's hard limits, overlay storage.
XCHAIN_CONTAINERS_DIR="${XCHAIN_CONTAINERS_DIR:-/var/tmp/xchain-containers}"
export XCHAIN_CONTAINERS_DIR

xc_log() { echo "[containers] $*" >&2; }

xc_install() {
  local missing=()
  # netavark drives the firewall through iptables, which nothing pulls in without recommends.
  command -v podman >/dev/null || missing+=(podman buildah runc netavark aardvark-dns slirp4netns catatonit fuse-overlayfs uidmap)
  command -v iptables >/dev/null || missing+=(iptables)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  command -v docker-compose >/dev/null || missing+=(docker-compose)
  if ((${#missing[@]} > 0)); then
    xc_log "installing from Debian: ${missing[*]}"
    local log="/tmp/xchain-containers-apt.$$.log" t=$SECONDS
    # --no-install-recommends: docker-compose recommends the Docker daemon, which is not wanted.
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}") >"$log" 2>&1 \
      || { tail -20 "$log" >&2; rm -f "$log"; return 1; }
    rm -f "$log"
    xc_log "installed in $((SECONDS - t)) s"
  fi
}

xc_configure() {
  local d="$XCHAIN_CONTAINERS_DIR"
  mkdir -p "$d/storage" "$d/run" "$d/tmp" "$d/networks" "$d/build-tmp"
  cat >"$d/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
tmp_dir = "$d/tmp"
[network]
network_backend = "netavark"
network_config_dir = "$d/networks"
CONF
  cat >"$d/storage.conf" <<CONF
[storage]
driver = "overlay"
runroot = "$d/run"
graphroot = "$d/storage"
CONF
  export CONTAINERS_CONF="$d/containers.conf" CONTAINERS_STORAGE_CONF="$d/storage.conf" TMPDIR="$d/build-tmp"
}

xc_install
xc_configure

#!/usr/bin/env bash
# npm run compose:up / compose:down: the whole system of docker/compose.yaml plus the local chains
# (docker/compose.devnet.yaml), run by Debian's docker-compose against podman's Docker-compatible
# service, from the images `npm run images` builds (built here when missing).
#   up     images (when missing), NATS/Redis/PostgreSQL images (pulled, else from Debian's packages),
#          the chains' image, fresh passwords in $XCHAIN_CONTAINERS_DIR/compose.env (0600, kept with
#          the volumes), podman's API service, then `docker-compose up -d`, waiting until the
#          gateway's /readyz answers on 127.0.0.1:$GATEWAY_PUBLISH_PORT (default 8080).
#   down   stops and removes the containers (volumes kept; `down --volumes` deletes them too), then
#          podman's service and the health-check runner.
#   ps | logs [service] | port | exec | stop | start …   passed to docker-compose with the same settings.
# Podman runs health checks only through systemd timers, which these machines lack: a small runner
# calls `podman healthcheck run` for each container every 2 s while the system is up, so compose's
# `condition: service_healthy` and `podman ps` see real health.
set -euo pipefail
cd "$(dirname "$0")/../.."
source docker/podman/env.sh
d=$XCHAIN_CONTAINERS_DIR
sock="$d/podman.sock"
export DOCKER_HOST="unix://$sock" COMPOSE_PROJECT_NAME=xchain
export GATEWAY_PUBLISH_PORT="${GATEWAY_PUBLISH_PORT:-8080}"
compose=(docker-compose --env-file "$d/compose.env" -f docker/compose.yaml -f docker/compose.devnet.yaml)

alive() { [[ -f $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

start_service() {
  alive "$d/podman-service.pid" && return
  rm -f "$sock"
  setsid podman system service --time=0 "unix://$sock" >"$d/podman-service.log" 2>&1 </dev/null &
  echo $! >"$d/podman-service.pid"
  for _ in $(seq 100); do [[ -S $sock ]] && return; sleep 0.1; done
  echo "podman system service did not start (see $d/podman-service.log)" >&2; exit 1
}

start_health_runner() {
  alive "$d/health-runner.pid" && return
  setsid bash -c '
    while sleep 2; do
      for id in $(podman ps -q --filter label=com.docker.compose.project=xchain); do
        podman healthcheck run "$id" >/dev/null 2>&1 || true
      done
    done' >/dev/null 2>&1 </dev/null &
  echo $! >"$d/health-runner.pid"
}

stop_pid() {
  if alive "$1"; then kill "$(cat "$1")" 2>/dev/null || true; fi
  rm -f "$1"
}

password() { printf 'p%s' "$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"; }

write_env() {
  [[ -f $d/compose.env ]] && return
  (
    umask 077
    for v in $(grep -oE '^[A-Z0-9_]+=' docker/.env.example | tr -d =); do
      if [[ $v == WEBHOOK_SECRET_KEY ]]; then echo "$v=$(head -c 32 /dev/urandom | base64)"; else echo "$v=$(password)"; fi
    done >"$d/compose.env"
  )
  xc_log "fresh passwords in $d/compose.env (0600)"
}

images() {
  local missing=()
  for i in migrate gateway quote-engine price-oracle gasless-relayer partner-service; do
    podman image exists "localhost/xchain/$i:local" || missing+=("$i")
  done
  ((${#missing[@]} == 0)) || bash docker/podman/images.sh "${missing[@]}"
  bash docker/podman/base-images.sh services
  if ! podman image exists localhost/xchain/devnet:local; then
    # The Dockerfile's build stage (cached from the images' builds), then the chains on top of it.
    bash docker/podman/images.sh --build-stage
    nice -n 15 podman build --format docker --pull=never -f docker/devnet.Dockerfile -t localhost/xchain/devnet:local docker >&2
  fi
}

case "${1:-}" in
  up)
    started=$SECONDS
    images
    write_env
    set -a; source "$d/service-images.env"; set +a
    start_service
    start_health_runner
    xc_log "docker-compose up (${NATS_IMAGE}, ${REDIS_IMAGE}, ${POSTGRES_IMAGE})"
    "${compose[@]}" up -d --no-build
    url="http://127.0.0.1:$GATEWAY_PUBLISH_PORT"
    for _ in $(seq 120); do curl -fsS "$url/readyz" >/dev/null 2>&1 && break; sleep 1; done
    curl -fsS "$url/readyz" >/dev/null || { "${compose[@]}" ps >&2; echo "the gateway is not ready at $url" >&2; exit 1; }
    xc_log "up in $((SECONDS - started)) s: gateway $url/json/v1 (try: curl $url/json/v1/tokens)"
    ;;
  down)
    shift
    status=0
    # Nothing was ever brought up without the env file (compose refuses to start without it).
    if [[ -f $d/compose.env ]]; then
      start_service
      "${compose[@]}" down --remove-orphans "$@" || status=$?
    fi
    if ((status == 0)) && [[ " $* " == *" --volumes "* || " $* " == *" -v "* ]]; then rm -f "$d/compose.env"; fi
    stop_pid "$d/health-runner.pid"
    stop_pid "$d/podman-service.pid"
    exit $status
    ;;
  ps | logs | exec | top | port | restart | kill | stop | start)
    start_service
    "${compose[@]}" "$@"
    ;;
  *) echo "usage: compose.sh up | down [--volumes] | ps | logs [service] | exec …" >&2; exit 2 ;;
esac

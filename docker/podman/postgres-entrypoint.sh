#!/bin/sh
# The Debian PostgreSQL image's entrypoint (postgres.Containerfile): on a fresh data folder, initdb
# with the superuser's password, run /docker-entrypoint-initdb.d/* (*.sh sourced, *.sql through psql)
# against a server on the unix socket only, then serve on every interface with password logins.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required on a fresh data folder}"
  POSTGRES_USER="${POSTGRES_USER:-postgres}"
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" --auth=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$pwfile"
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -k /var/run/postgresql" -w start >/dev/null
  export PGHOST=/var/run/postgresql PGUSER="$POSTGRES_USER" PGPASSWORD="$POSTGRES_PASSWORD"
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) echo "postgres-entrypoint: running $f"; . "$f" ;;
      *.sql) echo "postgres-entrypoint: running $f"; psql -v ON_ERROR_STOP=1 -d postgres -f "$f" ;;
    esac
  done
  unset PGPASSWORD
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo 'postgres-entrypoint: initialised'
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' -k /var/run/postgresql "$@"

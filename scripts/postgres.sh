#!/usr/bin/env bash
# Start a throwaway PostgreSQL server on 127.0.0.1 for the test suite, installing Debian's
# postgresql package first if no server binaries are present.
#   source scripts/postgres.sh   -> exports OPENREPRO_TEST_POSTGRES_URL, stops the server on exit
set -euo pipefail

_pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

if [ -z "$(_pg_bin)" ] || [ ! -x "$(_pg_bin)/initdb" ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "PostgreSQL server binaries are missing; install Debian's 'postgresql' package" >&2
    return 1 2>/dev/null || exit 1
  fi
  echo "installing PostgreSQL from Debian packages" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
PG_BIN=$(_pg_bin)
PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/openrepro-pg.XXXXXX")
PG_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
_as_pg() {
  # PostgreSQL refuses to run as root: use the postgres account that Debian's package creates.
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
if [ "$(id -u)" -eq 0 ]; then chown postgres "$PG_DIR"; fi
_as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U openrepro -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
_as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR -c fsync=off -c full_page_writes=off" \
  start >/dev/null
_openrepro_pg_stop() {
  _as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$PG_DIR"
}
trap _openrepro_pg_stop EXIT
export OPENREPRO_TEST_POSTGRES_URL="postgresql+psycopg://openrepro@127.0.0.1:$PG_PORT/postgres"
echo "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT" >&2

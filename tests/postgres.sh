#!/usr/bin/env bash
# A throwaway PostgreSQL server for the store tests (Debian's `postgresql` package):
#   eval "$(bash tests/postgres.sh start)"   # exports CC_TEST_POSTGRES_URL and CC_TEST_POSTGRES_DIR
#   bash tests/postgres.sh stop "$CC_TEST_POSTGRES_DIR"
# start: initdb into a new temporary folder (owned by the `postgres` user when run as root:
# initdb refuses root), pg_ctl on 127.0.0.1 at a free port with trust authentication for
# loopback only, and prints the two exports. stop: pg_ctl stop, then removes the folder.
set -euo pipefail

say() { printf '== %s\n' "$*" >&2; }
die() { printf 'postgres.sh: %s\n' "$*" >&2; exit 1; }

bindir() {
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)"
  [ -n "$d" ] && [ -x "$d/initdb" ] || die "no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)"
  echo "$d"
}

# Runs a command as the cluster's owner: `postgres` when we are root, else ourselves.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

case "${1:-}" in
  start)
    BIN="$(bindir)"
    DIR="$(mktemp -d "${TMPDIR:-/tmp}/cc-postgres.XXXXXX")"
    if [ "$(id -u)" = 0 ]; then
      id postgres >/dev/null 2>&1 || die "no postgres user (apt-get install postgresql creates it)"
      chown postgres:postgres "$DIR"
    fi
    PORT="$(free_port)"
    as_owner "$BIN/initdb" -D "$DIR/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 ||
      { cat "$DIR/initdb.log" >&2; die "initdb failed"; }
    # Loopback only; the socket directory inside the cluster's folder.
    as_owner "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c max_connections=200 -c fsync=off" start >&2 ||
      { cat "$DIR/server.log" >&2; die "pg_ctl start failed"; }
    say "PostgreSQL $("$BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT (cluster $DIR)"
    echo "export CC_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:$PORT/postgres"
    echo "export CC_TEST_POSTGRES_DIR=$DIR"
    ;;
  stop)
    DIR="${2:-}"
    [ -n "$DIR" ] && [ -d "$DIR/data" ] || exit 0
    as_owner "$(bindir)/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$DIR"
    ;;
  *)
    die "usage: postgres.sh start | stop DIR"
    ;;
esac

#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests, on loopback, in a temporary directory.
#
#   scripts/postgres.sh start [WATCH_PID]   prints DIR=<dir> and URL=postgres://...
#   scripts/postgres.sh stop DIR            stops it and removes DIR
#   scripts/postgres.sh restart DIR [PAUSE] stops it (cleanly), waits PAUSE seconds (none
#                                           unless given) and starts it again (same port)
#
# Installs Debian's `postgresql` package with apt-get when no PostgreSQL server is
# found and this runs as root; without root it exits with status 3 and one line
# saying what to install. With WATCH_PID, the cluster stops and its directory is
# removed as soon as that process (the test binary) exits.
set -euo pipefail

say() { printf 'postgres.sh: %s\n' "$*" >&2; }

find_bin() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
      printf '%s\n' "$dir"
    fi
  done | sort -V | tail -n 1
}

bin_dir() {
  local dir
  dir="$(find_bin)"
  if [ -z "$dir" ] && command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
    dir="$(dirname "$(command -v pg_ctl)")"
  fi
  if [ -z "$dir" ]; then
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
      say "no PostgreSQL server found; these tests start a throwaway cluster from Debian's 'postgresql' package (apt-get install -y postgresql), which needs root"
      exit 3
    fi
    say "installing PostgreSQL from Debian's packages (apt-get install -y postgresql)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq postgresql >&2
    dir="$(find_bin)"
    [ -n "$dir" ] || { say "apt-get installed postgresql but no initdb was found"; exit 1; }
  fi
  printf '%s\n' "$dir"
}

# initdb refuses to run as root: the cluster belongs to the `postgres` user (made
# if missing) when this runs as root.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_cluster() {
  local dir="$1" bin
  bin="$(cat "$dir/bin")"
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $(cat "$dir/port") -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start >/dev/null || { cat "$dir/log" >&2; exit 1; }
}

# Immediate by default (a throwaway cluster); `fast` for a restart, which must keep
# every commit (the cluster runs with synchronous_commit off).
stop_cluster() {
  local dir="$1" mode="${2:-immediate}"
  [ -f "$dir/bin" ] || return 0
  as_owner "$(cat "$dir/bin")/pg_ctl" -D "$dir/data" -m "$mode" -w stop >/dev/null 2>&1 || true
}

case "${1:-}" in
  start)
    bin="$(bin_dir)"
    if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
      useradd --system --no-create-home postgres
    fi
    dir="$(mktemp -d /tmp/toolkit-postgres.XXXXXX)"
    chmod 755 "$dir"
    printf '%s\n' "$bin" >"$dir/bin"
    free_port >"$dir/port"
    if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir"; fi
    as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    start_cluster "$dir"
    if [ -n "${2:-}" ]; then
      # The watchdog, in a session of its own: a signal to the caller's process
      # group (Ctrl-C, a runner stopping a script's group) must not end it before
      # it has stopped the cluster (pg_ctl starts the server in its own session).
      setsid bash "${BASH_SOURCE[0]}" watch "$2" "$dir" </dev/null >/dev/null 2>&1 &
    fi
    printf 'DIR=%s\nURL=postgres://postgres@127.0.0.1:%s/postgres\n' "$dir" "$(cat "$dir/port")"
    ;;
  watch)
    # Stops the cluster in $3 and removes it once process $2 is gone.
    trap '' HUP INT
    while kill -0 "$2" 2>/dev/null; do sleep 1; done
    stop_cluster "$3"
    rm -rf "$3"
    ;;
  stop)
    stop_cluster "$2"
    rm -rf "$2"
    ;;
  restart)
    stop_cluster "$2" fast
    sleep "${3:-0}"
    start_cluster "$2"
    ;;
  *)
    say "usage: postgres.sh start [WATCH_PID] | stop DIR | restart DIR [PAUSE]"
    exit 2
    ;;
esac

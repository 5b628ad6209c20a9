#!/usr/bin/env bash
# Instructions per request of the load benchmark's servers, counted by callgrind:
# the same requests as scripts/load_bench.sh, one connection, the count of the
# server process (every thread) between a reset and a dump taken around the
# timed requests, divided by the requests served. Unlike requests/s and CPU
# time, the count does not move with the machine's load.
#
#   scripts/server_instructions.sh [SECONDS]    # seconds of requests per cell (default 10)
#
# Environment:
#   LOAD_SERVERS   which load_server kinds (default "toolkit rmcp-shared")
#   LOAD_REQUESTS  which requests (default "sum pages list")
#   LOAD_BIN       the load_server binary (default: built with
#                  `cargo build --release`, target/release/load_server)
#   KEEP_PROFILES  a folder to keep each callgrind profile in, named
#                  SERVER-REQUEST.out, for `callgrind_annotate`
#
# Needs valgrind (Debian: apt-get install valgrind) and wrk.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-10}"
servers="${LOAD_SERVERS:-toolkit rmcp-shared}"
requests="${LOAD_REQUESTS:-sum pages list}"
lua="$root/scripts/load/request.lua"
bin="${LOAD_BIN:-}"
if [[ -z "$bin" ]]; then
    cargo build --quiet --release --manifest-path "$root/Cargo.toml" -p example-mcp-server --bin load_server
    bin="${CARGO_TARGET_DIR:-$root/target}/release/load_server"
fi
for tool in valgrind callgrind_control wrk; do
    command -v "$tool" >/dev/null || { echo "server_instructions: $tool is not installed" >&2; exit 1; }
done

work="$(mktemp -d)"
server_pid=""
cleanup() {
    [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

source "$root/scripts/load/requests.sh"

echo "| server | request | requests | instructions per request |"
echo "|---|---|---:|---:|"
for server in $servers; do
    for request in $requests; do
        log="$work/$server-$request.log"
        out="$work/$server-$request.out"
        valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$server" >"$log" 2>&1 &
        server_pid=$!
        url=""
        for _ in $(seq 1 600); do
            url="$(sed -n 's/^listening on //p' "$log")"
            [[ -n "$url" ]] && break
            sleep 0.1
        done
        [[ -n "$url" ]] || { cat "$log" >&2; exit 1; }
        drive() { # seconds -> requests served
            LOAD_BODY="${body[$request]}" LOAD_METHOD="${method[$request]}" LOAD_NAME="${name[$request]}" \
                LOAD_TOKEN=load-token wrk -t1 -c1 -d"$1s" --timeout 10s -s "$lua" "$url" |
                sed -n 's/^RESULT //p' | awk '{ if ($5 != 0) { print "errors" } else { print $6 } }'
        }
        warm="$(drive 2)" # first-use work (registry, schemas, the view) out of the count
        [[ "$warm" == errors ]] && { echo "server_instructions: $server answered $request with errors" >&2; exit 1; }
        callgrind_control --zero "$server_pid" >/dev/null
        served="$(drive "$seconds")"
        [[ "$served" == errors ]] && { echo "server_instructions: $server answered $request with errors" >&2; exit 1; }
        callgrind_control --dump="$server-$request" "$server_pid" >/dev/null
        kill "$server_pid"
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
        # The dump taken at --dump is the file with the highest part number.
        dump="$(ls -1 "$out".* 2>/dev/null | sort -t. -k3 -n | tail -1)"
        total="$(sed -n 's/^totals: //p' "$dump" | head -1)"
        echo "| $server | $request | $served | $((total / served)) |"
        if [[ -n "${KEEP_PROFILES:-}" ]]; then
            mkdir -p "$KEEP_PROFILES"
            cp "$dump" "$KEEP_PROFILES/$server-$request.out"
        fi
    done
done

#!/usr/bin/env bash
# What one request costs the load benchmark's servers, by the clock and by the
# kernel: the server process's user and system CPU time per request (from
# /proc), its context switches per request, and optionally its system calls and
# its malloc calls per request. Servers take turns in rounds (interleaved), and
# each figure is the median over the rounds.
#
#   scripts/server_costs.sh [SECONDS] [CONNECTIONS] [REQUEST]   # defaults: 4 1 sum
#
# REQUEST is sum (tools/call get_sum), pages (tools/call set_pages) or list
# (tools/list), as in scripts/load_bench.sh.
#
# Environment:
#   LOAD_SERVERS   NAME=BINARY:KIND ... (default: toolkit and rmcp-shared of
#                  LOAD_BIN, or of target/release/load_server built here)
#   LOAD_BIN       the load_server binary for the default servers
#   LOAD_ROUNDS    rounds (default 5)
#   LOAD_PIN=1     the server on CPU 0 and wrk on CPU 1 (taskset), so that the
#                  client does not share the server's core and caches
#   LOAD_SYSCALLS=1  also count system calls per request (strace -c -f; slows the
#                  server down, so only the counts are read)
#   LOAD_ALLOCS=1  also count malloc and realloc calls per request (a perf uprobe
#                  on libc; needs root)
#
# Needs wrk, python3, and for the options taskset, strace or perf.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-4}"
connections="${2:-1}"
request="${3:-sum}"
rounds="${LOAD_ROUNDS:-5}"
lua="$root/scripts/load/request.lua"

command -v wrk >/dev/null || { echo "server_costs: wrk is not installed (Debian: apt-get install wrk)" >&2; exit 1; }
bin="${LOAD_BIN:-}"
if [[ -z "${LOAD_SERVERS:-}" && -z "$bin" ]]; then
    cargo build --quiet --release --manifest-path "$root/Cargo.toml" -p example-mcp-server --bin load_server
    bin="${CARGO_TARGET_DIR:-$root/target}/release/load_server"
fi
servers="${LOAD_SERVERS:-toolkit=$bin:toolkit rmcp-shared=$bin:rmcp-shared}"

case "$request" in
    sum | pages | list) ;;
    *) echo "server_costs: unknown request $request (sum, pages, list)" >&2; exit 1 ;;
esac
source "$root/scripts/load/requests.sh"
export LOAD_BODY="${body[$request]}" LOAD_METHOD="${method[$request]}" LOAD_NAME="${name[$request]}" LOAD_TOKEN=load-token

server_cpu=()
client_cpu=()
if [[ "${LOAD_PIN:-}" == 1 ]]; then
    server_cpu=(taskset -c 0)
    client_cpu=(taskset -c 1)
fi

work="$(mktemp -d)"
server_pid=""
cleanup() {
    [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# start BINARY KIND: the server's pid in server_pid, its URL in url
start() {
    : >"$work/log"
    "${server_cpu[@]}" "$1" "$2" --addr 127.0.0.1:0 >"$work/log" 2>&1 &
    server_pid=$!
    url=""
    for _ in $(seq 1 100); do
        url="$(sed -n 's/^listening on //p' "$work/log")"
        [[ -n "$url" ]] && return
        sleep 0.1
    done
    echo "server_costs: $1 $2 did not start" >&2
    cat "$work/log" >&2
    exit 1
}

# user ticks, system ticks, voluntary and involuntary context switches (every thread)
snapshot() {
    local stat voluntary=0 involuntary=0 v n
    read -r -a stat <"/proc/$server_pid/stat"
    for status in /proc/"$server_pid"/task/*/status; do
        v="$(awk '/^voluntary_ctxt_switches/ {print $2}' "$status")"
        n="$(awk '/^nonvoluntary_ctxt_switches/ {print $2}' "$status")"
        voluntary=$((voluntary + ${v:-0}))
        involuntary=$((involuntary + ${n:-0}))
    done
    echo "${stat[13]} ${stat[14]} $voluntary $involuntary"
}

drive() { # seconds: wrk's RESULT line
    "${client_cpu[@]}" wrk -t1 -c"$connections" -d"$1"s -s "$lua" "$url" | grep '^RESULT'
}

ticks="$(getconf CLK_TCK)"
for round in $(seq 1 "$rounds"); do
    for server in $servers; do
        label="${server%%=*}"
        target="${server#*=}"
        start "${target%:*}" "${target##*:}"
        drive 1 >/dev/null
        before="$(snapshot)"
        result="$(drive "$seconds")"
        after="$(snapshot)"
        echo "$label $result $before $after" >>"$work/runs"
        if [[ "$round" == 1 && "${LOAD_SYSCALLS:-}" == 1 ]]; then
            strace -f -c -o "$work/strace" -p "$server_pid" 2>/dev/null &
            tracer=$!
            sleep 1
            served="$(drive 2 | awk '{print $7}')"
            kill -INT "$tracer"
            wait "$tracer" 2>/dev/null || true
            awk -v label="$label" -v n="$served" '$NF != "total" && $4 ~ /^[0-9]+$/ && $4 / n >= 0.01 {
                printf "syscalls %s %s %.2f\n", label, $NF, $4 / n }' "$work/strace" >>"$work/extra"
        fi
        if [[ "$round" == 1 && "${LOAD_ALLOCS:-}" == 1 ]]; then
            for probe in malloc realloc; do
                perf probe -q -x "$(ldd "${target%:*}" | awk '/libc.so/ {print $3}')" "$probe" 2>/dev/null || true
            done
            perf stat -x, -e probe_libc:malloc,probe_libc:realloc -p "$server_pid" -o "$work/perf" -- sleep 2.5 &
            counter=$!
            sleep 0.2
            served="$(drive 2 | awk '{print $7}')"
            wait "$counter"
            awk -F, -v label="$label" -v n="$served" '/probe_libc/ {
                split($3, event, ":"); printf "allocs %s %s %.1f\n", label, event[2], $1 / n }' "$work/perf" >>"$work/extra"
        fi
        kill "$server_pid"
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    done
done

python3 - "$work/runs" "$ticks" "$connections" "$request" "${LOAD_PIN:-0}" "$work/extra" <<'PY'
import statistics
import sys
from collections import defaultdict

runs, ticks, connections, request, pinned, extra = sys.argv[1:7]
ticks = int(ticks)
figures = defaultdict(list)
for line in open(runs):
    words = line.split()
    label, rps, served = words[0], float(words[2]), int(words[7])
    before = list(map(int, words[8:12]))
    after = list(map(int, words[12:16]))
    user, system, voluntary, involuntary = (a - b for a, b in zip(after, before))
    us = 1e6 / ticks / served
    figures[label].append(
        (rps, (user + system) * us, user * us, system * us, voluntary / served, involuntary / served)
    )
print(f"{request}, {connections} connection(s){', server and client pinned' if pinned == '1' else ''}; "
      f"medians of {len(next(iter(figures.values())))} rounds")
print()
print("| server | requests/s | CPU per request | user | system | voluntary switches | involuntary |")
print("|---|---:|---:|---:|---:|---:|---:|")
medians = {}
for label, rows in figures.items():
    m = [statistics.median(row[i] for row in rows) for i in range(6)]
    medians[label] = m
    print(f"| {label} | {m[0]:.0f} | {m[1]:.1f} µs | {m[2]:.1f} µs | {m[3]:.1f} µs | {m[4]:.2f} | {m[5]:.2f} |")
labels = list(medians)
if len(labels) >= 2:
    a, b = medians[labels[0]], medians[labels[-1]]
    print()
    print(f"{labels[0]} / {labels[-1]}: requests/s {a[0] / b[0]:.2f}x, CPU per request {a[1] / b[1]:.2f}x "
          f"(user {a[2] / b[2]:.2f}x, system {a[3] / b[3]:.2f}x)")
try:
    lines = open(extra).read().split("\n")
except FileNotFoundError:
    lines = []
for kind in ("syscalls", "allocs"):
    rows = [line.split() for line in lines if line.startswith(kind + " ")]
    if not rows:
        continue
    print()
    print(f"{kind} per request (first round):")
    for row in rows:
        print(f"  {row[1]:12s} {row[2]:14s} {row[3]}")
PY

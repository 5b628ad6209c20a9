#!/usr/bin/env bash
# The MCP server under load: wrk drives streamable HTTP servers on loopback with
# self-contained MCP 2026-07-28 requests (no initialize, no session) and prints a
# Markdown table (requests/s, p50, p99, p99.9, server RSS) and the ratios.
#
#   scripts/load_bench.sh [SECONDS]     # seconds per measurement (default 5)
#
# Servers (all started here, on 127.0.0.1, and stopped at exit):
#   toolkit  load_server toolkit: get_sum and set_pages as #[tool]s behind McpHttp
#   rmcp     load_server rmcp: the same tools on rmcp alone (#[tool_router];
#            #[tool_handler] builds the router per request, rmcp's default),
#            behind the same bearer-token check
#   rmcp-shared  load_server rmcp-shared: the same, the router built once
#   fastmcp  scripts/load/fastmcp_server.py: the same tools on FastMCP (PyPI,
#            pinned below, in a virtual environment under target/)
#   example  the example server itself (mcp_server http): tools/call get_tasks
#            and tools/list on its /mcp/external endpoint
# Requests: tools/call get_sum (trivial), tools/call set_pages (schema-constrained
# count), tools/list; at 1, 16 and 256 connections. For each request and
# connection count the servers are measured one after the other, in rounds
# (interleaved), so ratios come from the same minutes of machine load.
#
# Environment:
#   LOAD_SERVERS      which servers (default "toolkit rmcp rmcp-shared fastmcp example")
#   LOAD_CONNECTIONS  connection counts (default "1 16 256")
#   LOAD_ROUNDS       rounds per request and connection count (default 3); the
#                     tables give each measure's median over the rounds
#   LOAD_BIN_DIR      where load_server and mcp_server are (default: built here
#                     with `cargo build --release`, into target/release)
#   LOAD_VENV         FastMCP's virtual environment (default target/fastmcp-venv)
#   LOAD_TOOLKIT_BEFORE  another build's load_server (say, of the commit before
#                     a change): measured as `toolkit-before` in the same rounds,
#                     with the toolkit requests, for a before/after ratio
#   LOAD_FLEET_URL    the fleet hook: the URL of the example server's external
#                     endpoint served by several replicas behind a load balancer
#                     (for instance three `mcp_server http --approvals-db ...`
#                     behind HAProxy). When set, a `fleet` server is measured with
#                     the `example` requests; LOAD_FLEET_TOKEN is its bearer
#                     token (default external-token). Nothing here starts it.
#
# Needs `wrk` (Debian: apt-get install wrk) and python3 (FastMCP, the tables).
set -euo pipefail

FASTMCP_VERSION="4.2.3"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-5}"
rounds="${LOAD_ROUNDS:-3}"
servers="${LOAD_SERVERS:-toolkit rmcp rmcp-shared fastmcp example}"
connections="${LOAD_CONNECTIONS:-1 16 256}"
venv="${LOAD_VENV:-$root/target/fastmcp-venv}"
lua="$root/scripts/load/request.lua"

command -v wrk >/dev/null || { echo "load_bench: wrk is not installed (Debian: apt-get install wrk)" >&2; exit 1; }

bin="${LOAD_BIN_DIR:-}"
if [[ -z "$bin" ]]; then
    cargo build --quiet --release --manifest-path "$root/Cargo.toml" -p example-mcp-server \
        --bin load_server --bin mcp_server
    bin="$root/target/release"
fi
if [[ " $servers " == *" fastmcp "* ]]; then
    if ! "$venv/bin/python" -c "import importlib.metadata as m; assert m.version('fastmcp') == '$FASTMCP_VERSION'" 2>/dev/null; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check "fastmcp==$FASTMCP_VERSION"
    fi
fi

declare -A url pid token
logs="$(mktemp -d)"
cleanup() {
    for server in "${!pid[@]}"; do kill "${pid[$server]}" 2>/dev/null || true; done
    rm -rf "$logs"
}
trap cleanup EXIT

start() { # name, command...
    local name="$1"
    shift
    : >"$logs/$name.log"
    "$@" >>"$logs/$name.log" 2>&1 &
    pid[$name]=$!
    for _ in $(seq 1 200); do
        url[$name]="$(sed -n 's/^listening on //p' "$logs/$name.log")"
        [[ -n "${url[$name]}" ]] && return
        kill -0 "${pid[$name]}" 2>/dev/null || { cat "$logs/$name.log" >&2; exit 1; }
        sleep 0.1
    done
    echo "load_bench: $name did not start" >&2
    cat "$logs/$name.log" >&2
    exit 1
}

for server in $servers; do
    case "$server" in
        toolkit) start toolkit "$bin/load_server" toolkit; token[toolkit]=load-token ;;
        rmcp) start rmcp "$bin/load_server" rmcp; token[rmcp]=load-token ;;
        rmcp-shared) start rmcp-shared "$bin/load_server" rmcp-shared; token[rmcp-shared]=load-token ;;
        fastmcp) start fastmcp "$venv/bin/python" "$root/scripts/load/fastmcp_server.py"; token[fastmcp]="" ;;
        example)
            # wrk opens up to 256 connections from one address, past the
            # server's share per peer (64): lifted, as behind a proxy.
            MCP_TOKEN_INTERNAL=internal-token MCP_TOKEN_COPILOT=copilot-token MCP_TOKEN_EXTERNAL=external-token \
                MCP_CONNECTIONS_PER_PEER=100000 \
                start example "$bin/mcp_server" http --addr 127.0.0.1:0
            url[example]="${url[example]}/mcp/external"
            token[example]=external-token
            ;;
        *) echo "load_bench: unknown server $server" >&2; exit 1 ;;
    esac
done
if [[ -n "${LOAD_TOOLKIT_BEFORE:-}" ]]; then
    start toolkit-before "$LOAD_TOOLKIT_BEFORE" toolkit
    token[toolkit-before]=load-token
    servers="$servers toolkit-before"
fi
if [[ -n "${LOAD_FLEET_URL:-}" ]]; then
    url[fleet]="$LOAD_FLEET_URL"
    token[fleet]="${LOAD_FLEET_TOKEN:-external-token}"
    servers="$servers fleet"
fi

# Each request's method, tool name, body and expected text.
source "$root/scripts/load/requests.sh"

requests_of() { # server -> the requests it serves
    case "$1" in
        example | fleet) echo "tasks tasks_list" ;;
        *) echo "sum pages list" ;;
    esac
}

label_of() {
    case "$1" in
        sum) echo '`tools/call get_sum` (trivial)' ;;
        pages) echo '`tools/call set_pages` (constrained)' ;;
        list) echo '`tools/list` (2 tools)' ;;
        tasks) echo '`tools/call get_tasks` (example server)' ;;
        tasks_list) echo '`tools/list` (example server, 3 tools)' ;;
    esac
}

# Every server answers every request correctly before anything is timed.
check() { # server request
    local server="$1" request="$2" answer
    local headers=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'
        -H 'MCP-Protocol-Version: 2026-07-28' -H "Mcp-Method: ${method[$request]}")
    [[ -n "${name[$request]}" ]] && headers+=(-H "Mcp-Name: ${name[$request]}")
    [[ -n "${token[$server]}" ]] && headers+=(-H "Authorization: Bearer ${token[$server]}")
    answer="$(curl -sS -X POST "${url[$server]}" "${headers[@]}" -d "${body[$request]}")"
    if [[ "$answer" != *"${expect[$request]}"* || "$answer" == *'"isError":true'* || "$answer" == *'"error":{'* ]]; then
        echo "load_bench: $server answered $request wrongly: $answer" >&2
        exit 1
    fi
}

rss_kib() { # server -> resident KiB now, or "-" when not ours
    [[ -n "${pid[$1]:-}" ]] || { echo "-"; return; }
    awk '/^VmRSS/ {print $2}' "/proc/${pid[$1]}/status"
}

cpu_ticks() { # server -> user + system clock ticks so far, or "-" when not ours
    [[ -n "${pid[$1]:-}" ]] || { echo "-"; return; }
    # The fields after the command's closing parenthesis: utime is the 12th.
    sed 's/.*) //' "/proc/${pid[$1]}/stat" | awk '{print $12 + $13}'
}
tick="$(getconf CLK_TCK)"

run_wrk() { # server request connections seconds -> "rps p50 p99 p999 errors requests"
    local server="$1" request="$2" conns="$3" secs="$4" threads=2
    ((conns < 2)) && threads=1
    LOAD_BODY="${body[$request]}" LOAD_METHOD="${method[$request]}" LOAD_NAME="${name[$request]}" \
        LOAD_TOKEN="${token[$server]}" \
        wrk -t"$threads" -c"$conns" -d"${secs}s" --timeout 10s -s "$lua" "${url[$server]}" |
        sed -n 's/^RESULT //p'
}

results="$logs/results"
: >"$results"
for server in $servers; do
    for request in $(requests_of "$server"); do
        check "$server" "$request"
        run_wrk "$server" "$request" 16 1 >/dev/null # warm-up
    done
done

echo "load_bench: ${rounds} rounds of ${seconds}s per measurement; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for request in sum pages list tasks tasks_list; do
    for conns in $connections; do
        for round in $(seq 1 "$rounds"); do
            for server in $servers; do
                [[ " $(requests_of "$server") " == *" $request "* ]] || continue
                before="$(cpu_ticks "$server")"
                read -r rps p50 p99 p999 errors count <<<"$(run_wrk "$server" "$request" "$conns" "$seconds")"
                after="$(cpu_ticks "$server")"
                cpu="-" # server CPU microseconds per request
                [[ "$before" != "-" && "$count" -gt 0 ]] && cpu=$(((after - before) * 1000000 / tick / count))
                echo "$request $conns $server $rps $p50 $p99 $p999 $errors $(rss_kib "$server") $cpu" >>"$results"
                echo "  $request c=$conns round $round $server: $rps/s p50 ${p50}µs p99 ${p99}µs" >&2
            done
        done
    done
done
for server in $servers; do
    check "$server" "$(requests_of "$server" | cut -d' ' -f1)"
done
echo "load_bench: done; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

python3 - "$results" <<'PY'
import statistics
import sys

labels = {
    "sum": "`tools/call get_sum` (trivial)",
    "pages": "`tools/call set_pages` (constrained)",
    "list": "`tools/list` (2 tools)",
    "tasks": "`tools/call get_tasks` (example server)",
    "tasks_list": "`tools/list` (example server, 3 tools)",
}
rows = {}
for line in open(sys.argv[1]):
    request, conns, server, rps, p50, p99, p999, errors, rss, cpu = line.split()
    row = rows.setdefault((request, int(conns), server), {"rps": [], "p50": [], "p99": [], "p999": [], "cpu": [], "errors": 0, "rss": 0})
    if cpu != "-":
        row["cpu"].append(float(cpu))
    for key, value in (("rps", rps), ("p50", p50), ("p99", p99), ("p999", p999)):
        row[key].append(float(value))
    row["errors"] += int(errors)
    if rss != "-":
        row["rss"] = max(row["rss"], int(rss))
median = {key: {k: statistics.median(v) if v else 0 for k, v in row.items() if isinstance(v, list)} for key, row in rows.items()}

def us(value):
    return f"{value / 1000:.1f} ms" if abs(value) >= 10000 else f"{value:.0f} µs"

print("\nMedians over the rounds (each round: every server in turn).\n")
print("| request | connections | server | requests/s | p50 | p99 | p99.9 | server CPU per request | errors | server RSS (max) |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
for (request, conns, server), row in rows.items():
    m = median[(request, conns, server)]
    rss = f"{row['rss'] / 1024:.1f} MiB" if row["rss"] else "-"
    cpu = us(m["cpu"]) if m["cpu"] else "-"
    print(f"| {labels[request]} | {conns} | {server} | {m['rps']:.0f} | {us(m['p50'])} | {us(m['p99'])} | {us(m['p999'])} | {cpu} | {row['errors']} | {rss} |")

print("\nRatios of the medians: toolkit / rmcp requests/s and rmcp p99 / toolkit p99 (goal >= 0.9 each), toolkit / rmcp server CPU per request; the same against rmcp with its router built once; toolkit / FastMCP requests/s (goal >= 10 at 16 connections).\n")
print("| request | connections | requests/s vs rmcp | p99 vs rmcp | CPU per request vs rmcp | requests/s vs rmcp-shared | p99 vs rmcp-shared | CPU vs rmcp-shared | requests/s vs FastMCP |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
def ratio(a, b):
    return f"{a / b:.2f}x" if a and b else "-"
for (request, conns, server) in rows:
    if server != "toolkit":
        continue
    t = median[(request, conns, "toolkit")]
    r = median.get((request, conns, "rmcp"))
    sh = median.get((request, conns, "rmcp-shared"))
    f = median.get((request, conns, "fastmcp"))
    print(f"| {labels[request]} | {conns} | {ratio(t['rps'], r and r['rps'])} | {ratio(r and r['p99'], t['p99'])} | {ratio(t['cpu'], r and r['cpu'])} | {ratio(t['rps'], sh and sh['rps'])} | {ratio(sh and sh['p99'], t['p99'])} | {ratio(t['cpu'], sh and sh['cpu'])} | {ratio(t['rps'], f and f['rps'])} |")

if any(server == "toolkit-before" for (_, _, server) in rows):
    print("\nThis build against the one before (LOAD_TOOLKIT_BEFORE): toolkit / toolkit-before requests/s and server CPU per request.\n")
    print("| request | connections | requests/s | CPU per request |")
    print("|---|---:|---:|---:|")
    for (request, conns, server) in rows:
        b = median.get((request, conns, "toolkit-before"))
        if server != "toolkit" or not b:
            continue
        t = median[(request, conns, "toolkit")]
        print(f"| {labels[request]} | {conns} | {ratio(t['rps'], b['rps'])} | {ratio(t['cpu'], b['cpu'])} |")

if any(server == "fleet" for (_, _, server) in rows):
    print("\nThe fleet against one example server: fleet / example requests/s, fleet p99 - example p99 (what the balancer and the store add).\n")
    print("| request | connections | requests/s | p99 added |")
    print("|---|---:|---:|---:|")
    for (request, conns, server) in rows:
        e = median.get((request, conns, "example"))
        if server != "fleet" or not e:
            continue
        fl = median[(request, conns, "fleet")]
        print(f"| {labels[request]} | {conns} | {ratio(fl['rps'], e['rps'])} | {us(fl['p99'] - e['p99'])} |")
PY

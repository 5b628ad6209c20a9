#!/usr/bin/env bash
# The fleet as it is deployed: three replicas of examples/mcp_server sharing one
# PostgreSQL (`--approvals-db postgres://...`), HAProxy round robin in front
# (examples/mcp_server/fleet/haproxy.cfg), driven by the official Python MCP SDK
# (scripts/fleet_test.py: split approvals, 200 approvals x 3 presentations by 8
# clients, kill -9 of a replica and a PostgreSQL restart mid-run, the policy, the
# runner, a frozen replica, replicas two hours apart (libfaketime), a stalled
# PostgreSQL, a rotated key).
#
# Starts a throwaway PostgreSQL with scripts/postgres.sh, installs Debian's
# `haproxy` and `faketime` with apt-get where missing (as root), makes the same pinned
# virtual environment as scripts/mcp_client_test.sh (target/mcp-client-venv), and
# installs the official TypeScript SDK's v2 client with its Tasks extension and the
# Node 22 they run on (npm, pinned by scripts/ts_task_client/package-lock.json) under
# target/ts-task-client, and npm `oauth2-mock-server` (pinned as in
# scripts/oauth_test.sh) under target/fleet-oauth: the authorization server of a
# second fleet, four replicas in OAuth mode behind their own HAProxy.
# Exit status 3 with one line: a prerequisite is missing and can't be installed
# here (no root); the Rust test fails on it when CI is set.
#
#   MCP_SERVER_BIN  the server binary (default: built with cargo)
#   MCP_TASK_CLIENT_BIN  rmcp's client speaking MCP Tasks (default: built with cargo)
#   TS_TASK_CLIENT_DIR  where the official TypeScript client is installed
#   FLEET_OAUTH_DIR where oauth2-mock-server is installed
#   FLEET_CHECKS    only these checks (comma-separated names), for a quicker run
#   MCP_VENV        where the virtual environment lives
#   FLEET_BENCH=1   also measure the fleet's throughput and latency (BENCHMARKS.md)
set -euo pipefail

MCP_VERSION="2.3.0"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${MCP_VENV:-$root/target/mcp-client-venv}"
say() { printf 'fleet_test.sh: %s\n' "$*" >&2; }

if ! command -v python3 >/dev/null 2>&1; then
    say "python3 is missing: the fleet test drives the replicas with the Python MCP SDK"
    exit 3
fi

# Installs Debian's package $1 (what it is for: $2), or exits 3 saying why it can't.
debian_install() {
    if [[ "$(id -u)" -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
        say "no $1 found; the fleet test $2 (apt-get install -y $1), which needs root"
        exit 3
    fi
    say "installing $1 from Debian's packages (apt-get install -y $1)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq "$1" >&2
}

haproxy="$(command -v haproxy || true)"
[[ -z "$haproxy" && -x /usr/sbin/haproxy ]] && haproxy=/usr/sbin/haproxy
if [[ -z "$haproxy" ]]; then
    debian_install haproxy "puts Debian's HAProxy in front of three replicas"
    haproxy="$(command -v haproxy || echo /usr/sbin/haproxy)"
    [[ -x "$haproxy" ]] || { say "apt-get installed haproxy but no haproxy binary was found"; exit 1; }
fi

# libfaketime runs a replica hours ahead of or behind the host's clock.
faketime_lib=/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1
if [[ ! -e "$faketime_lib" ]]; then
    debian_install faketime "runs replicas with skewed clocks under libfaketime"
    [[ -e "$faketime_lib" ]] || faketime_lib="$(dpkg -L libfaketime | grep 'libfaketimeMT.so.1$' | head -n1)"
    [[ -e "$faketime_lib" ]] || { say "apt-get installed faketime but no libfaketimeMT.so.1 was found"; exit 1; }
fi

if ! "$venv/bin/python" -c "import mcp, importlib.metadata as m; assert m.version('mcp') == '$MCP_VERSION'" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_VERSION"
fi

# `npm ci` installs exactly what the lock file pins; again only when it changed.
ts_dir="${TS_TASK_CLIENT_DIR:-$root/target/ts-task-client}"
ts_source="$root/scripts/ts_task_client"
if ! cmp -s "$ts_source/package-lock.json" "$ts_dir/package-lock.json" \
    || [[ ! -f "$ts_dir/node_modules/.package-lock.json" ]]; then
    if ! command -v npm >/dev/null 2>&1; then
        say "npm is missing: the fleet test installs the official TypeScript MCP client with it"
        exit 3
    fi
    mkdir -p "$ts_dir"
    cp "$ts_source/package.json" "$ts_source/package-lock.json" "$ts_dir/"
    (cd "$ts_dir" && npm ci --silent --no-audit --no-fund >&2)
fi
# Beside its node_modules, where Node resolves its imports from.
cp "$ts_source/task_client.mjs" "$ts_dir/"
ts_node="$("$root/scripts/node.sh")"

# The OAuth fleet's authorization server: the mock scripts/oauth_test.sh runs,
# in a directory of its own (the two tests may install at once).
MOCK_VERSION="9.3.0"
oauth_dir="${FLEET_OAUTH_DIR:-$root/target/fleet-oauth}"
if ! grep -qs "\"version\": \"$MOCK_VERSION\"" "$oauth_dir/node_modules/oauth2-mock-server/package.json"; then
    if ! command -v npm >/dev/null 2>&1; then
        say "npm is missing: the fleet test installs oauth2-mock-server with it"
        exit 3
    fi
    mkdir -p "$oauth_dir"
    [[ -f "$oauth_dir/package.json" ]] || echo '{"private": true}' >"$oauth_dir/package.json"
    (cd "$oauth_dir" && npm install --silent --no-audit --no-fund "oauth2-mock-server@$MOCK_VERSION" >&2)
fi
cp "$root/scripts/oauth_mock_server.mjs" "$oauth_dir/"

server="${MCP_SERVER_BIN:-}"
task_client="${MCP_TASK_CLIENT_BIN:-}"
if [[ -z "$server" || -z "$task_client" ]]; then
    cargo build --quiet --manifest-path "$root/Cargo.toml" -p example-mcp-server \
        --bin mcp_server --bin mcp_task_client
    server="${server:-$root/target/debug/mcp_server}"
    task_client="${task_client:-$root/target/debug/mcp_task_client}"
fi

# The cluster stops with this script (its watchdog watches this shell).
status=0
cluster="$("$root/scripts/postgres.sh" start $$)" || status=$?
if [[ $status -ne 0 ]]; then exit "$status"; fi
pg_dir="$(sed -n 's/^DIR=//p' <<<"$cluster")"
pg_url="$(sed -n 's/^URL=//p' <<<"$cluster")"
trap '"$root/scripts/postgres.sh" stop "$pg_dir" >/dev/null 2>&1 || true' EXIT

FLEET_SERVER_BIN="$server" FLEET_TASK_CLIENT="$task_client" FLEET_HAPROXY="$haproxy" \
    FLEET_NODE="$ts_node" FLEET_TS_TASK_CLIENT="$ts_dir/task_client.mjs" FLEET_FAKETIME_LIB="$faketime_lib" \
    FLEET_OAUTH_MOCK="$oauth_dir/oauth_mock_server.mjs" \
    FLEET_HAPROXY_CFG="$root/examples/mcp_server/fleet/haproxy.cfg" \
    FLEET_PG_DIR="$pg_dir" FLEET_PG_URL="$pg_url" FLEET_PSQL="$(cat "$pg_dir/bin")/psql" \
    FLEET_POSTGRES_SH="$root/scripts/postgres.sh" \
    "$venv/bin/python" "$root/scripts/fleet_test.py"

#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance) over
# streamable HTTP, three runs:
#
#   1. 0.1.16, its active scenarios, against examples/mcp_server's
#      `mcp_conformance` binary (the suite's fixture tools on toolkit);
#   2. 0.2.0-alpha.12, the 2026-07-28 requirement set, against the same binary;
#   3. 0.2.0-alpha.12, the 2026-07-28 requirement set, against `mcp_server http`,
#      the stateless server users run (its `internal` endpoint, reached through
#      scripts/mcp_bearer_proxy.mjs, which adds the bearer token the suite cannot
#      send and leaves Host and Origin as the suite sent them).
#
# Each run's expected failures, each with its reason, are in
# scripts/mcp_conformance_baseline*.yml; the suite fails on any other failure or
# warning, and on a baseline entry that now passes.
#
# The suite needs Node 22 or newer: each suite version is installed, pinned,
# under target/mcp-conformance, and runs on the Node scripts/node.sh installs
# (pinned, under target/node), whatever Node the machine has.
#
#   MCP_CONFORMANCE_BIN  the conformance server binary (default: built with cargo)
#   MCP_SERVER_BIN       the example server binary (default: built with cargo)
#   MCP_CONFORMANCE_DIR  where the suites are installed
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base="${MCP_CONFORMANCE_DIR:-$root/target/mcp-conformance}"

command -v npm >/dev/null || { echo "npm is needed to install the conformance suite" >&2; exit 1; }

node="$("$root/scripts/node.sh")"

# Installs suite $1 under $base/$1 (once); sets `suite`.
install() {
    local version="$1" dir="$base/$1"
    suite="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
    if ! [[ -f "$suite" ]] \
        || ! grep -q "\"version\": \"$version\"" "$dir/node_modules/@modelcontextprotocol/conformance/package.json"; then
        mkdir -p "$dir"
        (cd "$dir" && npm install --silent --no-audit --no-fund --no-save \
            "@modelcontextprotocol/conformance@$version")
    fi
}

binary() {
    local variable="$1" name="$2"
    if [[ -n "${!variable:-}" ]]; then
        echo "${!variable}"
    else
        cargo build --quiet --manifest-path "$root/Cargo.toml" -p example-mcp-server --bin "$name"
        echo "${CARGO_TARGET_DIR:-$root/target}/debug/$name"
    fi
}
conformance_server="$(binary MCP_CONFORMANCE_BIN mcp_conformance)"
example_server="$(binary MCP_SERVER_BIN mcp_server)"

pids=()
logs=()
trap 'for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -f "${logs[@]}"' EXIT

# Starts "$@" in the background; sets `url` to what it prints after
# `listening on `.
start() {
    local log
    log="$(mktemp)"
    logs+=("$log")
    "$@" >"$log" 2>&1 &
    pids+=("$!")
    url=""
    for _ in $(seq 1 100); do
        url="$(sed -n 's/^listening on //p' "$log")"
        [[ -n "$url" ]] && return 0
        kill -0 "${pids[-1]}" 2>/dev/null || { cat "$log" >&2; exit 1; }
        sleep 0.1
    done
    echo "$1 did not start" >&2
    cat "$log" >&2
    exit 1
}

start "$conformance_server" http --addr 127.0.0.1:0
conformance_url="$url"

echo "== conformance 0.1.16, active scenarios, mcp_conformance"
install 0.1.16
"$node" "$suite" server --url "$conformance_url" --suite active \
    --expected-failures "$root/scripts/mcp_conformance_baseline.yml"

echo "== conformance 0.2.0-alpha.12, 2026-07-28 requirements, mcp_conformance"
install 0.2.0-alpha.12
"$node" "$suite" server --url "$conformance_url" --requirements 2026-07-28 \
    --expected-failures "$root/scripts/mcp_conformance_baseline_2026.yml"

echo "== conformance 0.2.0-alpha.12, 2026-07-28 requirements, mcp_server (stateless)"
token="conformance-$RANDOM$RANDOM"
MCP_TOKEN_INTERNAL="$token" MCP_TOKEN_COPILOT="copilot-$token" \
    MCP_TOKEN_EXTERNAL="external-$token" MCP_INBOX_TOKEN="inbox-$token" \
    start "$example_server" http --addr 127.0.0.1:0
MCP_PROXY_TARGET="$url" MCP_PROXY_TOKEN="$token" start "$node" "$root/scripts/mcp_bearer_proxy.mjs"
"$node" "$suite" server --url "$url/mcp/internal" --requirements 2026-07-28 \
    --expected-failures "$root/scripts/mcp_conformance_baseline_2026_mcp_server.yml"

#!/usr/bin/env bash
# The MCP Inspector CLI (TypeScript SDK) against examples/mcp_server: lists every
# tool and calls each one, over stdio and over streamable HTTP (with the
# endpoint's bearer token). A call may be a tool error (most tools need
# arguments); what must not happen is the SDK rejecting a result (it validates
# structured content against each tool's output schema, error results included).
#
# The Inspector is installed, pinned, under target/mcp-conformance (shared with
# scripts/mcp_conformance.sh), and runs on the Node 22 of scripts/node.sh.
#
#   MCP_SERVER_BIN       the mcp_server binary (default: built with cargo)
#   MCP_CONFORMANCE_BIN  the mcp_conformance binary (default: built with cargo)
#   MCP_CONFORMANCE_DIR  where the Inspector is installed
set -euo pipefail

INSPECTOR_VERSION="2.12.0"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${MCP_CONFORMANCE_DIR:-$root/target/mcp-conformance}"
node="$("$root/scripts/node.sh")"
inspector="$dir/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"

command -v npm >/dev/null || { echo "npm is needed to install the MCP Inspector" >&2; exit 1; }
if ! [[ -f "$inspector" ]] \
    || ! grep -q "\"version\": \"$INSPECTOR_VERSION\"" "$dir/node_modules/@modelcontextprotocol/inspector/package.json"; then
    mkdir -p "$dir"
    (cd "$dir" && npm install --silent --no-audit --no-fund --no-save \
        "@modelcontextprotocol/inspector@$INSPECTOR_VERSION")
fi

build() {
    cargo build --quiet --manifest-path "$root/Cargo.toml" -p example-mcp-server --bin "$1"
    echo "$root/target/debug/$1"
}
server="${MCP_SERVER_BIN:-$(build mcp_server)}"
conformance="${MCP_CONFORMANCE_BIN:-$(build mcp_conformance)}"

logs=()
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -f "${logs[@]}"
}
trap cleanup EXIT

# Starts `$@` (an HTTP server printing `listening on URL`); sets $url.
start() {
    local log
    log="$(mktemp)"
    logs+=("$log")
    "$@" >"$log" 2>&1 &
    pids+=($!)
    url=""
    for _ in $(seq 1 100); do
        url="$(sed -n 's/^listening on //p' "$log")"
        [[ -n "$url" ]] && return
        sleep 0.1
    done
    echo "the server did not start: $*" >&2
    cat "$log" >&2
    exit 1
}

token="inspector-$RANDOM$RANDOM$RANDOM"
MCP_TOKEN_INTERNAL="$token" start "$server" http --addr 127.0.0.1:0
server_url="$url/mcp/internal"
start "$conformance" http --addr 127.0.0.1:0
conformance_url="$url"

INSPECTOR_NODE="$node" INSPECTOR_CLI="$inspector" \
    "${PYTHON:-python3}" "$root/scripts/mcp_inspector_test.py" \
    "stdio:$server stdio --client internal" \
    "http:$server_url:$token" \
    "stdio:$conformance stdio" \
    "http:$conformance_url:"

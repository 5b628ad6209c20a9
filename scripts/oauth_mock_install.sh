#!/usr/bin/env bash
# Installs npm `oauth2-mock-server`, pinned, under target/oauth-test (the
# directory and version scripts/oauth_test.sh uses), and the Node 22 it needs
# (scripts/node.sh). Prints two lines: the Node binary's path, and the folder
# holding the packages' node_modules (a script that imports them sits there).
# Idempotent.
#
#   OAUTH_TEST_DIR  where the npm packages live
set -euo pipefail

MOCK_VERSION="9.3.0"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="${OAUTH_TEST_DIR:-$root/target/oauth-test}"

installed() {
    [[ -f "$tools/node_modules/$1/package.json" ]] &&
        grep -q "\"version\": \"$2\"" "$tools/node_modules/$1/package.json"
}
if ! installed oauth2-mock-server "$MOCK_VERSION"; then
    mkdir -p "$tools"
    [[ -f "$tools/package.json" ]] || echo '{"private": true}' >"$tools/package.json"
    (cd "$tools" && npm install --silent --no-audit --no-fund \
        "oauth2-mock-server@$MOCK_VERSION" >/dev/null)
fi
node="$("$root/scripts/node.sh")"
echo "$node"
echo "$tools"

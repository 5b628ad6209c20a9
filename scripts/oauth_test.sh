#!/usr/bin/env bash
# MCP authorization against servers and clients no one here wrote:
#   - npm `oauth2-mock-server` (a real OpenID Connect server: discovery, JWKS,
#     RS256-signed JWTs) as the authorization server, run by
#     scripts/oauth_mock_server.mjs;
#   - examples/mcp_server in its OAuth mode (--oauth-issuer, --resource);
#   - the official Python MCP SDK (`mcp`, pinned) obtaining tokens from the mock
#     server by itself (scripts/oauth_client_test.py);
#   - the MCP Inspector CLI (npm, pinned) listing tools with a bearer token.
#
# Everything is installed under target/oauth-test (npm packages),
# target/mcp-client-venv and target/node (the Node 22 of scripts/node.sh, since
# oauth2-mock-server 9 and the Inspector need Node 22), and runs on loopback; the
# processes are stopped on exit.
#
#   MCP_SERVER_BIN  the server binary (default: built with cargo)
#   OAUTH_TEST_DIR  where the npm packages live
#   MCP_VENV        where the Python virtual environment lives
set -euo pipefail

MOCK_VERSION="9.3.0"
INSPECTOR_VERSION="2.12.0"
MCP_VERSION="2.3.0"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="${OAUTH_TEST_DIR:-$root/target/oauth-test}"
venv="${MCP_VENV:-$root/target/mcp-client-venv}"

installed() {
    [[ -f "$tools/node_modules/$1/package.json" ]] &&
        grep -q "\"version\": \"$2\"" "$tools/node_modules/$1/package.json"
}
if ! installed oauth2-mock-server "$MOCK_VERSION" ||
    ! installed @modelcontextprotocol/inspector "$INSPECTOR_VERSION"; then
    mkdir -p "$tools"
    [[ -f "$tools/package.json" ]] || echo '{"private": true}' >"$tools/package.json"
    (cd "$tools" && npm install --silent --no-audit --no-fund \
        "oauth2-mock-server@$MOCK_VERSION" \
        "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >/dev/null)
fi
node="$("$root/scripts/node.sh")"

if ! "$venv/bin/python" -c "import mcp, importlib.metadata as m; assert m.version('mcp') == '$MCP_VERSION'" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_VERSION"
fi

server="${MCP_SERVER_BIN:-}"
if [[ -z "$server" ]]; then
    cargo build --quiet --manifest-path "$root/Cargo.toml" -p example-mcp-server --bin mcp_server
    server="$root/target/debug/mcp_server"
fi

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# The mock server's script must sit beside node_modules to import it.
cp "$root/scripts/oauth_mock_server.mjs" "$tools/oauth_mock_server.mjs"
"$node" "$tools/oauth_mock_server.mjs" >"$work/issuer.log" 2>&1 &
pids+=($!)
issuer=""
for _ in $(seq 1 100); do
    issuer="$(sed -n 's/^issuer //p' "$work/issuer.log")"
    [[ -n "$issuer" ]] && break
    sleep 0.1
done
[[ -n "$issuer" ]] || { echo "oauth2-mock-server did not start" >&2; cat "$work/issuer.log" >&2; exit 1; }

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
resource="http://127.0.0.1:$port/mcp"
"$server" http --addr "127.0.0.1:$port" --oauth-issuer "$issuer" --resource "$resource" >"$work/server.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
    grep -q '^listening on ' "$work/server.log" 2>/dev/null && break
    kill -0 "${pids[1]}" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
    sleep 0.1
done
grep -q '^listening on ' "$work/server.log" || { echo "the server did not start" >&2; cat "$work/server.log" >&2; exit 1; }

status=0
MCP_SERVER_URL="$resource" OAUTH_ISSUER="$issuer" "$venv/bin/python" "$root/scripts/oauth_client_test.py" || status=1

# The Inspector CLI: a token from the mock server (client_credentials, with the
# RFC 8707 resource), sent with --header.
token="$(curl -sf -u inspector:secret -d grant_type=client_credentials -d "scope=mcp external" \
    --data-urlencode "resource=$resource" "$issuer/token" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')"
inspector="$tools/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
if listed="$("$node" "$inspector" --cli --server-url "$resource" --transport http \
    --header "Authorization: Bearer $token" --method tools/list 2>"$work/inspector.err")"; then
    names="$(printf '%s' "$listed" | python3 -c 'import json, sys; print(" ".join(t["name"] for t in json.load(sys.stdin)["tools"]))')"
    if [[ "$names" == "create_tasks get_tasks update_tasks" ]]; then
        echo "ok inspector_lists_the_tokens_view"
    else
        echo "FAILED inspector_lists_the_tokens_view: $names"
        status=1
    fi
else
    echo "FAILED inspector_lists_the_tokens_view: $(cat "$work/inspector.err")"
    status=1
fi
if "$node" "$inspector" --cli --server-url "$resource" --transport http \
    --method tools/list >"$work/refused.out" 2>&1; then
    echo "FAILED inspector_without_a_token_is_refused: $(cat "$work/refused.out")"
    status=1
else
    echo "ok inspector_without_a_token_is_refused"
fi
exit "$status"

#!/usr/bin/env bash
# OpenTelemetry from examples/mcp_server, decoded with the official protobuf
# definitions.
#
# Creates its own virtual environment (target/otel-venv) with a pinned
# `opentelemetry-proto` from PyPI, then runs scripts/otel_test.py: an OTLP/HTTP
# receiver on a free loopback port, the server exporting to it, MCP requests
# carrying a client's trace context in `params._meta`, and on stdout one JSON
# document with every span and metric the receiver decoded.
#
#   MCP_SERVER_BIN     the server binary (default: built with cargo)
#   OTEL_VENV          where the virtual environment lives
#   OTEL_TEST_SIGNAL   TERM or INT: one call, then that signal at once (the
#                      spans that arrive were flushed as the server stopped)
set -euo pipefail

PROTO_VERSION="1.45.0"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${OTEL_VENV:-$root/target/otel-venv}"

if ! "$venv/bin/python" -c "import importlib.metadata as m; assert m.version('opentelemetry-proto') == '$PROTO_VERSION'" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "opentelemetry-proto==$PROTO_VERSION"
fi

server="${MCP_SERVER_BIN:-}"
if [[ -z "$server" ]]; then
    cargo build --quiet --manifest-path "$root/Cargo.toml" -p example-mcp-server --bin mcp_server
    server="$root/target/debug/mcp_server"
fi

MCP_SERVER_BIN="$server" "$venv/bin/python" "$root/scripts/otel_test.py"

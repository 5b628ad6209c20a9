#!/usr/bin/env bash
# Writes bench/routing/data/mcp_servers.json: the tools of 21 published MCP servers
# (npm and PyPI, pinned below), listed over stdio with the official Python SDK and
# named as toolkit's `ExternalServer` offers them (`{label}_{escaped name}`, group =
# label). The servers are installed into a temporary directory; nothing of them is
# committed but their tool lists. Servers that do not start without a live
# backend (redis, gdrive, sqlite, arxiv) are reported and left out.
#
# Usage: scripts/mcp_catalog.sh [OUT.json]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$(realpath -m "${1:-$root/bench/routing/data/mcp_servers.json}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

NPM_PACKAGES=(
    @modelcontextprotocol/server-aws-kb-retrieval@0.6.2
    @modelcontextprotocol/server-brave-search@0.6.2
    @modelcontextprotocol/server-everart@0.6.2
    @modelcontextprotocol/server-everything@2026.8.31
    @modelcontextprotocol/server-filesystem@2026.8.31
    @modelcontextprotocol/server-gdrive@2025.1.14
    @modelcontextprotocol/server-github@2025.4.8
    @modelcontextprotocol/server-gitlab@2025.4.25
    @modelcontextprotocol/server-google-maps@0.6.2
    @modelcontextprotocol/server-memory@2026.8.31
    @modelcontextprotocol/server-postgres@0.6.2
    @modelcontextprotocol/server-puppeteer@2025.5.12
    @modelcontextprotocol/server-redis@2025.4.25
    @modelcontextprotocol/server-sequential-thinking@2026.8.31
    @modelcontextprotocol/server-slack@2025.4.25
    @notionhq/notion-mcp-server@2.5.2
    @upstash/context7-mcp@4.1.1
    firecrawl-mcp@3.22.2
    tavily-mcp@0.2.22
)
PYPI_PACKAGES=(
    mcp==2.3.0
    mcp-server-fetch==2026.10.24
    mcp-server-git==2026.10.19
    mcp-server-time==2026.10.19
    mcp-server-sqlite==2025.4.25
    excel-mcp-server==2.2.2
    arxiv-mcp-server==0.6.1
)

mkdir -p "$work/npm"
echo '{"private": true}' >"$work/npm/package.json"
# --ignore-scripts: puppeteer's post-install would download a browser; listing
# tools needs none.
(cd "$work/npm" && npm install --silent --no-audit --no-fund --ignore-scripts "${NPM_PACKAGES[@]}" >&2)
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check "${PYPI_PACKAGES[@]}"
"$work/venv/bin/python" "$root/scripts/mcp_catalog/list_tools.py" \
    "$root/scripts/mcp_catalog/servers.json" "$work/npm/node_modules" "$work/venv" "$out"
echo "wrote $out"

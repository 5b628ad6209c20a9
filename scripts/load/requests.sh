# The load benchmark's requests, sourced by scripts/load_bench.sh,
# scripts/server_instructions.sh and scripts/server_costs.sh so that all three
# send the same bytes: for each request, its JSON-RPC method, the tool's name
# (the Mcp-Name header; empty for tools/list), the body (a self-contained MCP
# 2026-07-28 request, no session), and a text its answer must contain.
#   sum         tools/call get_sum (trivial)
#   pages       tools/call set_pages (a schema-constrained count)
#   list        tools/list
#   tasks       tools/call get_tasks on the example server
#   tasks_list  tools/list on the example server
# shellcheck shell=bash

meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
declare -A method name body expect
method[sum]=tools/call
name[sum]=get_sum
body[sum]='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_sum","arguments":{"a":2,"b":3},'"$meta"'}}'
expect[sum]='"text":"5"'
method[pages]=tools/call
name[pages]=set_pages
body[pages]='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"set_pages","arguments":{"count":40,"pinned":true},'"$meta"'}}'
expect[pages]='"text":"40"'
method[list]=tools/list
name[list]=""
body[list]='{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{'"$meta"'}}'
expect[list]='"name":"set_pages"'
method[tasks]=tools/call
name[tasks]=get_tasks
body[tasks]='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_tasks","arguments":{"limit":5},'"$meta"'}}'
expect[tasks]='"structuredContent"'
method[tasks_list]=tools/list
name[tasks_list]=""
body[tasks_list]="${body[list]}"
expect[tasks_list]='"name":"get_tasks"'

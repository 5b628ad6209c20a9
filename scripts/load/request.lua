-- wrk script of the load benchmark: every request is the same self-contained MCP
-- 2026-07-28 POST (no session, no initialize), taken from the environment:
--   LOAD_BODY    the JSON-RPC request
--   LOAD_METHOD  its method (the Mcp-Method header)
--   LOAD_NAME    the tool's name for tools/call (the Mcp-Name header), or empty
--   LOAD_TOKEN   a bearer token, or empty
-- At the end it prints one line: `RESULT requests/s p50 p99 p99.9 errors requests`
-- (latencies in microseconds; errors = socket errors + non-2xx answers).
wrk.method = "POST"
wrk.body = os.getenv("LOAD_BODY")
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = os.getenv("LOAD_METHOD")
local name = os.getenv("LOAD_NAME") or ""
if name ~= "" then
   wrk.headers["Mcp-Name"] = name
end
local token = os.getenv("LOAD_TOKEN") or ""
if token ~= "" then
   wrk.headers["Authorization"] = "Bearer " .. token
end

function done(summary, latency, requests)
   local errors = summary.errors.connect + summary.errors.read + summary.errors.write
      + summary.errors.status + summary.errors.timeout
   io.write(string.format("RESULT %.1f %d %d %d %d %d\n",
      summary.requests / (summary.duration / 1e6),
      latency:percentile(50), latency:percentile(99), latency:percentile(99.9), errors,
      summary.requests))
end

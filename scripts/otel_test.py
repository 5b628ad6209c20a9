"""An OTLP/HTTP receiver for examples/mcp_server's OpenTelemetry, decoding with
the official protobuf definitions (opentelemetry-proto).

Starts the receiver on a free loopback port and the server (MCP_SERVER_BIN)
exporting to it, sends MCP requests over streamable HTTP (2026-07-28) that carry
a client's trace context in `params._meta`, waits until the spans and metrics
have arrived, stops the server, and prints on stdout one JSON document: the
HTTP status of each request, and every span and metric point as decoded. The
test (examples/mcp_server/tests/observability.rs) checks them.

With OTEL_TEST_SIGNAL=TERM (or INT) it sends one call and then that signal
right away, with export intervals of ten minutes: what arrives was flushed by
the server as it stopped. The document adds the server's exit code.
"""

import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

# The client's trace: every request below but the last continues it.
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACESTATE = "congo=t61rcWkgMzE"
TOKEN = "internal-token"

spans = []
# The newest point of each metric series (the SDK exports cumulative sums).
points = {}
lock = threading.Lock()


def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(item) for item in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


def attributes(key_values):
    return {kv.key: value(kv.value) for kv in key_values}


def decode_spans(request):
    for resource_spans in request.resource_spans:
        service = attributes(resource_spans.resource.attributes).get("service.name")
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {
                    "name": span.name,
                    "kind": Span.SpanKind.Name(span.kind),
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "trace_state": span.trace_state,
                    "status": {
                        "code": Status.StatusCode.Name(span.status.code),
                        "message": span.status.message,
                    },
                    "attributes": attributes(span.attributes),
                    "links": [
                        {"trace_id": link.trace_id.hex(), "span_id": link.span_id.hex()}
                        for link in span.links
                    ],
                    "scope": scope_spans.scope.name,
                    "service": service,
                }


def decode_metrics(request):
    for resource_metrics in request.resource_metrics:
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                kind = metric.WhichOneof("data")
                data = getattr(metric, kind)
                for point in data.data_points:
                    entry = {
                        "name": metric.name,
                        "unit": metric.unit,
                        "kind": kind,
                        "scope": scope_metrics.scope.name,
                        "attributes": attributes(point.attributes),
                    }
                    if kind == "histogram":
                        entry["count"] = point.count
                        entry["bounds"] = list(point.explicit_bounds)
                    else:
                        entry["value"] = point.as_int if point.HasField("as_int") else point.as_double
                    yield entry


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        if self.path == "/v1/traces":
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            with lock:
                spans.extend(decode_spans(request))
            reply = ExportTraceServiceResponse()
        elif self.path == "/v1/metrics":
            request = ExportMetricsServiceRequest()
            request.ParseFromString(body)
            with lock:
                for point in decode_metrics(request):
                    key = (point["name"], json.dumps(point["attributes"], sort_keys=True))
                    points[key] = point
            reply = ExportMetricsServiceResponse()
        else:
            self.send_response(404)
            self.end_headers()
            return
        payload = reply.SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


def mcp(url, request_id, method, params, parent=None, name=None):
    """Sends one 2026-07-28 request; gives the HTTP status and the JSON answer."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "otel-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    if parent:
        meta["traceparent"] = f"00-{TRACE_ID}-{parent}-01"
        meta["tracestate"] = TRACESTATE
    body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": meta}}
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {TOKEN}",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
    }
    if name:
        headers["Mcp-Name"] = name
    request = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        text = error.read()
        try:
            return error.code, json.loads(text)
        except ValueError:
            return error.code, text.decode(errors="replace")


def main():
    # OTEL_TEST_SIGNAL=TERM (or INT): one call, then that signal at once, with
    # export intervals far longer than the run, so only the server's flush on
    # the signal brings the call's spans and metrics to the receiver.
    stop_signal = os.environ.get("OTEL_TEST_SIGNAL")
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{receiver.server_address[1]}"

    env = dict(
        os.environ,
        OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
        OTEL_SERVICE_NAME="otel-test-server",
        OTEL_BSP_SCHEDULE_DELAY="600000" if stop_signal else "100",
        OTEL_METRIC_EXPORT_INTERVAL="600000" if stop_signal else "200",
        MCP_TOKEN_INTERNAL=TOKEN,
        MCP_TOKEN_COPILOT="copilot-token",
        MCP_TOKEN_EXTERNAL="external-token",
        MCP_INBOX_TOKEN="inbox-token",
    )
    server = subprocess.Popen(
        [os.environ["MCP_SERVER_BIN"], "http", "--addr", "127.0.0.1:0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=sys.stderr,
        text=True,
        start_new_session=True,
    )
    try:
        line = server.stdout.readline()
        if not line.startswith("listening on "):
            raise SystemExit(f"the server did not start: {line!r}")
        url = line.removeprefix("listening on ").strip() + "/mcp/internal"

        if stop_signal:
            answers = [
                mcp(url, 1, "tools/call", {"name": "get_entities", "arguments": {}},
                    parent="1111111111111111", name="get_entities"),
            ]
            os.kill(server.pid, getattr(signal, "SIG" + stop_signal))
            started = time.monotonic()
            exit_code = server.wait(timeout=30)
            with lock:
                document = {
                    "statuses": [status for status, _ in answers],
                    "exit_code": exit_code,
                    "seconds_to_exit": round(time.monotonic() - started, 1),
                    "spans": spans,
                    "metrics": sorted(points.values(), key=lambda p: (p["name"], json.dumps(p["attributes"], sort_keys=True))),
                }
            print(json.dumps(document, indent=1, sort_keys=True))
            return

        answers = [
            mcp(url, 1, "tools/list", {}, parent="1111111111111111"),
            mcp(url, 2, "tools/call", {"name": "get_entities", "arguments": {}},
                parent="2222222222222222", name="get_entities"),
            mcp(url, 3, "tools/call", {"name": "get_entities", "arguments": {"id": 999}},
                parent="3333333333333333", name="get_entities"),
            mcp(url, 4, "tools/call", {"name": "no_such_tool", "arguments": {}},
                parent="4444444444444444", name="no_such_tool"),
            mcp(url, 5, "prompts/list", {}, parent="5555555555555555"),
            mcp(url, "six", "tools/call", {"name": "get_entities", "arguments": {}},
                name="get_entities"),
        ]

        def arrived():
            with lock:
                calls = sum(p["value"] for p in points.values() if p["name"] == "toolkit.tool.calls")
                requests = sum(
                    p["count"] for p in points.values() if p["name"] == "mcp.server.operation.duration"
                )
                return len(spans) >= 10 and calls >= 4 and requests >= 6

        deadline = time.monotonic() + 30
        while not arrived() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=10)
        receiver.shutdown()

    with lock:
        document = {
            "statuses": [status for status, _ in answers],
            "answers": [answer for _, answer in answers],
            "spans": spans,
            "metrics": sorted(points.values(), key=lambda p: (p["name"], json.dumps(p["attributes"], sort_keys=True))),
        }
    print(json.dumps(document, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()

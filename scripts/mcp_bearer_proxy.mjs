// A loopback proxy that adds `Authorization: Bearer $MCP_PROXY_TOKEN` to every
// request and forwards it to $MCP_PROXY_TARGET (http://127.0.0.1:PORT) with its
// path, method, body and other headers unchanged, Host and Origin included, so
// the server's DNS-rebinding check still sees what the client sent. The
// conformance suite's `server` command cannot add headers of its own.
// Prints `listening on http://127.0.0.1:PORT` once ready.
import http from "node:http";

const target = new URL(process.env.MCP_PROXY_TARGET);
const token = process.env.MCP_PROXY_TOKEN;

const server = http.createServer((request, response) => {
  const headers = { ...request.headers, authorization: `Bearer ${token}` };
  const upstream = http.request(
    {
      host: target.hostname,
      port: target.port,
      method: request.method,
      path: request.url,
      headers,
    },
    (answer) => {
      response.writeHead(answer.statusCode, answer.headers);
      answer.pipe(response);
    },
  );
  upstream.on("error", (error) => {
    response.writeHead(502, { "content-type": "text/plain" });
    response.end(`proxy: ${error.message}`);
  });
  request.pipe(upstream);
});

server.listen(0, "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});

// npm `oauth2-mock-server` as an RFC 7662 introspection endpoint, started by
// examples/mcp_server/tests/introspection.rs.
//
// The mock's own `POST /introspect` answers `{"active": true}` to anything, and
// its `beforeIntrospect` hook may change the answer (the package's documented way
// to simulate token metadata or an inactive token) but runs before the request
// body is read, so it cannot see the token. The test therefore says what the
// authorization server knows about the next token: it posts that answer to
// `POST /test/next-introspection` (`{}` restores the mock's own answer), and the
// hook answers it. The hook also requires the resource server's own credentials,
// HTTP Basic `toolkit-rs:rs-secret` (RFC 7662 section 2.1), else 401
// `invalid_client`.
// Prints `issuer <url>` once listening; stops on SIGTERM.
import { OAuth2Server } from "oauth2-mock-server";

const CLIENT = "Basic " + Buffer.from("toolkit-rs:rs-secret").toString("base64");

const server = new OAuth2Server();
await server.issuer.keys.generate("RS256");

let next = null;
server.service.addRoute("POST", "/test/next-introspection", (req, res) => {
  next = req.body && Object.keys(req.body).length > 0 ? req.body : null;
  res.writeHead(204);
  res.end();
});
server.service.on("beforeIntrospect", (response, req) => {
  if (req.headers.authorization !== CLIENT) {
    response.statusCode = 401;
    response.body = { error: "invalid_client" };
    return;
  }
  if (next) response.body = next;
});

await server.start(0, "127.0.0.1");
console.log(`issuer ${server.issuer.url}`);
process.on("SIGTERM", async () => {
  await server.stop();
  process.exit(0);
});

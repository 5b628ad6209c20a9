// A real OpenID Connect server for tests: npm `oauth2-mock-server` (discovery,
// JWKS, RS256-signed JWT access tokens), started by scripts/oauth_test.sh.
//
// The client-credentials tokens get, as an authorization server for MCP
// would give them: `sub` = the client id (client_credentials, from HTTP Basic or
// the form), `aud` = the RFC 8707 `resource` parameter the client sent.
// The scopes granted are those asked for that the client's policy allows, as a
// real authorization server decides them (unknown clients get none).
// Prints `issuer <url>` once listening; stops on SIGTERM.
import { OAuth2Server } from "oauth2-mock-server";

const POLICY = {
  "partner-app": ["mcp", "external"],
  "staff-laptop": ["mcp", "internal"],
  "no-mcp-app": ["external"],
  inspector: ["mcp", "external"],
  // scripts/fleet_test.py's users of the OAuth fleet.
  "fleet-ada": ["mcp", "internal"],
  "fleet-bob": ["mcp", "internal"],
  "fleet-cyd": ["mcp", "internal"],
  "fleet-dan": ["mcp", "internal"],
};

// People signing in (the authorization-code flow, from a browser): the mock has
// no login page, so the client names who signs in with OpenID Connect's
// `login_hint` (`/signin?login_hint=ada` in the example); the tokens that code
// buys are theirs (`sub`). Without a hint, the mock's own `johndoe` signs in.
const SIGNED_IN = new Map();

const server = new OAuth2Server();
await server.issuer.keys.generate("RS256");

server.service.on("beforeAuthorizeRedirect", (redirect, req) => {
  const hint = req.query?.login_hint;
  const code = redirect.url.searchParams.get("code");
  if (typeof hint === "string" && hint && code) SIGNED_IN.set(code, hint);
});

server.service.on("beforeTokenSigning", (token, req) => {
  const body = req.body ?? {};
  if (body.grant_type === "authorization_code") {
    token.payload.sub = SIGNED_IN.get(body.code) ?? "johndoe";
    return;
  }
  let client = body.client_id;
  const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? "");
  if (basic) {
    client = decodeURIComponent(Buffer.from(basic[1], "base64").toString().split(":")[0]);
  }
  if (client) token.payload.sub = client;
  const asked = String(body.scope ?? "").split(" ").filter(Boolean);
  const allowed = POLICY[client] ?? [];
  token.payload.scope = asked.filter((scope) => allowed.includes(scope)).join(" ");
  if (body.resource) token.payload.aud = body.resource;
});

await server.start(0, "127.0.0.1");
console.log(`issuer ${server.issuer.url}`);
process.on("SIGTERM", async () => {
  await server.stop();
  process.exit(0);
});

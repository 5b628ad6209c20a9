//! MCP authorization (feature `oauth`): the HTTP server as an OAuth 2.1 resource
//! server, whose verified access tokens choose each caller's view.
//!
//! The MCP authorization specification makes a streamable HTTP server a
//! *resource server*: clients discover its authorization server from the
//! protected resource metadata it serves (RFC 9728), obtain an access token whose
//! audience is the server's canonical URL (RFC 8707), and send it as
//! `Authorization: Bearer <token>` on every request. This module is that door:
//!
//! - [`TokenVerifier`] checks a token and returns a [`VerifiedToken`] (subject,
//!   scopes, claims). [`JwtVerifier`] checks JWTs against the issuer's JWKS
//!   (found by discovery or configured); [`IntrospectionVerifier`] asks the
//!   authorization server about opaque tokens (RFC 7662); bring your own by
//!   implementing the trait.
//! - [`ResourceServer`] holds the verifier and the metadata. Given to
//!   [`McpHttp::oauth_endpoint`](super::McpHttp::oauth_endpoint), it answers a
//!   missing or invalid token with `401` and `WWW-Authenticate: Bearer
//!   resource_metadata="…"`, a token lacking a required scope with `403
//!   error="insufficient_scope"`, a token in the query string with `400`, and
//!   serves `/.well-known/oauth-protected-resource/<path>`.
//! - The verified token reaches the [`Access`](super::Access) hook as
//!   [`Caller::token`](super::Caller::token): its
//!   [`principal`](VerifiedToken::principal) (`iss` and `sub`, through the
//!   verifier's [`ClaimsMapping`](crate::ClaimsMapping)) is whom the view acts for,
//!   the requester approvals bind to and the key quotas count under; give the
//!   inbox's sign-in the same mapping so the same person is the same principal
//!   there. [`ScopeMap`] turns its scopes (or a claim you name) [`ScopeMap`] turns its scopes (or a claim you name)
//!   into allowlist entries (tool names, `@group`s, `preset:<name>`s) of the view.
//!   What the token does not allow is not in the view, so it is neither listed nor
//!   callable under any name or alias.
//!
//! Tokens are never passed through: tools of other MCP servers (feature
//! `mcp-client`) are reached with the credentials their `ExternalServer` was
//! configured with, never with the caller's token (the specification forbids
//! token passthrough). Static per-endpoint tokens ([`McpHttp::endpoint`](super::McpHttp::endpoint))
//! remain, as the development mode.
//!
//! ```no_run
//! use toolkit::mcp::auth::{JwtVerifier, ResourceServer, ScopeMap};
//! use toolkit::mcp::{AccessError, Caller, Grant, McpHttp};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! // The canonical URL clients use for this server: tokens must carry it as `aud`.
//! let resource = "https://tools.example.com/mcp";
//! let issuer = "https://auth.example.com";
//!
//! // JWTs signed by the issuer's keys, found through its discovery document.
//! let verifier = JwtVerifier::discover(issuer, resource).await?;
//! let auth = ResourceServer::new(resource, verifier)?
//!     .authorization_server(issuer)
//!     .scopes_supported(["tasks:read", "tasks:write"])
//!     // Every request needs at least this scope, or gets 403 insufficient_scope.
//!     .required_scopes(["tasks:read"]);
//!
//! // Scopes choose tools: entries of the view's allowlist.
//! let scopes = ScopeMap::new()
//!     .scope("tasks:read", ["get_tasks"])
//!     .scope("tasks:write", ["@tasks"]);
//! let access = move |caller: &Caller<'_>| -> Result<Grant, AccessError> {
//!     let token = caller.token().ok_or(AccessError::NoVerifiedToken)?;
//!     // No mapped scope: `allow` with no entries, an empty view.
//!     let view = toolkit::registry()
//!         .view()
//!         .allow(scopes.entries(token))
//!         .label(token.principal.subject().to_owned())
//!         .build()?;
//!     Ok(Grant::new(view, toolkit::Context::new()))
//! };
//!
//! // Requests for `Host: tools.example.com`, the resource URL's host, are
//! // accepted beside loopback ones; `.allowed_hosts([...])` names any others.
//! let router = McpHttp::new(access)
//!     .oauth_endpoint("external", "/mcp", auth)
//!     .into_router();
//! let listener = tokio::net::TcpListener::bind("0.0.0.0:8080").await?;
//! axum::serve(listener, router).await?;
//! # Ok(())
//! # }
//! ```

mod fetch;
mod introspection;
mod jwt;
mod resource;
mod scopes;
mod token;

pub use introspection::IntrospectionVerifier;
pub use jwt::{DEFAULT_LEEWAY, JwtVerifier, JwtVerifierBuilder};
pub use resource::{ProtectedResourceMetadata, ResourceServer};
pub use scopes::ScopeMap;
pub use token::{AuthError, TokenVerifier, VerifiedToken, VerifyFuture};

pub(super) use resource::require_verified_token;
pub(crate) use token::audiences;

impl<'a> super::Caller<'a> {
    /// The verified access token of this request: set on endpoints added with
    /// [`McpHttp::oauth_endpoint`](super::McpHttp::oauth_endpoint), `None`
    /// elsewhere (static-token endpoints, stdio).
    #[must_use]
    pub fn token(&self) -> Option<&'a VerifiedToken> {
        self.extensions?.get::<VerifiedToken>()
    }
}

#[cfg(test)]
mod tests;

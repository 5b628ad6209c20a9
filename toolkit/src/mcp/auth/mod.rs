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
//!   [`Caller::token`](super::Caller::token): its subject is the principal
//!   approvals bind to, and [`ScopeMap`] turns its scopes (or a claim you name)
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
//! use toolkit::mcp::{Caller, Grant, McpHttp};
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
//! let access = move |caller: &Caller<'_>| -> Result<Grant, String> {
//!     let token = caller.token().ok_or("no verified token")?;
//!     // No mapped scope: `allow` with no entries, an empty view.
//!     let view = toolkit::registry()
//!         .view()
//!         .allow(scopes.entries(token))
//!         .label(token.subject.clone())
//!         .build()
//!         .map_err(|error| error.to_string())?;
//!     Ok(Grant::new(view, toolkit::Context::new()))
//! };
//!
//! let router = McpHttp::new(access)
//!     .allowed_hosts(["tools.example.com"])
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

use std::fmt;
use std::future::Future;
use std::pin::Pin;

pub use introspection::IntrospectionVerifier;
pub use jwt::{DEFAULT_LEEWAY, JwtVerifier, JwtVerifierBuilder};
pub use resource::{ProtectedResourceMetadata, ResourceServer};
pub use scopes::ScopeMap;

pub(super) use resource::require_verified_token;

/// A token the verifier accepted: who it speaks for and what it allows.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct VerifiedToken {
    /// The principal: the token's `sub` claim. Approvals bind to it.
    pub subject: String,
    /// The granted scopes (the space-separated `scope` claim, or `scp`).
    pub scopes: Vec<String>,
    /// Every claim of the token (or of the introspection answer), for hooks that
    /// read more (`client_id`, roles, tenant).
    pub claims: serde_json::Map<String, serde_json::Value>,
}

impl VerifiedToken {
    /// A verified token for `subject` with `scopes` and no other claims: for
    /// verifiers of your own and for tests.
    #[must_use]
    pub fn new(
        subject: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        VerifiedToken {
            subject: subject.into(),
            scopes: scopes.into_iter().map(Into::into).collect(),
            claims: serde_json::Map::new(),
        }
    }

    /// Whether the token grants `scope`.
    #[must_use]
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }

    /// Reads subject and scopes from checked `claims`. A token without a
    /// non-empty `sub` is refused: approvals need a principal.
    pub(crate) fn from_claims(
        claims: serde_json::Map<String, serde_json::Value>,
    ) -> Result<Self, AuthError> {
        let subject = match claims.get("sub") {
            Some(serde_json::Value::String(subject)) if !subject.is_empty() => subject.clone(),
            _ => return Err(AuthError::invalid("the token has no subject (`sub`)")),
        };
        let scopes = scopes_of(&claims);
        Ok(VerifiedToken {
            subject,
            scopes,
            claims,
        })
    }
}

/// The scopes of a claims set: `scope` as a space-separated string (RFC 9068,
/// RFC 7662), or `scp` as a string or an array (Azure AD, Okta).
fn scopes_of(claims: &serde_json::Map<String, serde_json::Value>) -> Vec<String> {
    let words =
        |text: &str| -> Vec<String> { text.split_whitespace().map(str::to_owned).collect() };
    match claims.get("scope").or_else(|| claims.get("scp")) {
        Some(serde_json::Value::String(text)) => words(text),
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .filter_map(serde_json::Value::as_str)
            .flat_map(str::split_whitespace)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// Why a token was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthError {
    /// The token is malformed, expired, not for this resource, or its signature
    /// does not verify: the client gets `401 error="invalid_token"`. The text is
    /// sent as `error_description`, so it says what failed, never a secret.
    InvalidToken(String),
    /// The token could not be checked because the authorization server (its JWKS,
    /// its introspection endpoint) could not be reached or answered nonsense: the
    /// client gets `503` and may retry; nothing is listed or run.
    Unavailable(String),
    /// The verifier's configuration is unusable (no keys, an HMAC algorithm
    /// allowed, a plain-HTTP URL to a remote host): found when building it.
    Config(String),
}

impl AuthError {
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        AuthError::InvalidToken(message.into())
    }

    pub(crate) fn unavailable(message: impl Into<String>) -> Self {
        AuthError::Unavailable(message.into())
    }
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthError::InvalidToken(message) => write!(f, "invalid token: {message}"),
            AuthError::Unavailable(message) => {
                write!(f, "the token could not be checked: {message}")
            }
            AuthError::Config(message) => write!(f, "unusable verifier configuration: {message}"),
        }
    }
}

impl std::error::Error for AuthError {}

/// What [`TokenVerifier::verify`] returns.
pub type VerifyFuture<'a> =
    Pin<Box<dyn Future<Output = Result<VerifiedToken, AuthError>> + Send + 'a>>;

/// Checks a bearer access token. Implemented by [`JwtVerifier`] and
/// [`IntrospectionVerifier`]; implement it to bring your own (a session store, a
/// different token format).
///
/// A verifier must check that the token was issued *for this resource* (its
/// audience), not merely that it is genuine: a token a user got for another
/// service must not open this one.
pub trait TokenVerifier: Send + Sync + 'static {
    /// Verifies `token` (the text after `Bearer `).
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a>;
}

impl<T: TokenVerifier + ?Sized> TokenVerifier for std::sync::Arc<T> {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        (**self).verify(token)
    }
}

impl<'a> super::Caller<'a> {
    /// The verified access token of this request: set on endpoints added with
    /// [`McpHttp::oauth_endpoint`](super::McpHttp::oauth_endpoint), `None`
    /// elsewhere (static-token endpoints, stdio).
    #[must_use]
    pub fn token(&self) -> Option<&'a VerifiedToken> {
        self.extensions?.get::<VerifiedToken>()
    }
}

/// The distinct audiences of a claims set's `aud` (a string or an array).
pub(crate) fn audiences(claims: &serde_json::Map<String, serde_json::Value>) -> Vec<&str> {
    match claims.get("aud") {
        Some(serde_json::Value::String(one)) => vec![one.as_str()],
        Some(serde_json::Value::Array(many)) => {
            many.iter().filter_map(serde_json::Value::as_str).collect()
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests;

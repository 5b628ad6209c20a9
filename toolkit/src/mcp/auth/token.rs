//! What every verifier shares: the token it accepted ([`VerifiedToken`]), why it
//! refused one ([`AuthError`]) and the trait itself ([`TokenVerifier`]). A leaf,
//! so the verifiers, the scope map and the resource server use these without
//! using the module that gathers them.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::principal::{ClaimsMapping, Principal, PrincipalError};

/// A token the verifier accepted: who it speaks for and what it allows.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct VerifiedToken {
    /// The principal: the token's `iss` and `sub` (and a tenant, if the
    /// verifier's [`ClaimsMapping`] names one), made by that mapping. Approvals,
    /// decisions, the audit and quotas bind to it.
    pub principal: Principal,
    /// The granted scopes (the space-separated `scope` claim, or `scp`).
    pub scopes: Vec<String>,
    /// Every claim of the token (or of the introspection answer), for hooks that
    /// read more (`client_id`, roles, tenant).
    pub claims: serde_json::Map<String, serde_json::Value>,
}

impl VerifiedToken {
    /// A verified token for `principal` with `scopes` and no other claims: for
    /// verifiers of your own (make the principal with the [`ClaimsMapping`] the
    /// inbox's sign-in uses) and for tests.
    #[must_use]
    pub fn new(principal: Principal, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        VerifiedToken {
            principal,
            scopes: scopes.into_iter().map(Into::into).collect(),
            claims: serde_json::Map::new(),
        }
    }

    /// Whether the token grants `scope`.
    #[must_use]
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }

    /// Reads the principal (through `mapping`; `issuer` stands in for a missing
    /// `iss`) and the scopes from checked `claims`. A token that makes no
    /// principal (no `sub`, an empty one, one with a control character) is
    /// refused: approvals need one.
    pub(crate) fn from_claims(
        claims: serde_json::Map<String, serde_json::Value>,
        mapping: &ClaimsMapping,
        issuer: Option<&str>,
    ) -> Result<Self, AuthError> {
        let principal = mapping
            .principal_of(&claims, issuer)
            .map_err(|error| match error {
                PrincipalError::MissingClaim(claim) if claim == "sub" => {
                    AuthError::invalid("the token has no subject (`sub`)")
                }
                PrincipalError::Empty(crate::principal::PrincipalPart::Subject) => {
                    AuthError::invalid("the token has no subject (`sub`)")
                }
                other => AuthError::invalid(format!("the token names no principal: {other}")),
            })?;
        let scopes = scopes_of(&claims);
        Ok(VerifiedToken {
            principal,
            scopes,
            claims,
        })
    }
}

/// The scopes of a claims set: `scope` as a space-separated string (RFC 9068,
/// RFC 7662), or `scp` as a string or an array (Azure AD, Okta).
///
/// RFC 6749 §3.3: scopes are separated by the ASCII space alone, so a tab or a
/// no-break space is part of a scope (`mcp\u{a0}internal` is one unknown scope,
/// not `mcp` and `internal`); an array's element is one whole scope.
pub(super) fn scopes_of(claims: &serde_json::Map<String, serde_json::Value>) -> Vec<String> {
    match claims.get("scope").or_else(|| claims.get("scp")) {
        Some(serde_json::Value::String(text)) => split_scopes(text),
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .filter_map(serde_json::Value::as_str)
            .filter(|scope| !scope.is_empty())
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// A space-delimited scope list (RFC 6749 §3.3), split on U+0020 only.
pub(super) fn split_scopes(text: &str) -> Vec<String> {
    text.split(' ')
        .filter(|scope| !scope.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Why a token was not accepted.
///
/// Two errors are equal when they are the same variant saying the same thing; the
/// cause of an [`Unavailable`](AuthError::Unavailable) is not compared.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum AuthError {
    /// The token is malformed, expired, not for this resource, or its signature
    /// does not verify: the client gets `401 error="invalid_token"`. The text is
    /// sent as `error_description`, so it says what failed, never a secret.
    InvalidToken(String),
    /// The token could not be checked because the authorization server (its JWKS,
    /// its introspection endpoint) could not be reached or answered nonsense: the
    /// client gets `503` and may retry; nothing is listed or run.
    ///
    /// `message` says what failed, the HTTP client's words included; `source` is
    /// that error itself when there is one (a `reqwest::Error` for a server that
    /// could not be reached, a `serde_json::Error` for an answer that does not
    /// parse), what [`source`](std::error::Error::source) returns, to downcast.
    Unavailable {
        /// What failed, in words.
        message: String,
        /// The error that made it fail, if there is one. An `Arc` so the error
        /// stays `Clone`.
        source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
    },
    /// The verifier's configuration is unusable (no keys, an HMAC algorithm
    /// allowed, a plain-HTTP URL to a remote host): found when building it.
    Config(String),
}

impl AuthError {
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        AuthError::InvalidToken(message.into())
    }

    pub(crate) fn unavailable(message: impl Into<String>) -> Self {
        AuthError::Unavailable {
            message: message.into(),
            source: None,
        }
    }

    /// An [`Unavailable`](AuthError::Unavailable) saying `message`, caused by
    /// `source`.
    pub(crate) fn unavailable_because(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        AuthError::Unavailable {
            message: message.into(),
            source: Some(Arc::new(source)),
        }
    }
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthError::InvalidToken(message) => write!(f, "invalid token: {message}"),
            AuthError::Unavailable { message, .. } => {
                write!(f, "the token could not be checked: {message}")
            }
            AuthError::Config(message) => write!(f, "unusable verifier configuration: {message}"),
        }
    }
}

// By hand rather than derived: thiserror would hand out the `Arc` itself, which
// does not downcast to the HTTP client's error type.
impl std::error::Error for AuthError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AuthError::Unavailable {
                source: Some(source),
                ..
            } => Some(&**source as &(dyn std::error::Error + 'static)),
            _ => None,
        }
    }
}

impl PartialEq for AuthError {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (AuthError::InvalidToken(one), AuthError::InvalidToken(other))
            | (AuthError::Config(one), AuthError::Config(other))
            | (
                AuthError::Unavailable { message: one, .. },
                AuthError::Unavailable { message: other, .. },
            ) => one == other,
            _ => false,
        }
    }
}

impl Eq for AuthError {}

/// What [`TokenVerifier::verify`] returns.
pub type VerifyFuture<'a> =
    Pin<Box<dyn Future<Output = Result<VerifiedToken, AuthError>> + Send + 'a>>;

/// Checks a bearer access token. Implemented by [`JwtVerifier`](super::JwtVerifier) and
/// [`IntrospectionVerifier`](super::IntrospectionVerifier); implement it to bring your own (a session store, a
/// different token format).
///
/// A verifier must check that the token was issued *for this resource* (its
/// audience), not merely that it is genuine: a token a user got for another
/// service must not open this one.
pub trait TokenVerifier: Send + Sync + 'static {
    /// Verifies `token` (the text after `Bearer `).
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a>;
}

impl<T: TokenVerifier + ?Sized> TokenVerifier for Arc<T> {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        (**self).verify(token)
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

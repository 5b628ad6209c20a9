//! The resource server's door: token checks on every request, the challenges
//! (RFC 6750, RFC 9728 §5.1) and the protected resource metadata document.

use std::fmt;
use std::sync::Arc;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use http::{HeaderValue, StatusCode, header};
use serde::Serialize;

use super::{AuthError, TokenVerifier};

/// Where RFC 9728 puts the metadata of a resource: the well-known prefix
/// inserted before the resource URL's path.
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The protected resource metadata (RFC 9728 §2) a [`ResourceServer`] serves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ProtectedResourceMetadata {
    /// The resource's canonical URL: the audience its tokens must carry.
    pub resource: String,
    /// The issuers of tokens for it.
    pub authorization_servers: Vec<String>,
    /// The scopes its tokens may carry.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scopes_supported: Vec<String>,
    /// How tokens are sent: only in the `Authorization` header.
    pub bearer_methods_supported: Vec<String>,
    /// A name for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
}

/// An MCP endpoint as an OAuth 2.1 resource server: the token verifier and the
/// metadata clients discover the authorization server from. Give it to
/// [`McpHttp::oauth_endpoint`](crate::mcp::McpHttp::oauth_endpoint).
///
/// Every request is answered before MCP sees it when:
///
/// | request | answer |
/// |---|---|
/// | `access_token` in the query string | `400`, `error="invalid_request"` |
/// | no `Authorization: Bearer` header | `401`, `Bearer resource_metadata="…"` |
/// | the verifier refuses the token | `401`, `error="invalid_token"` and the reason |
/// | the token lacks a [required scope](Self::required_scopes) | `403`, `error="insufficient_scope"`, `scope="…"` |
/// | the authorization server can't be reached | `503` |
///
/// Otherwise the [`VerifiedToken`](super::VerifiedToken) goes with the request to
/// the [`Access`](crate::mcp::Access) hook ([`Caller::token`](crate::mcp::Caller::token)).
#[derive(Clone)]
#[must_use]
pub struct ResourceServer {
    metadata: ProtectedResourceMetadata,
    metadata_url: String,
    metadata_path: String,
    required_scopes: Vec<String>,
    verifier: Arc<dyn TokenVerifier>,
}

impl ResourceServer {
    /// The resource at the canonical URL `resource` (the URL clients connect to,
    /// like `https://tools.example.com/mcp`), whose tokens `verifier` checks. The
    /// metadata is served at `/.well-known/oauth-protected-resource` followed by
    /// the URL's path.
    pub fn new(
        resource: impl Into<String>,
        verifier: impl TokenVerifier,
    ) -> Result<Self, AuthError> {
        let resource = resource.into();
        let parsed = reqwest::Url::parse(&resource)
            .map_err(|error| AuthError::Config(format!("`{resource}` is not a URL: {error}")))?;
        if parsed.fragment().is_some() || parsed.query().is_some() {
            return Err(AuthError::Config(format!(
                "the resource URL `{resource}` must have no query or fragment (RFC 8707)"
            )));
        }
        let metadata_path = metadata_path(&resource)?;
        let metadata_url = format!("{}{metadata_path}", parsed.origin().ascii_serialization());
        Ok(ResourceServer {
            metadata: ProtectedResourceMetadata {
                resource,
                authorization_servers: Vec::new(),
                scopes_supported: Vec::new(),
                bearer_methods_supported: vec!["header".to_owned()],
                resource_name: None,
            },
            metadata_url,
            metadata_path,
            required_scopes: Vec::new(),
            verifier: Arc::new(verifier),
        })
    }

    /// An issuer of tokens for this resource (listed in `authorization_servers`).
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.metadata.authorization_servers.push(issuer.into());
        self
    }

    /// The scopes listed in `scopes_supported` (clients ask for these).
    pub fn scopes_supported(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.metadata.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Scopes every request needs: a valid token missing any gets `403
    /// insufficient_scope` naming them, before anything is listed or run. Which
    /// tools a token reaches is the view's business ([`ScopeMap`](super::ScopeMap)).
    pub fn required_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// A name for people, served as `resource_name`.
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.metadata.resource_name = Some(name.into());
        self
    }

    /// The metadata document served.
    #[must_use]
    pub fn metadata(&self) -> &ProtectedResourceMetadata {
        &self.metadata
    }

    /// The URL of the metadata document (sent in `resource_metadata`).
    #[must_use]
    pub fn metadata_url(&self) -> &str {
        &self.metadata_url
    }

    /// The path the metadata is served at.
    pub(crate) fn metadata_route(&self) -> &str {
        &self.metadata_path
    }

    /// The challenge: `Bearer` with the parameters given, `resource_metadata` last.
    fn challenge(&self, parameters: &[(&str, &str)]) -> HeaderValue {
        let mut value = String::from("Bearer ");
        for (name, text) in parameters
            .iter()
            .copied()
            .chain([("resource_metadata", self.metadata_url.as_str())])
        {
            if !value.ends_with(' ') {
                value.push_str(", ");
            }
            value.push_str(name);
            value.push_str("=\"");
            value.push_str(&quoted(text));
            value.push('"');
        }
        HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
    }

    /// A refusal. The request's body is left unread, so the connection is closed
    /// (`Connection: close`): a client that reused it for its next request would
    /// otherwise see it dropped mid-request.
    fn refuse(&self, status: StatusCode, parameters: &[(&str, &str)], body: &str) -> Response {
        (
            status,
            [
                (header::WWW_AUTHENTICATE, self.challenge(parameters)),
                (header::CONNECTION, HeaderValue::from_static("close")),
            ],
            body.to_owned(),
        )
            .into_response()
    }

    /// The answer to the metadata request.
    pub(crate) fn metadata_response(&self) -> Response {
        match serde_json::to_string(&self.metadata) {
            Ok(body) => (
                [
                    (header::CONTENT_TYPE, "application/json"),
                    (header::CACHE_CONTROL, "public, max-age=3600"),
                ],
                body,
            )
                .into_response(),
            Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        }
    }
}

impl fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceServer")
            .field("metadata", &self.metadata)
            .field("required_scopes", &self.required_scopes)
            .finish_non_exhaustive()
    }
}

/// The RFC 9728 metadata path of `resource`: the well-known prefix, then the
/// resource URL's path without its trailing slash.
pub(crate) fn metadata_path(resource: &str) -> Result<String, AuthError> {
    let parsed = reqwest::Url::parse(resource)
        .map_err(|error| AuthError::Config(format!("`{resource}` is not a URL: {error}")))?;
    Ok(format!(
        "{WELL_KNOWN}{}",
        parsed.path().trim_end_matches('/')
    ))
}

/// `text` made fit for a quoted-string of a challenge: RFC 6750 §3 allows
/// printable ASCII except `"` and `\` in error descriptions; anything else
/// becomes a space.
pub(super) fn quoted(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            ' '..='~' if c != '"' && c != '\\' => c,
            _ => ' ',
        })
        .collect()
}

/// Whether the query string carries an `access_token` parameter.
pub(super) fn token_in_query(query: Option<&str>) -> bool {
    query.is_some_and(|query| {
        query.split('&').any(|pair| {
            let name = pair.split_once('=').map_or(pair, |(name, _)| name);
            name.eq_ignore_ascii_case("access_token") || name.eq_ignore_ascii_case("access%5Ftoken")
        })
    })
}

/// Lets the request through with its verified token, or answers it (see
/// [`ResourceServer`]).
pub(crate) async fn require_verified_token(
    auth: Arc<ResourceServer>,
    mut request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_owned();
    if token_in_query(request.uri().query()) {
        tracing::info!(%path, "MCP request refused: a token in the query string");
        return auth.refuse(
            StatusCode::BAD_REQUEST,
            &[
                ("error", "invalid_request"),
                (
                    "error_description",
                    "access tokens are accepted in the Authorization header only",
                ),
            ],
            "access tokens are accepted in the Authorization header only",
        );
    }
    let required = auth.required_scopes.join(" ");
    let Some(token) = crate::mcp::bearer::bearer_token(request.headers()) else {
        tracing::info!(%path, "MCP request refused: no bearer token");
        // No `scope` here: MCP clients request the challenge's scope when there
        // is one, else `scopes_supported`, and the view depends on more than the
        // scopes every request needs.
        return auth.refuse(
            StatusCode::UNAUTHORIZED,
            &[],
            "a bearer access token is required",
        );
    };
    match auth.verifier.verify(token).await {
        Ok(verified) => {
            let missing: Vec<&str> = auth
                .required_scopes
                .iter()
                .filter(|scope| !verified.has_scope(scope))
                .map(String::as_str)
                .collect();
            if !missing.is_empty() {
                tracing::info!(%path, principal = %verified.principal, missing = %missing.join(" "), "MCP request refused: insufficient scope");
                let description = format!("the token lacks the scope {}", missing.join(" "));
                return auth.refuse(
                    StatusCode::FORBIDDEN,
                    &[
                        ("error", "insufficient_scope"),
                        ("scope", &required),
                        ("error_description", &description),
                    ],
                    &description,
                );
            }
            let token = crate::mcp::bearer::Bearer(Arc::from(token));
            request.extensions_mut().insert(verified);
            request.extensions_mut().insert(token);
            next.run(request).await
        }
        Err(AuthError::InvalidToken(reason)) => {
            tracing::info!(%path, %reason, "MCP request refused: invalid token");
            auth.refuse(
                StatusCode::UNAUTHORIZED,
                &[("error", "invalid_token"), ("error_description", &reason)],
                &format!("invalid token: {reason}"),
            )
        }
        Err(AuthError::Unavailable {
            message: reason, ..
        }) => {
            tracing::warn!(%path, %reason, "MCP request refused: the token could not be checked");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                [(header::RETRY_AFTER, "5"), (header::CONNECTION, "close")],
                "the access token could not be checked; try again",
            )
                .into_response()
        }
        Err(AuthError::Config(reason)) => {
            tracing::error!(%path, %reason, "MCP request refused: the verifier is misconfigured");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                [(header::CONNECTION, "close")],
                "the access token could not be checked",
            )
                .into_response()
        }
    }
}

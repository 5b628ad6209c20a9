//! An authorization server of the test's own, for the OAuth tests of the example
//! servers (feature `oauth`): discovery (`/.well-known/openid-configuration`)
//! and a JWKS on a loopback port, tokens signed with the RSA keys of `toolkit/src/mcp/auth/testdata`, and a raw
//! `tools/call` that shows what a server answers a token before any client
//! library reads it.
//!
//! ```no_run
//! # async fn test() {
//! use toolkit_test_support::oauth;
//!
//! let issuer = oauth::issuer().await;
//! let resource = "http://127.0.0.1:8080/mcp"; // the server under test
//! let token = oauth::token(&issuer, resource, "user:1", "mcp:external");
//! let (status, challenge, body) =
//!     oauth::raw_call(resource, Some(&token), "get_tasks", serde_json::json!({})).await;
//! # }
//! ```

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

/// The issuer's signing key (RSA, DER), whose public half the JWKS serves as
/// [`ISSUER_KID`].
pub const ISSUER_KEY: &[u8] = include_bytes!("../../toolkit/src/mcp/auth/testdata/issuer.der");

/// The key id of [`ISSUER_KEY`] in the JWKS.
pub const ISSUER_KID: &str = "issuer-1";

/// An authorization server on a loopback port: discovery and a JWKS, whose
/// fetches are counted, which answers `500` while `failing` and never answers
/// while `hanging`.
pub struct Issuer {
    /// Its issuer URL (`http://127.0.0.1:PORT`).
    pub url: String,
    /// How many times the JWKS was fetched.
    pub fetches: Arc<AtomicUsize>,
    /// The keys it serves; a test may rotate them.
    pub jwks: Arc<RwLock<JwkSet>>,
    /// While set, the JWKS is answered `500`.
    pub failing: Arc<AtomicBool>,
    /// While set, a JWKS request gets no answer (an hour's wait): an issuer that
    /// hangs.
    pub hanging: Arc<AtomicBool>,
}

/// The public JWK of the RSA key `der`, named `kid`.
///
/// # Panics
///
/// If `der` is not an RSA key.
#[must_use]
pub fn jwk(der: &[u8], kid: &str) -> Jwk {
    let mut jwk = Jwk::from_encoding_key(&EncodingKey::from_rsa_der(der), Algorithm::RS256)
        .expect("an RSA key");
    jwk.common.key_id = Some(kid.to_owned());
    jwk
}

/// Starts an [`Issuer`] serving [`ISSUER_KEY`] on the test's runtime.
///
/// # Panics
///
/// If no loopback port can be bound.
pub async fn issuer() -> Issuer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let url = format!("http://{}", listener.local_addr().expect("bound"));
    let fetches = Arc::new(AtomicUsize::new(0));
    let failing = Arc::new(AtomicBool::new(false));
    let hanging = Arc::new(AtomicBool::new(false));
    let jwks = Arc::new(RwLock::new(JwkSet {
        keys: vec![jwk(ISSUER_KEY, ISSUER_KID)],
    }));
    let discovery = json!({
        "issuer": url,
        "jwks_uri": format!("{url}/jwks"),
        "token_endpoint": format!("{url}/token"),
    })
    .to_string();
    let router = axum::Router::new()
        .route(
            "/.well-known/openid-configuration",
            axum::routing::get(move || {
                let discovery = discovery.clone();
                async move { discovery }
            }),
        )
        .route(
            "/jwks",
            axum::routing::get({
                let (fetches, jwks) = (Arc::clone(&fetches), Arc::clone(&jwks));
                let (failing, hanging) = (Arc::clone(&failing), Arc::clone(&hanging));
                move || {
                    fetches.fetch_add(1, Ordering::SeqCst);
                    let body = serde_json::to_string(
                        &*jwks
                            .read()
                            .unwrap_or_else(std::sync::PoisonError::into_inner),
                    )
                    .unwrap_or_default();
                    let status = if failing.load(Ordering::SeqCst) {
                        http::StatusCode::INTERNAL_SERVER_ERROR
                    } else {
                        http::StatusCode::OK
                    };
                    let hangs = hanging.load(Ordering::SeqCst);
                    async move {
                        if hangs {
                            tokio::time::sleep(std::time::Duration::from_hours(1)).await;
                        }
                        (status, body)
                    }
                }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, router).await });
    Issuer {
        url,
        fetches,
        jwks,
        failing,
        hanging,
    }
}

/// Seconds since the Unix epoch.
#[must_use]
pub fn now() -> u64 {
    jsonwebtoken::get_current_timestamp()
}

/// The claims of a good token of `issuer` for `audience` (a server's resource
/// URL), `subject` and `scope`, valid for five minutes.
#[must_use]
pub fn claims(issuer: &Issuer, audience: &str, subject: &str, scope: &str) -> Value {
    json!({
        "iss": issuer.url,
        "sub": subject,
        "aud": audience,
        "iat": now(),
        "nbf": now() - 10,
        "exp": now() + 300,
        "scope": scope,
    })
}

/// `claims` signed with the RSA key `key` (RS256), under key id `kid`.
///
/// # Panics
///
/// If `key` is not an RSA key.
#[must_use]
pub fn sign(key: &[u8], kid: &str, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, claims, &EncodingKey::from_rsa_der(key)).expect("signs")
}

/// A good token of `issuer` (its key and key id) for `audience`, `subject` and
/// `scope`.
#[must_use]
pub fn token(issuer: &Issuer, audience: &str, subject: &str, scope: &str) -> String {
    sign(
        ISSUER_KEY,
        ISSUER_KID,
        &claims(issuer, audience, subject, scope),
    )
}

/// A raw MCP 2026-07-28 `tools/call` of `tool` with `arguments` to `url`, with
/// `token` as its bearer token if given: the answer's status, its
/// `WWW-Authenticate` header (empty without one) and its body.
///
/// # Panics
///
/// If the server can't be reached or its answer read.
pub async fn raw_call(
    url: &str,
    token: Option<&str>,
    tool: &str,
    arguments: Value,
) -> (u16, String, String) {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": tool,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    });
    let mut request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(body.to_string());
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (status, challenge, response.text().await.expect("a body"))
}

/// The protected resource metadata URL of a server whose resource URL ends in
/// `/mcp` (RFC 9728: the path inserted after the well-known prefix).
#[must_use]
pub fn metadata_url(resource: &str) -> String {
    resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
}

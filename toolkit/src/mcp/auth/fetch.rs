//! Bounded JSON requests to the authorization server (discovery, JWKS,
//! introspection).

use std::time::Duration;

use super::AuthError;

/// The largest metadata, JWKS or introspection answer read.
const MAX_BODY: usize = 256 * 1024;

/// The HTTP client verifiers use (reqwest, the client rmcp's HTTP client is built
/// on).
#[derive(Clone)]
pub(super) struct HttpClient(pub(super) reqwest::Client);

impl std::fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HttpClient")
    }
}

impl HttpClient {
    /// A client with a 10 s timeout that follows no redirects (an authorization
    /// server's endpoints are where its metadata says).
    pub(super) fn default_client() -> Self {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_else(|_| reqwest::Client::new());
        HttpClient(client)
    }
}

/// How the resource server authenticates to the authorization server.
#[derive(Clone)]
pub(super) enum Credentials {
    /// HTTP Basic with an (already form-encoded) client id and secret.
    Basic(String, String),
    /// A bearer token of the resource server's own.
    Bearer(String),
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Secrets stay out of logs.
        match self {
            Credentials::Basic(id, _) => f.debug_tuple("Basic").field(id).finish_non_exhaustive(),
            Credentials::Bearer(_) => f.write_str("Bearer(..)"),
        }
    }
}

/// `application/x-www-form-urlencoded` encoding of `text`, as RFC 6749 §2.3.1
/// asks of client credentials sent with HTTP Basic.
pub(super) fn form_encode(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                encoded.push(char::from(byte));
            }
            b' ' => encoded.push('+'),
            _ => {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                encoded.push('%');
                encoded.push(char::from(HEX[usize::from(byte >> 4)]));
                encoded.push(char::from(HEX[usize::from(byte & 0xF)]));
            }
        }
    }
    encoded
}

/// Accepts `https` URLs, and `http` ones only to loopback hosts (development,
/// tests): tokens and keys are not fetched in the clear across a network.
pub(super) fn check_url(url: &str) -> Result<reqwest::Url, AuthError> {
    let parsed = reqwest::Url::parse(url)
        .map_err(|error| AuthError::Config(format!("`{url}` is not a URL: {error}")))?;
    let loopback = match parsed.host_str() {
        Some("localhost") => true,
        Some(host) => host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|address| address.is_loopback()),
        None => false,
    };
    match parsed.scheme() {
        "https" => Ok(parsed),
        "http" if loopback => Ok(parsed),
        _ => Err(AuthError::Config(format!(
            "`{url}` must be an https URL (plain http is accepted for loopback hosts only)"
        ))),
    }
}

/// GETs `url` and parses its JSON body.
pub(super) async fn get_json(http: &HttpClient, url: &str) -> Result<serde_json::Value, AuthError> {
    let request = http
        .0
        .get(url)
        .header(::http::header::ACCEPT, "application/json");
    send(request, url).await
}

/// POSTs `form` to `url` (with `authorization`, if any) and parses the JSON answer.
pub(super) async fn post_form_json(
    http: &HttpClient,
    url: &str,
    form: &[(&str, &str)],
    credentials: Option<&Credentials>,
) -> Result<serde_json::Value, AuthError> {
    let mut request = http
        .0
        .post(url)
        .header(::http::header::ACCEPT, "application/json")
        .form(form);
    match credentials {
        Some(Credentials::Basic(id, secret)) => request = request.basic_auth(id, Some(secret)),
        Some(Credentials::Bearer(token)) => request = request.bearer_auth(token),
        None => {}
    }
    send(request, url).await
}

async fn send(request: reqwest::RequestBuilder, url: &str) -> Result<serde_json::Value, AuthError> {
    let unreachable = |error: reqwest::Error| {
        let hint = if url.starts_with("https:") && cfg!(not(feature = "oauth-rustls")) {
            " (HTTPS needs TLS: enable toolkit's `oauth-rustls` feature or give a client with TLS)"
        } else {
            ""
        };
        AuthError::unavailable_because(format!("{url} could not be reached: {error}{hint}"), error)
    };
    let mut response = request.send().await.map_err(unreachable)?;
    if !response.status().is_success() {
        return Err(AuthError::unavailable(format!(
            "{url} answered {}",
            response.status()
        )));
    }
    if response
        .content_length()
        .is_some_and(|length| length > MAX_BODY as u64)
    {
        return Err(AuthError::unavailable(format!("{url} answered too much")));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(unreachable)? {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(AuthError::unavailable(format!("{url} answered too much")));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|error| {
        AuthError::unavailable_because(format!("{url} answered no JSON: {error}"), error)
    })
}

/// The issuer's metadata: RFC 8414 authorization server metadata, else `OpenID`
/// Connect discovery, each at the path-inserted and (for `OpenID`) the appended
/// location. The document's `issuer` must equal `issuer` (RFC 8414 §3.3), or a
/// server could vouch for another's tokens.
pub(super) async fn discover(
    http: &HttpClient,
    issuer: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, AuthError> {
    let parsed = check_url(issuer)?;
    let origin = parsed.origin().ascii_serialization();
    let path = parsed.path().trim_end_matches('/');
    let candidates = [
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
        format!(
            "{}/.well-known/openid-configuration",
            issuer.trim_end_matches('/')
        ),
    ];
    let mut last_error = AuthError::unavailable("no metadata location was tried");
    for candidate in candidates {
        match get_json(http, &candidate).await {
            Ok(serde_json::Value::Object(document)) => {
                let named = document.get("issuer").and_then(serde_json::Value::as_str);
                if named != Some(issuer) {
                    return Err(AuthError::unavailable(format!(
                        "the metadata at {candidate} is for issuer {named:?}, not {issuer:?}"
                    )));
                }
                return Ok(document);
            }
            Ok(_) => {
                last_error =
                    AuthError::unavailable(format!("the metadata at {candidate} is not an object"));
            }
            Err(error) => last_error = error,
        }
    }
    Err(last_error)
}

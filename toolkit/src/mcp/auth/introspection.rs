//! Opaque access tokens, asked about at the authorization server (RFC 7662).

use super::fetch::{self, Credentials, HttpClient};
use super::{AuthError, TokenVerifier, VerifiedToken, VerifyFuture, audiences};
use crate::principal::ClaimsMapping;

/// Verifies opaque (or any) access tokens by asking the authorization server's
/// introspection endpoint (RFC 7662) on every request.
///
/// The answer must say `"active": true`; its `aud` must contain this server's
/// resource URL and its `iss` (when present) the expected issuer; `exp` and `nbf`
/// (when present) are checked against the clock as for JWTs, with
/// [`DEFAULT_LEEWAY`](super::DEFAULT_LEEWAY). The resource server authenticates
/// itself with HTTP Basic client credentials or a bearer token of its own.
/// Answers are not cached: a revoked token stops working at once, at the cost of
/// one round trip per request.
#[derive(Debug)]
pub struct IntrospectionVerifier {
    endpoint: String,
    audience: String,
    issuer: Option<String>,
    mapping: ClaimsMapping,
    authorization: Option<Credentials>,
    http: HttpClient,
}

impl IntrospectionVerifier {
    /// Asks `endpoint` about tokens, accepting those whose audience includes
    /// `audience` (this server's canonical resource URL).
    pub fn new(
        endpoint: impl Into<String>,
        audience: impl Into<String>,
    ) -> Result<Self, AuthError> {
        let endpoint = endpoint.into();
        fetch::check_url(&endpoint)?;
        Ok(IntrospectionVerifier {
            endpoint,
            audience: audience.into(),
            issuer: None,
            mapping: ClaimsMapping::new(),
            authorization: None,
            http: HttpClient::default_client(),
        })
    }

    /// Authenticates to the endpoint with HTTP Basic `client_id`/`client_secret`
    /// (form-urlencoded first, as RFC 6749 §2.3.1 asks).
    #[must_use]
    pub fn client_credentials(mut self, client_id: &str, client_secret: &str) -> Self {
        self.authorization = Some(Credentials::Basic(
            fetch::form_encode(client_id),
            fetch::form_encode(client_secret),
        ));
        self
    }

    /// Authenticates to the endpoint with a bearer token of the resource server's
    /// own (never a caller's).
    #[must_use]
    pub fn bearer(mut self, token: &str) -> Self {
        self.authorization = Some(Credentials::Bearer(token.to_owned()));
        self
    }

    /// How an answer's claims become the caller's [`Principal`](crate::Principal)
    /// (default: `iss` and `sub`); give the inbox's sign-in the same mapping.
    #[must_use]
    pub fn claims_mapping(mut self, mapping: ClaimsMapping) -> Self {
        self.mapping = mapping;
        self
    }

    /// Accepts only answers whose `iss` is `issuer`.
    #[must_use]
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// The HTTP client (see [`JwtVerifierBuilder::http_client`](super::JwtVerifierBuilder::http_client)).
    #[must_use]
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = HttpClient(client);
        self
    }

    async fn check(&self, token: &str) -> Result<VerifiedToken, AuthError> {
        if token.len() > 16 * 1024 {
            return Err(AuthError::invalid("the token is too long"));
        }
        let answer = fetch::post_form_json(
            &self.http,
            &self.endpoint,
            &[("token", token), ("token_type_hint", "access_token")],
            self.authorization.as_ref(),
        )
        .await?;
        let serde_json::Value::Object(claims) = answer else {
            return Err(AuthError::unavailable(
                "the introspection answer is not an object",
            ));
        };
        if claims.get("active") != Some(&serde_json::Value::Bool(true)) {
            return Err(AuthError::invalid("the token is not active"));
        }
        if !audiences(&claims).contains(&self.audience.as_str()) {
            return Err(AuthError::invalid(
                "the token is not for this resource (`aud`)",
            ));
        }
        if let Some(issuer) = &self.issuer
            && claims.get("iss").and_then(serde_json::Value::as_str) != Some(issuer)
        {
            return Err(AuthError::invalid("the token is from another issuer"));
        }
        let now = jsonwebtoken::get_current_timestamp();
        let leeway = super::DEFAULT_LEEWAY.as_secs();
        let time = |name: &str| claims.get(name).and_then(serde_json::Value::as_u64);
        if time("exp").is_some_and(|exp| exp.saturating_add(leeway) < now) {
            return Err(AuthError::invalid("the token has expired"));
        }
        if time("nbf").is_some_and(|nbf| nbf > now.saturating_add(leeway)) {
            return Err(AuthError::invalid("the token is not valid yet (`nbf`)"));
        }
        VerifiedToken::from_claims(claims, &self.mapping, self.issuer.as_deref())
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(self.check(token))
    }
}

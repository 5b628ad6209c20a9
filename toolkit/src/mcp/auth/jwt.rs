//! JWT access tokens checked against the issuer's JWKS (with `jsonwebtoken`).

use crate::principal::ClaimsMapping;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, Validation};

use super::fetch::{self, HttpClient};
use super::{AuthError, TokenVerifier, VerifiedToken, VerifyFuture};

/// The clock skew tolerated on `exp` and `nbf`: 30 seconds. A token expired 29
/// seconds ago still passes; one expired 31 seconds ago does not.
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);

/// The longest token looked at; longer ones are refused unread.
const MAX_TOKEN_LEN: usize = 16 * 1024;

/// The signature algorithms accepted unless [`JwtVerifierBuilder::algorithms`]
/// says otherwise: the asymmetric ones. HMAC is never accepted (a JWKS holds
/// public keys; an HMAC "verified" with a public key is forged by anyone), and
/// `none` is not an algorithm `jsonwebtoken` knows.
const DEFAULT_ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Verifies JWT access tokens (RFC 9068 style) issued by one authorization server.
///
/// - The signature is checked with the key named by the token's `kid` from the
///   issuer's JWKS, fetched from `jwks_uri` (configured, or found by
///   [`discover`](Self::discover)) or given directly. Keys are cached; a `kid`
///   not in the cache refetches the JWKS, at most once per
///   [`min_refresh_interval`](JwtVerifierBuilder::min_refresh_interval) (default
///   30 s), so a flood of made-up `kid`s is not a flood of fetches. One fetch is
///   in flight at a time, and the requests that wait for it share its outcome.
///   After a failed fetch the verifier answers
///   [`Unavailable`](AuthError::Unavailable) (`503`) without fetching again for
///   1 s, then 2 s, 4 s, ... at most 30 s while the fetches keep failing, so
///   requests with made-up `kid`s are no retry storm against a sick issuer; a
///   success ends the back-off. The cache is
///   refreshed after [`max_key_age`](JwtVerifierBuilder::max_key_age) (default 1 h),
///   so keys the issuer withdrew stop working. Header parameters that point at
///   keys (`jku`, `jwk`, `x5u`) are ignored. RSA keys under 2048 bits in the JWKS
///   verify nothing (a warning names their `kid`).
/// - The header's `typ`, when present, must be an access token's: `at+jwt`,
///   `application/at+jwt` or `JWT`, in any case (RFC 9068 §4); logout tokens,
///   security event tokens and `DPoP` proofs signed by the same issuer are refused.
/// - The algorithm is the header's, and must be in the allowlist (asymmetric
///   algorithms only; `none` and HMAC are refused) and match the key's type (and
///   the key's `alg`, when the JWKS states one).
/// - `iss` must equal the issuer, `aud` must contain the resource (this server's
///   canonical URL, RFC 8707), `exp` must be in the future and `nbf` (when
///   present) in the past, each with [`DEFAULT_LEEWAY`] unless configured; `sub`
///   must be present: with `iss`, it is the principal (see
///   [`JwtVerifierBuilder::claims_mapping`]).
#[derive(Debug)]
pub struct JwtVerifier {
    issuer: String,
    audience: String,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    mapping: ClaimsMapping,
    source: KeySource,
    keys: RwLock<KeyCache>,
    /// What the fetches so far came to; held while fetching, so concurrent
    /// requests wait for the one fetch in flight and share its outcome.
    refreshes: tokio::sync::Mutex<Refreshes>,
    /// How many fetches have finished (either way): a request that saw one
    /// number before waiting and another after shares the fetch that finished.
    finished_fetches: AtomicU64,
    min_refresh_interval: Duration,
    max_key_age: Duration,
    fetches: AtomicU64,
}

/// The first wait after a failed JWKS fetch: 1 s, doubled after each further
/// failure up to [`MAX_FAILURE_BACKOFF`].
const FIRST_FAILURE_BACKOFF: Duration = Duration::from_secs(1);

/// The longest wait between two fetches of a JWKS that keeps failing: 30 s.
const MAX_FAILURE_BACKOFF: Duration = Duration::from_secs(30);

/// The JWKS fetches so far, as far as the next one cares.
#[derive(Debug, Default)]
struct Refreshes {
    /// When the JWKS was last fetched successfully.
    succeeded_at: Option<Instant>,
    /// Failed fetches since the last success.
    failures: u32,
    /// After a failure: no fetch before then, and the failure is the answer.
    retry_at: Option<Instant>,
    /// The outcome of the last fetch, shared with the requests that waited for it.
    last: Option<Result<(), AuthError>>,
}

impl Refreshes {
    /// The wait after the `failures`-th failure in a row: 1 s, 2 s, 4 s, ...,
    /// at most 30 s.
    fn backoff(failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1).min(16);
        FIRST_FAILURE_BACKOFF
            .saturating_mul(1 << doublings)
            .min(MAX_FAILURE_BACKOFF)
    }
}

#[derive(Debug)]
enum KeySource {
    Fixed,
    Remote { jwks_uri: String, http: HttpClient },
}

#[derive(Debug, Default)]
struct KeyCache {
    by_kid: HashMap<String, Arc<Key>>,
    /// Keys without a `kid`: usable by tokens without one when there is exactly one.
    unnamed: Vec<Arc<Key>>,
    fetched_at: Option<Instant>,
}

struct Key {
    decoding: DecodingKey,
    /// The key's own `alg`, when the JWKS states it.
    algorithm: Option<Algorithm>,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Key")
            .field("family", &self.decoding.family())
            .field("algorithm", &self.algorithm)
            .finish()
    }
}

/// Configures a [`JwtVerifier`]; see [`JwtVerifier::builder`].
#[derive(Debug)]
#[must_use]
pub struct JwtVerifierBuilder {
    issuer: String,
    audience: String,
    jwks_uri: Option<String>,
    jwks: Option<JwkSet>,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    mapping: ClaimsMapping,
    min_refresh_interval: Duration,
    max_key_age: Duration,
    http: Option<HttpClient>,
}

impl JwtVerifier {
    /// A verifier for tokens issued by `issuer` (the exact `iss` value) for
    /// `audience` (this server's canonical resource URL, the exact `aud` value).
    /// Give it keys with [`jwks_uri`](JwtVerifierBuilder::jwks_uri) or
    /// [`jwks`](JwtVerifierBuilder::jwks).
    pub fn builder(issuer: impl Into<String>, audience: impl Into<String>) -> JwtVerifierBuilder {
        JwtVerifierBuilder {
            issuer: issuer.into(),
            audience: audience.into(),
            jwks_uri: None,
            jwks: None,
            algorithms: DEFAULT_ALGORITHMS.to_vec(),
            leeway: DEFAULT_LEEWAY,
            mapping: ClaimsMapping::new(),
            min_refresh_interval: Duration::from_secs(30),
            max_key_age: Duration::from_hours(1),
            http: None,
        }
    }

    /// A verifier whose `jwks_uri` comes from the issuer's metadata: OAuth
    /// authorization server metadata (RFC 8414,
    /// `/.well-known/oauth-authorization-server`), else `OpenID` Connect discovery
    /// (`/.well-known/openid-configuration`). The document's `issuer` must equal
    /// `issuer`.
    pub async fn discover(
        issuer: impl Into<String>,
        audience: impl Into<String>,
    ) -> Result<Self, AuthError> {
        Self::builder(issuer, audience).discover().await
    }

    /// How many times the JWKS was fetched (including failed attempts): for
    /// monitoring, and for checking the refetch limit.
    #[must_use]
    pub fn jwks_fetches(&self) -> u64 {
        self.fetches.load(Ordering::Relaxed)
    }

    /// The issuer tokens must name.
    #[must_use]
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    async fn check(&self, token: &str) -> Result<VerifiedToken, AuthError> {
        if token.len() > MAX_TOKEN_LEN {
            return Err(AuthError::invalid("the token is too long"));
        }
        // `none` (and any name jsonwebtoken doesn't know) fails here: the header
        // does not parse into a known algorithm.
        let header = jsonwebtoken::decode_header(token).map_err(|_| {
            AuthError::invalid("the token header is malformed or names an unknown algorithm")
        })?;
        refuse_critical_parameters(token)?;
        refuse_other_token_types(header.typ.as_deref())?;
        if !self.algorithms.contains(&header.alg) {
            return Err(AuthError::invalid(format!(
                "the signing algorithm {:?} is not accepted",
                header.alg
            )));
        }
        let key = self.key(header.kid.as_deref()).await?;
        if key.decoding.family() != header.alg.family()
            || key
                .algorithm
                .is_some_and(|algorithm| algorithm != header.alg)
        {
            return Err(AuthError::invalid(format!(
                "the signing algorithm {:?} does not match the key",
                header.alg
            )));
        }
        let mut validation = Validation::new(header.alg);
        validation.algorithms = vec![header.alg];
        validation.leeway = self.leeway.as_secs();
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.validate_aud = true;
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let data = jsonwebtoken::decode::<serde_json::Map<String, serde_json::Value>>(
            token,
            &key.decoding,
            &validation,
        )
        .map_err(|error| AuthError::invalid(describe(&error)))?;
        // jsonwebtoken also accepts an array containing the issuer; RFC 7519
        // §4.1.1 makes `iss` one StringOrURI, and RFC 9068 §2.2 one issuer.
        if !matches!(data.claims.get("iss"), Some(serde_json::Value::String(iss)) if *iss == self.issuer)
        {
            return Err(AuthError::invalid("the token is from another issuer"));
        }
        VerifiedToken::from_claims(data.claims, &self.mapping, None)
    }

    /// The key for `kid`, refetching the JWKS (rate-limited) when it is unknown
    /// or the cache is old.
    async fn key(&self, kid: Option<&str>) -> Result<Arc<Key>, AuthError> {
        let stale = self
            .read_cache()
            .fetched_at
            .is_none_or(|at| at.elapsed() >= self.max_key_age);
        if stale && matches!(self.source, KeySource::Remote { .. }) {
            // A failed refresh keeps the old keys: the issuer being briefly
            // unreachable should not lock everyone out. With keys cached, a
            // request does not wait for a refresh another one has in flight.
            let cached = self.read_cache().fetched_at.is_some();
            if let Err(error) = self.refresh(!cached).await {
                if !cached {
                    return Err(error);
                }
                tracing::debug!(%error, "the JWKS could not be refreshed; using the cached keys");
            }
        }
        if let Some(key) = self.lookup(kid) {
            return Ok(key);
        }
        if matches!(self.source, KeySource::Remote { .. })
            && self.refresh(true).await?
            && let Some(key) = self.lookup(kid)
        {
            return Ok(key);
        }
        Err(AuthError::invalid(match kid {
            Some(_) => "the token's key id (`kid`) is not one of the issuer's keys",
            None => "the token names no key (`kid`) and the issuer has several",
        }))
    }

    fn lookup(&self, kid: Option<&str>) -> Option<Arc<Key>> {
        let cache = self.read_cache();
        match kid {
            Some(kid) => cache.by_kid.get(kid).cloned(),
            None => match (cache.unnamed.as_slice(), cache.by_kid.len()) {
                ([only], 0) => Some(Arc::clone(only)),
                ([], 1) => cache.by_kid.values().next().cloned(),
                _ => None,
            },
        }
    }

    fn read_cache(&self) -> std::sync::RwLockReadGuard<'_, KeyCache> {
        self.keys.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Fetches the JWKS unless it was fetched less than `min_refresh_interval`
    /// ago, or failed less than its back-off ago (then the failure is the
    /// answer). Returns whether the keys may have changed.
    ///
    /// Single-flight: a request that waited for a fetch in flight shares its
    /// outcome rather than making another; `wait: false` returns at once
    /// (`Ok(false)`) when a fetch is in flight.
    async fn refresh(&self, wait: bool) -> Result<bool, AuthError> {
        let KeySource::Remote { jwks_uri, http } = &self.source else {
            return Ok(false);
        };
        let seen = self.finished_fetches.load(Ordering::Acquire);
        let mut refreshes = if wait {
            self.refreshes.lock().await
        } else {
            match self.refreshes.try_lock() {
                Ok(refreshes) => refreshes,
                Err(_) => return Ok(false),
            }
        };
        if self.finished_fetches.load(Ordering::Acquire) != seen
            && let Some(last) = &refreshes.last
        {
            return last.clone().map(|()| true);
        }
        if refreshes
            .succeeded_at
            .is_some_and(|at| at.elapsed() < self.min_refresh_interval)
        {
            return Ok(false);
        }
        if let (Some(retry_at), Some(Err(error))) = (refreshes.retry_at, &refreshes.last)
            && Instant::now() < retry_at
        {
            // The issuer failed a moment ago: told again, not asked again, so
            // made-up `kid`s are no retry storm against it. Still `503`, never
            // "unknown key".
            return Err(error.clone());
        }
        self.fetches.fetch_add(1, Ordering::Relaxed);
        let outcome = self.fetch(jwks_uri, http).await;
        match &outcome {
            Ok(()) => {
                refreshes.succeeded_at = Some(Instant::now());
                refreshes.failures = 0;
                refreshes.retry_at = None;
            }
            Err(error) => {
                refreshes.failures = refreshes.failures.saturating_add(1);
                let backoff = Refreshes::backoff(refreshes.failures);
                refreshes.retry_at = Some(Instant::now() + backoff);
                tracing::warn!(%error, failures = refreshes.failures, retry_in_ms = u64::try_from(backoff.as_millis()).unwrap_or(u64::MAX), "the JWKS could not be fetched");
            }
        }
        refreshes.last = Some(outcome.clone());
        self.finished_fetches.fetch_add(1, Ordering::Release);
        outcome.map(|()| true)
    }

    /// One fetch of the JWKS into the cache.
    async fn fetch(&self, jwks_uri: &str, http: &HttpClient) -> Result<(), AuthError> {
        let document = fetch::get_json(http, jwks_uri).await?;
        let set: JwkSet = serde_json::from_value(document).map_err(|error| {
            AuthError::unavailable_because(format!("the JWKS is malformed: {error}"), error)
        })?;
        let cache = key_cache(&set);
        tracing::debug!(keys = cache.by_kid.len() + cache.unnamed.len(), %jwks_uri, "JWKS fetched");
        *self.keys.write().unwrap_or_else(PoisonError::into_inner) = cache;
        Ok(())
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(self.check(token))
    }
}

/// Refuses a token whose header carries `crit` (RFC 7515 §4.1.11: a recipient
/// must reject critical extensions it does not understand, and this verifier
/// understands none) or `b64` (RFC 7797: an unencoded payload, which changes
/// what the signature covers). jsonwebtoken ignores header parameters it does
/// not model, so the header is read here.
fn refuse_critical_parameters(token: &str) -> Result<(), AuthError> {
    use base64::Engine as _;
    let malformed = || AuthError::invalid("the token header is malformed");
    let encoded = token.split('.').next().ok_or_else(malformed)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(encoded)
        .map_err(|_| malformed())?;
    let header: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&bytes).map_err(|_| malformed())?;
    if header.contains_key("crit") {
        return Err(AuthError::invalid(
            "the token header names critical parameters (`crit`) this server does not understand",
        ));
    }
    if header.contains_key("b64") {
        return Err(AuthError::invalid(
            "the token header asks for an unencoded payload (`b64`), which is not accepted",
        ));
    }
    Ok(())
}

/// The `typ` header values of an access token, compared case-insensitively
/// (media types are, RFC 2045 §5.1): RFC 9068's `at+jwt` (and its full media
/// type), and the `JWT` most issuers still write.
const ACCESS_TOKEN_TYPES: [&str; 3] = ["at+jwt", "application/at+jwt", "jwt"];

/// Refuses a token whose `typ` names another kind of JWT (RFC 9068 §4: a
/// resource server rejects a token of another type). Logout tokens, security
/// event tokens and `DPoP` proofs may be signed by the same issuer with the same
/// keys, and carry `iss`, `aud` and `sub` too: only the header tells them from an
/// access token. A missing `typ` is accepted, as many issuers omit it.
fn refuse_other_token_types(typ: Option<&str>) -> Result<(), AuthError> {
    match typ {
        None => Ok(()),
        Some(typ)
            if ACCESS_TOKEN_TYPES
                .iter()
                .any(|accepted| typ.eq_ignore_ascii_case(accepted)) =>
        {
            Ok(())
        }
        Some(_) => Err(AuthError::invalid(
            "the token's type (`typ`) is not an access token's (`at+jwt`)",
        )),
    }
}

/// The smallest RSA modulus a key may have to verify anything: 2048 bits (NIST
/// SP 800-131A disallows smaller ones for signatures since 2013).
const MIN_RSA_BITS: usize = 2048;

/// The bit length of an RSA key's modulus (`n`, unsigned big-endian in
/// base64url, RFC 7518 §6.3.1.1), or `None` when it is not base64url.
fn rsa_modulus_bits(n: &str) -> Option<usize> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(n.trim_end_matches('='))
        .ok()?;
    let Some(first) = bytes.iter().position(|byte| *byte != 0) else {
        return Some(0);
    };
    let leading = usize::try_from(bytes[first].leading_zeros()).ok()?;
    Some((bytes.len() - first) * 8 - leading)
}

/// The usable signature keys of `set`: public keys only (`oct` keys are HMAC
/// secrets and never belong in a JWKS), not marked for encryption.
fn key_cache(set: &JwkSet) -> KeyCache {
    let mut cache = KeyCache {
        fetched_at: Some(Instant::now()),
        ..KeyCache::default()
    };
    for jwk in &set.keys {
        let Some(key) = usable_key(jwk) else {
            continue;
        };
        let key = Arc::new(key);
        match &jwk.common.key_id {
            Some(kid) => {
                cache.by_kid.insert(kid.clone(), key);
            }
            None => cache.unnamed.push(key),
        }
    }
    cache
}

fn usable_key(jwk: &Jwk) -> Option<Key> {
    if matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_)) {
        return None;
    }
    if matches!(jwk.common.public_key_use, Some(ref used) if *used != PublicKeyUse::Signature) {
        return None;
    }
    if let AlgorithmParameters::RSA(rsa) = &jwk.algorithm {
        let bits = rsa_modulus_bits(&rsa.n).unwrap_or(0);
        if bits < MIN_RSA_BITS {
            // Factoring a short modulus forges every token it verifies: the key
            // is left out, and the issuer's operators are told which one.
            tracing::warn!(
                kid = jwk.common.key_id.as_deref().unwrap_or("(none)"),
                bits,
                "a JWKS key is an RSA key under {MIN_RSA_BITS} bits; it verifies nothing"
            );
            return None;
        }
    }
    let algorithm = match jwk.common.key_algorithm {
        Some(algorithm) => Some(algorithm.to_string().parse::<Algorithm>().ok()?),
        None => None,
    };
    let decoding = DecodingKey::from_jwk(jwk).ok()?;
    (decoding.family() != AlgorithmFamily::Hmac).then_some(Key {
        decoding,
        algorithm,
    })
}

/// What failed, in words safe to send back.
fn describe(error: &jsonwebtoken::errors::Error) -> String {
    use jsonwebtoken::errors::ErrorKind;
    match error.kind() {
        ErrorKind::ExpiredSignature => "the token has expired".to_owned(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (`nbf`)".to_owned(),
        ErrorKind::InvalidIssuer => "the token is from another issuer".to_owned(),
        ErrorKind::InvalidAudience => "the token is not for this resource (`aud`)".to_owned(),
        ErrorKind::InvalidSignature => "the signature does not verify".to_owned(),
        ErrorKind::InvalidAlgorithm => "the signing algorithm does not match the key".to_owned(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no `{claim}` claim"),
        ErrorKind::InvalidClaimFormat(claim) => format!("the token's `{claim}` claim is malformed"),
        _ => "the token is malformed".to_owned(),
    }
}

impl JwtVerifierBuilder {
    /// Where the issuer publishes its keys (a JWK Set URL).
    pub fn jwks_uri(mut self, uri: impl Into<String>) -> Self {
        self.jwks_uri = Some(uri.into());
        self
    }

    /// Fixed keys instead of fetched ones (never refetched).
    pub fn jwks(mut self, set: JwkSet) -> Self {
        self.jwks = Some(set);
        self
    }

    /// The accepted signature algorithms (default: RS256/384/512, PS256/384/512,
    /// ES256/384, `EdDSA`). HMAC algorithms are refused by [`build`](Self::build).
    pub fn algorithms(mut self, algorithms: impl IntoIterator<Item = Algorithm>) -> Self {
        self.algorithms = algorithms.into_iter().collect();
        self
    }

    /// The clock skew tolerated on `exp` and `nbf` (default [`DEFAULT_LEEWAY`]).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// How a token's claims become the caller's [`Principal`](crate::Principal)
    /// (default: `iss` and `sub`, no tenant). Give the inbox's sign-in the same
    /// mapping ([`Identity::from_claims`](crate::inbox::Identity::from_claims)), so
    /// one person is one principal at both doors.
    pub fn claims_mapping(mut self, mapping: ClaimsMapping) -> Self {
        self.mapping = mapping;
        self
    }

    /// The shortest time between two JWKS fetches (default 30 s): an unknown
    /// `kid` within it is refused without a fetch.
    pub fn min_refresh_interval(mut self, interval: Duration) -> Self {
        self.min_refresh_interval = interval;
        self
    }

    /// How long fetched keys are used before the JWKS is fetched again (default
    /// one hour).
    pub fn max_key_age(mut self, age: Duration) -> Self {
        self.max_key_age = age;
        self
    }

    /// The HTTP client for discovery and the JWKS (default: one with a 10 s
    /// timeout). HTTPS needs a client with TLS: the `oauth-rustls` feature, or
    /// `reqwest` with a TLS feature in your own dependencies.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = Some(HttpClient(client));
        self
    }

    /// Finds `jwks_uri` in the issuer's metadata (see [`JwtVerifier::discover`]),
    /// then builds.
    pub async fn discover(mut self) -> Result<JwtVerifier, AuthError> {
        let http = self.http.clone().unwrap_or_else(HttpClient::default_client);
        let metadata = fetch::discover(&http, &self.issuer).await?;
        let jwks_uri = metadata
            .get("jwks_uri")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| AuthError::unavailable("the issuer's metadata names no `jwks_uri`"))?;
        self.jwks_uri = Some(jwks_uri.to_owned());
        self.http = Some(http);
        self.build()
    }

    /// The verifier. Fails when no keys were given, or an HMAC algorithm (or
    /// none at all) is allowed.
    pub fn build(self) -> Result<JwtVerifier, AuthError> {
        if self.algorithms.is_empty() {
            return Err(AuthError::Config(
                "no signing algorithm is allowed".to_owned(),
            ));
        }
        if let Some(hmac) = self
            .algorithms
            .iter()
            .find(|algorithm| algorithm.family() == AlgorithmFamily::Hmac)
        {
            return Err(AuthError::Config(format!(
                "{hmac:?} is an HMAC algorithm: a resource server verifies with public keys only"
            )));
        }
        if self.issuer.is_empty() || self.audience.is_empty() {
            return Err(AuthError::Config(
                "the issuer and the audience must not be empty".to_owned(),
            ));
        }
        let (source, keys) = match (self.jwks, self.jwks_uri) {
            (Some(set), None) => (KeySource::Fixed, key_cache(&set)),
            (None, Some(jwks_uri)) => {
                fetch::check_url(&jwks_uri)?;
                let http = self.http.unwrap_or_else(HttpClient::default_client);
                (KeySource::Remote { jwks_uri, http }, KeyCache::default())
            }
            _ => {
                return Err(AuthError::Config(
                    "give exactly one of `jwks_uri` and `jwks`".to_owned(),
                ));
            }
        };
        Ok(JwtVerifier {
            issuer: self.issuer,
            audience: self.audience,
            algorithms: self.algorithms,
            leeway: self.leeway,
            mapping: self.mapping,
            source,
            keys: RwLock::new(keys),
            refreshes: tokio::sync::Mutex::new(Refreshes::default()),
            finished_fetches: AtomicU64::new(0),
            min_refresh_interval: self.min_refresh_interval,
            max_key_age: self.max_key_age,
            fetches: AtomicU64::new(0),
        })
    }
}

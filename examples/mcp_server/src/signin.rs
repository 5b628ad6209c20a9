//! Operators sign in to the approval inbox with the authorization server the MCP
//! clients get their tokens from: `OpenID` Connect's authorization-code flow with
//! PKCE (RFC 7636), through the `openidconnect` crate, which discovers the
//! issuer's endpoints and keys and checks the ID token (its signature by the
//! issuer's JWKS, issuer, audience, expiry and the nonce this server sent).
//!
//! The inbox itself knows nothing of this: it asks [`SignIn`] (an
//! [`Authenticate`] hook) who a request comes from, and this module answers from
//! the session cookie it set. The routes it adds beside the inbox:
//!
//! - `GET /signin` (optionally `?login_hint=ada`, passed to the authorization
//!   server): sends the browser to the issuer's authorization endpoint, keeping the
//!   PKCE verifier, the `state` and the nonce in a short-lived encrypted cookie;
//! - `GET /signin/callback`: checks the `state`, exchanges the code with the PKCE
//!   verifier, verifies the ID token and sets the session cookie, then goes to the
//!   inbox;
//! - `POST /signout`: ends the session (same-origin requests only), then shows the
//!   inbox's "Sign in first" page.
//!
//! The cookies are set by the server: `HttpOnly` (no script reads them),
//! `SameSite=Lax` (sent on the issuer's redirect back, a top-level GET, but not on
//! another site's POSTs), and encrypted and authenticated (AES-GCM, axum-extra's
//! `PrivateCookieJar`, under a key expanded from the configured secret), so no one
//! can read or forge one. A session holds the subject and when it ends (8 hours
//! after sign-in, read on the approval store's clock, like every time decision of
//! the fleet); being a cookie and not a server-side row, a copy of it stays valid
//! until then even after sign-out.
//!
//! A valid cookie can still be planted: browsers do not keep a host's cookies
//! apart by port, so a page served from another port of the same host can set
//! cookies for this one, such as a session it got by signing in itself (login
//! CSRF: the victim would act as the attacker). So a session counts only beside
//! the binding cookie its own callback set in the same answer (the session holds
//! the binding's random value); a session cookie planted alone is refused, and so
//! are two cookies of one name (one planted under another `Path` or `Domain`).
//! Over HTTPS (a `https://` public URL) the cookies are `__Host-` cookies:
//! `Secure`, `Path=/` and no `Domain`, which browsers accept only from a secure
//! origin of this very host (Chromium and Firefox count `http://localhost` as
//! secure), so neither a plain-HTTP page of a public name (on any port) nor
//! another subdomain can set, replace or shadow them. A page served over HTTPS
//! from another port of the same host still can: serve nothing untrusted on
//! this host name. Over plain HTTP (development) a page on another port can plant
//! the session and its binding together; nothing in the cookies can prevent it.
//! `POST /signout` clears every cookie the sign-in sets.
//!
//! Every answer of these routes says `Cache-Control: no-store` (a session cookie
//! or a one-time code in a cached answer would outlive the sign-in), `nosniff`,
//! and forbids framing (`X-Frame-Options: DENY`, `frame-ancestors 'none'`), as
//! the inbox's own pages do.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum_extra::extract::cookie::{Cookie, Key, PrivateCookieJar, SameSite};
use openidconnect::core::{CoreAuthenticationFlow, CoreClient, CoreProviderMetadata};
use openidconnect::{
    AuthorizationCode, ClientId, CsrfToken, IssuerUrl, LoginHint, Nonce, PkceCodeChallenge,
    PkceCodeVerifier, RedirectUrl, TokenResponse as _,
};
use serde::{Deserialize, Serialize};
use toolkit::Principal;
use toolkit::approval::Approvals;
use toolkit::inbox::{Authenticate, AuthenticateFuture, Identity};

/// The cookies' names over plain HTTP; over HTTPS each is prefixed `__Host-`.
#[derive(Clone, Copy)]
enum Name {
    /// The session: the subject, when it ends, and its binding's value.
    Session,
    /// The binding the session counts only beside, set in the same answer.
    Binding,
    /// A sign-in in progress (verifier, state, nonce).
    PendingSignIn,
}

impl Name {
    const ALL: [Name; 3] = [Name::Session, Name::Binding, Name::PendingSignIn];

    fn as_str(self, secure: bool) -> &'static str {
        match (self, secure) {
            (Name::Session, false) => "inbox_session",
            (Name::Session, true) => "__Host-inbox_session",
            (Name::Binding, false) => "inbox_binding",
            (Name::Binding, true) => "__Host-inbox_binding",
            (Name::PendingSignIn, false) => "inbox_signin",
            (Name::PendingSignIn, true) => "__Host-inbox_signin",
        }
    }
}

/// The headers on every answer of the sign-in routes, as on the inbox's pages:
/// nothing cached, sniffed or framed, no referrer carrying the callback's code.
const SECURE_HEADERS: [(header::HeaderName, &str); 5] = [
    (header::CACHE_CONTROL, "no-store"),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::X_FRAME_OPTIONS, "DENY"),
    (
        header::CONTENT_SECURITY_POLICY,
        "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    ),
    (header::REFERRER_POLICY, "no-referrer"),
];
/// How long a session lasts.
const SESSION_LIFETIME: Duration = Duration::from_hours(8);
/// How long the browser has to come back from the authorization server.
const SIGN_IN_LIFETIME: Duration = Duration::from_mins(10);
/// The role [`SignIn`] gives the subjects named approvers; the example's inbox
/// policy shows calls to them only.
pub const APPROVER_ROLE: &str = "approver";

/// The `openidconnect` client made from the discovered metadata: authorization
/// endpoint set, token and user-info endpoints as discovered.
type Client = openidconnect::Client<
    openidconnect::EmptyAdditionalClaims,
    openidconnect::core::CoreAuthDisplay,
    openidconnect::core::CoreGenderClaim,
    openidconnect::core::CoreJweContentEncryptionAlgorithm,
    openidconnect::core::CoreJsonWebKey,
    openidconnect::core::CoreAuthPrompt,
    openidconnect::StandardErrorResponse<openidconnect::core::CoreErrorResponseType>,
    openidconnect::core::CoreTokenResponse,
    openidconnect::core::CoreTokenIntrospectionResponse,
    openidconnect::core::CoreRevocableToken,
    openidconnect::core::CoreRevocationErrorResponse,
    openidconnect::EndpointSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointMaybeSet,
    openidconnect::EndpointMaybeSet,
>;

/// The sign-in of the inbox's operators; see the [module docs](self).
#[derive(Clone)]
pub struct SignIn {
    inner: Arc<Inner>,
}

struct Inner {
    metadata: CoreProviderMetadata,
    client_id: ClientId,
    redirect: RedirectUrl,
    /// Where a signed-in operator lands: the inbox.
    home: String,
    key: Key,
    secure: bool,
    http: reqwest::Client,
    approvers: Vec<String>,
    approvals: &'static Approvals,
}

impl std::fmt::Debug for SignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignIn")
            .field("client_id", &self.inner.client_id.as_str())
            .field("redirect", &self.inner.redirect.as_str())
            .field("approvers", &self.inner.approvers)
            .finish_non_exhaustive()
    }
}

/// What the encrypted session cookie holds.
#[derive(Serialize, Deserialize)]
struct Session {
    /// The operator: the ID token's `iss` and `sub`, through the MCP door's
    /// mapping ([`crate::claims_mapping`]), so the same person is one principal
    /// at both doors.
    principal: Principal,
    /// Unix seconds, on the approval store's clock, when the session ends.
    until: u64,
    /// The random value of the binding cookie set beside this session.
    binding: String,
}

/// What the sign-in cookie holds while the browser is at the authorization server.
#[derive(Serialize, Deserialize)]
struct PendingSignIn {
    state: String,
    verifier: String,
    nonce: String,
    /// Unix seconds, on the approval store's clock, when it is too late to finish.
    until: u64,
}

impl SignIn {
    /// Discovers `issuer` (`/.well-known/openid-configuration`, then its JWKS) and
    /// signs operators in as the OAuth client `client_id` (a public client: PKCE,
    /// no secret), registered with the redirect URI `{public_url}/signin/callback`.
    /// `public_url` is the server's origin as browsers reach it (`https://` makes
    /// the cookies `Secure`); `cookie_secret` (at least 32 bytes, the same on every
    /// replica) keys the cookies; `approvers` are the subjects given the
    /// [`APPROVER_ROLE`]; `home` is where the inbox is mounted (`/approvals`).
    pub async fn discover(
        issuer: &str,
        client_id: &str,
        public_url: &str,
        cookie_secret: &[u8],
        approvers: Vec<String>,
        approvals: &'static Approvals,
        home: &str,
    ) -> Result<Self, String> {
        if cookie_secret.len() < 32 {
            return Err("the session cookie secret is shorter than 32 bytes".to_owned());
        }
        let http = reqwest::Client::builder()
            // The issuer's answers are read as they are: following a redirect from
            // a discovery or token endpoint would send the request elsewhere.
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(10))
            .build()
            .map_err(|error| format!("the HTTP client: {error}"))?;
        let issuer_url = IssuerUrl::new(issuer.to_owned())
            .map_err(|error| format!("the issuer URL `{issuer}`: {error}"))?;
        let metadata = CoreProviderMetadata::discover_async(issuer_url, &|request| {
            send(http.clone(), request)
        })
        .await
        .map_err(|error| format!("discovering `{issuer}`: {}", chain(&error)))?;
        let public_url = public_url.trim_end_matches('/');
        let redirect = RedirectUrl::new(format!("{public_url}/signin/callback"))
            .map_err(|error| format!("the public URL `{public_url}`: {error}"))?;
        Ok(SignIn {
            inner: Arc::new(Inner {
                metadata,
                client_id: ClientId::new(client_id.to_owned()),
                redirect,
                home: home.to_owned(),
                key: Key::derive_from(cookie_secret),
                secure: public_url.starts_with("https://"),
                http,
                approvers,
                approvals,
            }),
        })
    }

    /// The routes `/signin`, `/signin/callback` and `/signout`, to merge into the
    /// application beside the inbox.
    pub fn router(&self) -> axum::Router {
        axum::Router::new()
            .route("/signin", get(sign_in))
            .route("/signin/callback", get(callback))
            .route("/signout", post(sign_out))
            .layer(axum::middleware::map_response(secure_headers))
            .with_state(self.clone())
    }

    /// The name of cookie `name` as this server sets it.
    fn name(&self, name: Name) -> &'static str {
        name.as_str(self.inner.secure)
    }

    fn client(&self) -> Client {
        CoreClient::from_provider_metadata(
            self.inner.metadata.clone(),
            self.inner.client_id.clone(),
            None,
        )
        .set_redirect_uri(self.inner.redirect.clone())
    }

    /// A cookie that lasts until the browser closes: when its content ends is
    /// inside it, encrypted, and read on the store's clock.
    fn cookie(&self, name: Name, value: String) -> Cookie<'static> {
        Cookie::build((self.name(name), value))
            .path("/")
            .http_only(true)
            .same_site(SameSite::Lax)
            .secure(self.inner.secure)
            .build()
    }

    fn removal(&self, name: Name) -> Cookie<'static> {
        Cookie::build((self.name(name), ""))
            .path("/")
            .http_only(true)
            .same_site(SameSite::Lax)
            .secure(self.inner.secure)
            .build()
    }

    async fn store_now(&self) -> Option<u64> {
        self.inner.approvals.store().now().await.ok()
    }
}

// The cookie jars of the routes decrypt with this key.
impl axum::extract::FromRef<SignIn> for Key {
    fn from_ref(signin: &SignIn) -> Key {
        signin.inner.key.clone()
    }
}

impl Authenticate for SignIn {
    fn authenticate<'a>(&'a self, parts: &'a http::request::Parts) -> AuthenticateFuture<'a> {
        Box::pin(async move {
            let session = self.name(Name::Session);
            let binding = self.name(Name::Binding);
            // Two cookies of one name: one was planted under another `Path` or
            // `Domain`, and which is whose can't be told.
            if [session, binding]
                .iter()
                .any(|name| cookies_named(&parts.headers, name) > 1)
            {
                return None;
            }
            let jar = PrivateCookieJar::from_headers(&parts.headers, self.inner.key.clone());
            let session: Session = serde_json::from_str(jar.get(session)?.value()).ok()?;
            // A session planted without the binding its callback set is refused.
            // Both are random, sealed values: comparing them plainly reveals nothing.
            if jar.get(binding)?.value() != session.binding {
                return None;
            }
            let now = self.store_now().await?;
            if now >= session.until {
                return None;
            }
            let approver = self
                .inner
                .approvers
                .iter()
                .any(|subject| subject == session.principal.subject());
            let identity = Identity::new(session.principal);
            Some(if approver {
                identity.with_role(APPROVER_ROLE)
            } else {
                identity
            })
        })
    }
}

#[derive(Deserialize)]
struct SignInQuery {
    login_hint: Option<String>,
}

async fn sign_in(
    State(signin): State<SignIn>,
    jar: PrivateCookieJar,
    Query(query): Query<SignInQuery>,
) -> Response {
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let client = signin.client();
    let mut request = client
        .authorize_url(
            CoreAuthenticationFlow::AuthorizationCode,
            CsrfToken::new_random,
            Nonce::new_random,
        )
        // `openid`, the only scope asked for, is added by `authorize_url` itself.
        .set_pkce_challenge(challenge);
    if let Some(hint) = query.login_hint.filter(|hint| !hint.is_empty()) {
        request = request.set_login_hint(LoginHint::new(hint));
    }
    let (url, state, nonce) = request.url();
    let Some(now) = signin.store_now().await else {
        return failure(
            StatusCode::SERVICE_UNAVAILABLE,
            "the approval store did not answer; try again",
        );
    };
    let pending = PendingSignIn {
        state: state.secret().clone(),
        verifier: verifier.secret().clone(),
        nonce: nonce.secret().clone(),
        until: now.saturating_add(SIGN_IN_LIFETIME.as_secs()),
    };
    let Ok(pending) = serde_json::to_string(&pending) else {
        return failure(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the sign-in could not start",
        );
    };
    let jar = jar.add(signin.cookie(Name::PendingSignIn, pending));
    (jar, Redirect::to(url.as_str())).into_response()
}

#[derive(Deserialize)]
struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
}

async fn callback(
    State(signin): State<SignIn>,
    jar: PrivateCookieJar,
    Query(query): Query<CallbackQuery>,
) -> Response {
    // One attempt per sign-in cookie, whatever comes of it.
    let pending = jar
        .get(signin.name(Name::PendingSignIn))
        .and_then(|cookie| serde_json::from_str::<PendingSignIn>(cookie.value()).ok());
    let jar = jar.remove(signin.removal(Name::PendingSignIn));
    let refused = |message: &str| (jar.clone(), failure(StatusCode::BAD_REQUEST, message));
    if let Some(error) = query.error {
        return refused(&format!("the authorization server refused: {error}")).into_response();
    }
    let Some(pending) = pending else {
        return refused("no sign-in was started in this browser, or it took too long")
            .into_response();
    };
    let Some(now) = signin.store_now().await else {
        return (
            jar,
            failure(
                StatusCode::SERVICE_UNAVAILABLE,
                "the approval store did not answer; try again",
            ),
        )
            .into_response();
    };
    if now >= pending.until {
        return refused("the sign-in took too long; start again").into_response();
    }
    let (Some(code), Some(state)) = (query.code, query.state) else {
        return refused("the authorization server sent no code").into_response();
    };
    // The state binds the answer to the browser that asked (login CSRF). It is
    // public once the redirect happened, so comparing it plainly reveals nothing.
    if state != pending.state {
        return refused("the answer is not for the sign-in this browser started").into_response();
    }
    let client = signin.client();
    let Ok(exchange) = client.exchange_code(AuthorizationCode::new(code)) else {
        return refused("the authorization server has no token endpoint").into_response();
    };
    let http = signin.inner.http.clone();
    let answer = exchange
        .set_pkce_verifier(PkceCodeVerifier::new(pending.verifier))
        .request_async(&|request| send(http.clone(), request))
        .await;
    let answer = match answer {
        Ok(answer) => answer,
        Err(error) => {
            return refused(&format!("the code was not accepted: {}", chain(&error)))
                .into_response();
        }
    };
    let Some(id_token) = answer.id_token() else {
        return refused("the authorization server sent no ID token").into_response();
    };
    let claims = match id_token.claims(&client.id_token_verifier(), &Nonce::new(pending.nonce)) {
        Ok(claims) => claims,
        Err(error) => {
            return refused(&format!("the ID token was refused: {}", chain(&error)))
                .into_response();
        }
    };
    // The binding: random (openidconnect's, as the state's), new for each session.
    let binding = CsrfToken::new_random().secret().clone();
    let mut verified = serde_json::Map::new();
    verified.insert("iss".to_owned(), claims.issuer().as_str().into());
    verified.insert("sub".to_owned(), claims.subject().as_str().into());
    let principal = match crate::claims_mapping().principal(&verified) {
        Ok(principal) => principal,
        Err(error) => {
            return refused(&format!("the ID token names no principal: {error}")).into_response();
        }
    };
    let session = Session {
        principal,
        until: now.saturating_add(SESSION_LIFETIME.as_secs()),
        binding: binding.clone(),
    };
    let Ok(session) = serde_json::to_string(&session) else {
        return failure(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the session could not be kept",
        );
    };
    let jar = jar
        .add(signin.cookie(Name::Session, session))
        .add(signin.cookie(Name::Binding, binding));
    (jar, Redirect::to(&signin.inner.home)).into_response()
}

async fn sign_out(State(signin): State<SignIn>, headers: HeaderMap) -> Response {
    // Only the inbox's own sign-out form ends the session: a page of another site
    // posting here is refused (the browser says where a request comes from).
    let site = headers
        .get("sec-fetch-site")
        .and_then(|value| value.to_str().ok());
    if site.is_some_and(|site| site != "same-origin") {
        return failure(StatusCode::FORBIDDEN, "sign out from the inbox's own page");
    }
    // Every cookie the sign-in sets is cleared, whether or not this request
    // carried it (a jar only clears what it was sent).
    let mut response = Redirect::to(&signin.inner.home).into_response();
    for name in Name::ALL {
        let mut removal = signin.removal(name);
        removal.make_removal();
        if let Ok(value) = header::HeaderValue::from_str(&removal.to_string()) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
    }
    response
}

/// How many cookies named `name` the request carries.
fn cookies_named(headers: &HeaderMap, name: &str) -> usize {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter(|cookie| cookie.as_ref().is_ok_and(|cookie| cookie.name() == name))
        .count()
}

async fn secure_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in SECURE_HEADERS {
        headers.insert(name, header::HeaderValue::from_static(value));
    }
    response
}

/// A plain-text refusal: nothing of it comes from the request but fixed words and
/// the authorization server's error code.
fn failure(status: StatusCode, message: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("Sign-in failed: {message}.\n"),
    )
        .into_response()
}

/// An error and its causes, on one line.
fn chain(error: &dyn std::error::Error) -> String {
    let mut words = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        words.push_str(": ");
        words.push_str(&cause.to_string());
        source = cause.source();
    }
    words
}

/// Sends one of `openidconnect`'s requests with reqwest 0.13 (the crate's own
/// reqwest integration is 0.12's).
async fn send(
    http: reqwest::Client,
    request: openidconnect::HttpRequest,
) -> Result<openidconnect::HttpResponse, reqwest::Error> {
    let (parts, body) = request.into_parts();
    let answer = http
        .request(parts.method, parts.uri.to_string())
        .headers(parts.headers)
        .body(body)
        .send()
        .await?;
    let mut response = http::Response::builder().status(answer.status());
    if let Some(headers) = response.headers_mut() {
        *headers = answer.headers().clone();
    }
    let body = answer.bytes().await?;
    Ok(response
        .body(body.to_vec())
        .unwrap_or_else(|_| http::Response::new(Vec::new())))
}

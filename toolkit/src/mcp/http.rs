//! Streamable HTTP: one stateless endpoint per client kind, each behind its token.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Router;
use axum::extract::Request;
use axum::response::{IntoResponse as _, Response};
use rmcp::model::{RequestStateCodec, RequestStateError};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::bearer::{Bearer, bearer_token};
use super::cancel::{Cancellable, InFlight};
use super::{Access, McpServer};
use crate::quota::{Admission, Quota, QuotaKey, QuotaStore};
use crate::serving::{AllowedHosts, HttpLimits, PeerLimit};

/// An axum router serving MCP over streamable HTTP: one endpoint per client kind
/// (USE-CASES E: `internal`, `copilot`, `external`), each with its own bearer
/// token, and each request's tools granted by the [`Access`] hook.
///
/// - A request without `Authorization: Bearer <the endpoint's token>` is answered
///   `401 Unauthorized` before anything is parsed, listed or called.
/// - Stateless: no session is kept (the 2026-07-28 revision has none; older
///   clients' `initialize` is answered and forgotten), so several processes can
///   serve the same endpoints behind a load balancer.
/// - Each request's body and answer are bounded in time ([`McpHttp::limits`]).
/// - A `notifications/cancelled` ends the call it names when it runs in this
///   process and came from the same caller (the same bearer token):
///   the tool's future is dropped and the call answered `-32800` at once (rmcp's
///   stateless transport drops cancellations).
/// - With [`McpHttp::request_limit`], each caller's requests are limited: over
///   it, `429 Too Many Requests` with `Retry-After`, before anything is parsed.
/// - With [`McpHttp::peer_limit`], each peer's requests that fail
///   authentication are limited: over it, `429` with `Retry-After` before the
///   token is looked at.
/// - Only loopback `Host` headers are accepted unless [`McpHttp::allowed_hosts`]
///   says otherwise ([`AllowedHosts`], the guard against DNS rebinding that the
///   inbox (feature `inbox`) applies too).
#[must_use]
pub struct McpHttp {
    access: Arc<dyn Access>,
    endpoints: Vec<Endpoint>,
    config: StreamableHttpServerConfig,
    request_state: Option<Arc<RequestStateCodec>>,
    limits: HttpLimits,
    hosts: AllowedHosts,
    apps: Option<super::apps::Apps>,
    request_limit: Option<Arc<RequestLimit>>,
    peer_limit: Option<Arc<PeerLimit>>,
}

/// A limit on each caller's HTTP requests ([`McpHttp::request_limit`]).
struct RequestLimit {
    quota: Quota,
    store: Arc<dyn QuotaStore>,
}

/// The quota key's tool of a request-level limit: not a tool name (tool names
/// have no spaces), so it never shares a count with a tool.
const REQUEST_LIMIT_KEY: &str = "mcp http request";

struct Endpoint {
    client: Arc<str>,
    path: String,
    guard: Guard,
}

/// How an endpoint knows its callers.
enum Guard {
    /// One static bearer token (development mode).
    Token(Arc<str>),
    /// OAuth access tokens checked by a resource server.
    #[cfg(feature = "oauth")]
    OAuth(Arc<super::auth::ResourceServer>),
}

impl McpHttp {
    /// Endpoints whose tools come from `access`; add them with [`McpHttp::endpoint`].
    pub fn new(access: impl Access) -> Self {
        McpHttp {
            access: Arc::new(access),
            endpoints: Vec::new(),
            config: StreamableHttpServerConfig::default()
                .with_legacy_session_mode(false)
                .with_json_response(true)
                .with_sse_keep_alive(None),
            request_state: None,
            limits: HttpLimits::default(),
            hosts: AllowedHosts::default(),
            apps: None,
            request_limit: None,
            peer_limit: None,
        }
    }

    /// Limits each caller to `limit` requests (any method, any endpoint),
    /// counted in `store` (the approval store's database for a fleet:
    /// `PostgresApprovalStore::quota_store`, so that every replica counts
    /// against one limit). Over it, the request is answered
    /// `429 Too Many Requests` with `Retry-After` (whole seconds) and a line
    /// saying when to try again, before its body is read; no JSON-RPC error.
    ///
    /// The caller is who authenticated: the OAuth token's subject (so a new
    /// token, a new session or another client id of the same user counts on
    /// where the last one stopped), or the client kind of a static-token
    /// endpoint. A refused request spends nothing. When the store cannot
    /// count, the request goes on (a warning is logged): the tools' own quotas
    /// still refuse what a human guards.
    pub fn request_limit(mut self, limit: Quota, store: impl QuotaStore + 'static) -> Self {
        self.request_limit = Some(Arc::new(RequestLimit {
            quota: limit,
            store: Arc::new(store),
        }));
        self
    }

    /// Limits the requests each peer (by address) sends that fail authentication,
    /// on every endpoint: a peer over `limit` is answered
    /// `429 Too Many Requests` with `Retry-After` (whole seconds) before its
    /// token is verified, so a flood of absent, wrong or forged tokens costs no
    /// verification (no signature check, no introspection call) and never
    /// reaches [`request_limit`](Self::request_limit), which counts callers only
    /// once they are known. Requests whose token verifies are not counted. See
    /// [`PeerLimit`] for how the peer is found (the socket's, from axum's
    /// `ConnectInfo`; `X-Forwarded-For` only from proxies named with
    /// [`PeerLimit::trust_forwarded_for`]) and why it is counted per process.
    ///
    /// ```
    /// # fn app(http: toolkit::mcp::McpHttp) -> toolkit::mcp::McpHttp {
    /// use toolkit::serving::PeerLimit;
    ///
    /// let balancer = "10.0.0.2".parse().expect("an address");
    /// http.peer_limit(PeerLimit::new("20/min".parse().expect("a quota")).trust_forwarded_for([balancer]))
    /// # }
    /// ```
    pub fn peer_limit(mut self, limit: PeerLimit) -> Self {
        self.peer_limit = Some(Arc::new(limit));
        self
    }

    /// Serves clients of kind `client` at `path`, for requests bearing `token`.
    pub fn endpoint(
        mut self,
        client: impl Into<Arc<str>>,
        path: impl Into<String>,
        token: impl Into<Arc<str>>,
    ) -> Self {
        self.endpoints.push(Endpoint {
            client: client.into(),
            path: path.into(),
            guard: Guard::Token(token.into()),
        });
        self
    }

    /// Serves clients of kind `client` at `path` as an OAuth 2.1 resource server
    /// (feature `oauth`): each request's access token is checked by `auth`, and
    /// the [`VerifiedToken`](super::auth::VerifiedToken) reaches the [`Access`]
    /// hook as [`Caller::token`](super::Caller::token). The router also serves
    /// `auth`'s protected resource metadata (at
    /// `/.well-known/oauth-protected-resource` followed by the resource URL's
    /// path, and at `/.well-known/oauth-protected-resource` itself for the first
    /// such endpoint). See [`auth`](super::auth).
    #[cfg(feature = "oauth")]
    pub fn oauth_endpoint(
        mut self,
        client: impl Into<Arc<str>>,
        path: impl Into<String>,
        auth: super::auth::ResourceServer,
    ) -> Self {
        self.endpoints.push(Endpoint {
            client: client.into(),
            path: path.into(),
            guard: Guard::OAuth(Arc::new(auth)),
        });
        self
    }

    /// Takes `approve` calls over MCP on every endpoint; see
    /// [`McpServer::approvals`]. Every process serving these endpoints needs the
    /// same `key`.
    pub fn approvals(mut self, key: impl Into<Vec<u8>>) -> Result<Self, RequestStateError> {
        self.request_state = Some(Arc::new(RequestStateCodec::try_new(key)?));
        Ok(self)
    }

    /// Serves MCP Apps cards on every endpoint; see [`McpServer::apps`].
    pub fn apps(mut self, apps: super::apps::Apps) -> Self {
        self.apps = Some(apps);
        self
    }

    /// The `Host` names (or `host:port`) requests may carry, instead of the
    /// loopback names (`localhost`, `127.0.0.1`, `::1`) accepted by default: set
    /// it to the public names of a deployed server (and the loopback names too,
    /// if local clients call it). The host of each
    /// `oauth_endpoint`'s (feature `oauth`) resource URL is accepted as
    /// well. Any other `Host` is answered 403 before the request is read, which
    /// stops DNS rebinding.
    ///
    /// An empty list keeps the names already set. It never means "any host"
    /// (rmcp's reading of an empty list), so a list built from empty
    /// configuration cannot switch the check off. See [`AllowedHosts`].
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let hosts: Vec<String> = hosts.into_iter().map(Into::into).collect();
        if !hosts.is_empty() {
            self.hosts = AllowedHosts::new(hosts);
        }
        self
    }

    /// Adds each OAuth endpoint's resource URL's host to the accepted `Host`
    /// names: clients reach the server where its resource URL says.
    #[cfg(feature = "oauth")]
    fn with_resource_hosts(mut self) -> Self {
        for endpoint in &self.endpoints {
            let Guard::OAuth(auth) = &endpoint.guard else {
                continue;
            };
            if let Some(host) = resource_host(&auth.metadata().resource) {
                self.hosts = self.hosts.and(host);
            }
        }
        self
    }

    /// Without OAuth there are no resource URLs.
    #[cfg(not(feature = "oauth"))]
    fn with_resource_hosts(self) -> Self {
        self
    }

    /// Replaces the bounds on a request's body and answer time
    /// ([`HttpLimits::default`] otherwise); the server's own bounds (header read
    /// time, connections) are the application's, see [`serving`](crate::serving).
    pub fn limits(mut self, limits: HttpLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Replaces rmcp's transport settings (kept stateless: sessions are off).
    /// Their `allowed_hosts` are not used: the `Host` check is toolkit's
    /// ([`allowed_hosts`](Self::allowed_hosts)).
    pub fn config(mut self, config: StreamableHttpServerConfig) -> Self {
        self.config = config.with_legacy_session_mode(false);
        self
    }

    /// The router, to serve with `axum::serve` or nest in a larger app.
    pub fn into_router(self) -> Router {
        let mut this = self.with_resource_hosts();
        // The `Host` rule has one home, `AllowedHosts`, applied to the whole
        // router below; rmcp's copy of it is off.
        this.config = this.config.disable_allowed_hosts();
        let mut router = Router::new();
        #[cfg(feature = "oauth")]
        let mut metadata_routes: Vec<String> = Vec::new();
        for endpoint in this.endpoints {
            #[cfg(feature = "otel")]
            let client = Arc::clone(&endpoint.client);
            let kind = Arc::clone(&endpoint.client);
            let server = McpServer::with_access(
                endpoint.client,
                Arc::clone(&this.access),
                this.request_state.clone(),
                // Stateless: a client's answer to a request sent mid-call would
                // arrive as a new HTTP request, with no call to return to.
                false,
            )
            .with_apps(this.apps.clone());
            let service = StreamableHttpService::new(
                // Each service rmcp makes serves one session (one request,
                // when stateless): what a client sets stays with it.
                move || {
                    let server = server.for_new_session();
                    // Every request and notification in its OpenTelemetry span.
                    #[cfg(feature = "otel")]
                    let server = crate::otel::McpSpans::new(server, crate::otel::Transport::Http)
                        .client(Arc::clone(&client));
                    Ok(server)
                },
                Arc::new(LocalSessionManager::default()),
                this.config.clone(),
            );
            let guarded = Guarded {
                inner: service,
                token: None,
                in_flight: Arc::new(InFlight::default()),
                limit: this.config.max_request_body_bytes,
                request_limit: this.request_limit.clone(),
                // Set on static-token endpoints; an OAuth endpoint's peers are
                // counted in front of its verification.
                peer_limit: None,
                client: kind,
            };
            match endpoint.guard {
                Guard::Token(token) => {
                    router = router.nest_service(
                        &endpoint.path,
                        Guarded {
                            token: Some(token),
                            peer_limit: this.peer_limit.clone(),
                            ..guarded
                        },
                    );
                }
                #[cfg(feature = "oauth")]
                Guard::OAuth(auth) => {
                    // RFC 9728 §3.1: the path-inserted location; the bare one
                    // too, for clients that only try it (first endpoint wins).
                    let bare = "/.well-known/oauth-protected-resource".to_owned();
                    for route in [auth.metadata_route().to_owned(), bare] {
                        if !metadata_routes.contains(&route) {
                            let auth = Arc::clone(&auth);
                            router = router.route(
                                &route,
                                axum::routing::get(move || async move { auth.metadata_response() }),
                            );
                            metadata_routes.push(route);
                        }
                    }
                    // The peer's limit first, in front of the token's verification.
                    let peer_limit = this.peer_limit.clone();
                    let verified = axum::middleware::from_fn(
                        move |request: Request, next: axum::middleware::Next| {
                            let auth = Arc::clone(&auth);
                            let peer_limit = peer_limit.clone();
                            async move {
                                let peer = match peer_gate(peer_limit.as_deref(), &request) {
                                    Ok(peer) => peer,
                                    Err(refusal) => return refusal,
                                };
                                let response =
                                    super::auth::require_verified_token(auth, request, next).await;
                                peer_answered(peer_limit.as_deref(), peer, &response);
                                response
                            }
                        },
                    );
                    router = router
                        .nest_service(&endpoint.path, tower::Layer::layer(&verified, guarded));
                }
            }
        }
        this.limits.apply_with_hosts(&this.hosts, router)
    }
}

impl std::fmt::Debug for McpHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let endpoints: Vec<(&str, &str)> = self
            .endpoints
            .iter()
            .map(|endpoint| (&*endpoint.client, endpoint.path.as_str()))
            .collect();
        f.debug_struct("McpHttp")
            .field("endpoints", &endpoints)
            .finish_non_exhaustive()
    }
}

/// An endpoint's own checks in front of rmcp's service, as one tower service:
/// the bearer token (on a static-token endpoint) and the JSON-RPC answers and
/// cancellations of [`json_rpc_errors`] (on every endpoint). Written out rather
/// than as axum `from_fn` layers, each a boxed future and a clone of a boxed
/// inner service per request (BENCHMARKS.md, "At rmcp's cost").
#[derive(Clone)]
struct Guarded<S> {
    inner: S,
    /// The endpoint's static token; `None` where an OAuth layer in front of
    /// this one checks the caller.
    token: Option<Arc<str>>,
    in_flight: Arc<InFlight>,
    limit: usize,
    request_limit: Option<Arc<RequestLimit>>,
    /// The limit on failed authentications per peer, checked before `token`.
    peer_limit: Option<Arc<PeerLimit>>,
    /// The endpoint's client kind.
    client: Arc<str>,
}

impl<S, B> tower::Service<Request> for Guarded<S>
where
    S: tower::Service<Request, Response = ::http::Response<B>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: http_body::Body<Data = axum::body::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        // The service made ready answers; its clone waits for the next request.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let token = self.token.clone();
        let in_flight = Arc::clone(&self.in_flight);
        let limit = self.limit;
        let request_limit = self.request_limit.clone();
        let peer_limit = self.peer_limit.clone();
        let client = Arc::clone(&self.client);
        Box::pin(async move {
            let request = match token {
                Some(token) => {
                    let peer = match peer_gate(peer_limit.as_deref(), &request) {
                        Ok(peer) => peer,
                        Err(refusal) => return Ok(refusal),
                    };
                    match require_token(&token, request) {
                        Ok(request) => request,
                        Err(refusal) => {
                            peer_answered(peer_limit.as_deref(), peer, &refusal);
                            return Ok(refusal);
                        }
                    }
                }
                None => request,
            };
            if let Some(request_limit) = request_limit {
                let caller = request_caller(&request, &client);
                if let Some(refusal) = request_limit.refuse(&caller).await {
                    return Ok(refusal);
                }
            }
            Ok(
                json_rpc_errors(limit, in_flight, request, |request| async move {
                    match inner.call(request).await {
                        Ok(response) => response.map(axum::body::Body::new),
                        Err(never) => match never {},
                    }
                })
                .await,
            )
        })
    }
}

/// A tower layer that delivers a sessionless client's `notifications/cancelled`
/// to the call it names, for rmcp's `StreamableHttpService` served without
/// [`McpHttp`] (which does this itself), for instance with sessions on for
/// 2025-11-25 clients.
///
/// A server with sessions on still answers 2026-07-28 clients, which have no
/// session, on rmcp's stateless path: there a cancellation is accepted (`202`)
/// and dropped, and the call runs on, its answer open, until the tool ends.
/// Under this layer the call is ended and answered `-32800` at once, as on
/// [`McpHttp`]'s endpoints. Requests of a session (`Mcp-Session-Id`) pass
/// through untouched: rmcp's session delivers their cancellations itself.
///
/// A cancellation reaches only calls sent with the same `Authorization` header
/// (none counts as one caller), in this process.
///
/// ```
/// # fn app(server: toolkit::mcp::McpServer) -> axum::Router {
/// use std::sync::Arc;
/// use rmcp::transport::StreamableHttpServerConfig;
/// use rmcp::transport::streamable_http_server::StreamableHttpService;
/// use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
/// use toolkit::mcp::CancellationLayer;
///
/// let service = StreamableHttpService::new(
///     move || Ok(server.clone()),
///     Arc::new(LocalSessionManager::default()),
///     StreamableHttpServerConfig::default().with_legacy_session_mode(true),
/// );
/// axum::Router::new()
///     .nest_service("/mcp", service)
///     .layer(CancellationLayer::new())
/// # }
/// ```
#[derive(Clone, Default)]
#[must_use]
pub struct CancellationLayer {
    in_flight: Arc<InFlight>,
}

impl CancellationLayer {
    /// A layer whose calls only its own cancellations reach.
    pub fn new() -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for CancellationLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancellationLayer").finish_non_exhaustive()
    }
}

impl<S> tower::Layer<S> for CancellationLayer {
    type Service = Cancelling<S>;

    fn layer(&self, inner: S) -> Cancelling<S> {
        Cancelling {
            inner,
            in_flight: Arc::clone(&self.in_flight),
            // rmcp's own default bound on a request body.
            limit: StreamableHttpServerConfig::default().max_request_body_bytes,
        }
    }
}

/// The service [`CancellationLayer`] makes.
#[derive(Clone)]
pub struct Cancelling<S> {
    inner: S,
    in_flight: Arc<InFlight>,
    limit: usize,
}

impl<S> std::fmt::Debug for Cancelling<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cancelling").finish_non_exhaustive()
    }
}

impl<S, B> tower::Service<Request> for Cancelling<S>
where
    S: tower::Service<Request, Response = ::http::Response<B>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: http_body::Body<Data = axum::body::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        // The service made ready answers; its clone waits for the next request.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let in_flight = Arc::clone(&self.in_flight);
        let limit = self.limit;
        Box::pin(async move {
            let answer = |request: Request| async move {
                match inner.call(request).await {
                    Ok(response) => response.map(axum::body::Body::new),
                    Err(never) => match never {},
                }
            };
            if request.headers().contains_key("mcp-session-id") {
                return Ok(answer(request).await);
            }
            Ok(json_rpc_errors(limit, in_flight, request, answer).await)
        })
    }
}

/// The peer a request counts as under `limit`, or the `429` answer when that
/// peer is over it: asked before anything looks at the request's credentials.
// The refusal is the answer as it goes out, made once per refused request.
#[allow(clippy::result_large_err)]
fn peer_gate(
    limit: Option<&PeerLimit>,
    request: &Request,
) -> Result<Option<std::net::IpAddr>, Response> {
    let Some(limit) = limit else {
        return Ok(None);
    };
    let peer = limit.peer(request.extensions(), request.headers());
    let Some(retry_after) = limit.refused(peer) else {
        return Ok(peer);
    };
    // Whole seconds, rounded up: a peer that waits this long is answered.
    let seconds = retry_after.as_nanos().div_ceil(1_000_000_000).max(1);
    tracing::info!(
        toolkit.quota.limit = limit.quota().count(),
        toolkit.quota.period = limit.quota().period().noun(),
        toolkit.quota.retry_after_ms = u64::try_from(retry_after.as_millis()).unwrap_or(u64::MAX),
        "MCP request refused: over the peer's limit of failed authentications"
    );
    Err((
        ::http::StatusCode::TOO_MANY_REQUESTS,
        [(::http::header::RETRY_AFTER, seconds.to_string())],
        format!(
            "too many requests without valid credentials from this address: each address may fail {}; try again in {seconds} s",
            limit.quota().in_words()
        ),
    )
        .into_response())
}

/// Counts `response` against `peer` when it says the credentials failed (`401`).
fn peer_answered(limit: Option<&PeerLimit>, peer: Option<std::net::IpAddr>, response: &Response) {
    if let Some(limit) = limit
        && response.status() == ::http::StatusCode::UNAUTHORIZED
    {
        limit.spend(peer);
    }
}

/// Who a request-level limit counts: the verified OAuth token's principal (its
/// key), else the endpoint's client kind (its static token names the kind, not a
/// person).
fn request_caller(request: &Request, client: &str) -> String {
    #[cfg(feature = "oauth")]
    if let Some(token) = request.extensions().get::<super::auth::VerifiedToken>() {
        return token.principal.key().to_owned();
    }
    let _ = request;
    format!("client:{client}")
}

impl RequestLimit {
    /// The `429` answer to a request of `caller` when it is over the limit.
    async fn refuse(&self, caller: &str) -> Option<Response> {
        let key = QuotaKey {
            principal: caller,
            tool: REQUEST_LIMIT_KEY,
        };
        match self.store.check(key, self.quota).await {
            Ok(Admission::Admitted) => None,
            Ok(Admission::Refused { retry_after }) => {
                // Whole seconds, rounded up: a caller that waits this long is admitted.
                let seconds = retry_after.as_nanos().div_ceil(1_000_000_000).max(1);
                tracing::info!(
                    toolkit.quota.limit = self.quota.count(),
                    toolkit.quota.period = self.quota.period().noun(),
                    toolkit.quota.retry_after_ms =
                        u64::try_from(retry_after.as_millis()).unwrap_or(u64::MAX),
                    "MCP request refused: over the caller's request limit"
                );
                Some(
                    (
                        ::http::StatusCode::TOO_MANY_REQUESTS,
                        [(::http::header::RETRY_AFTER, seconds.to_string())],
                        format!(
                            "too many requests: each caller may send requests {}; try again in {seconds} s",
                            self.quota.in_words()
                        ),
                    )
                        .into_response(),
                )
            }
            Err(error) => {
                tracing::warn!(%error, "the request limit could not be counted; the request goes on");
                None
            }
        }
    }
}

// The refusal is the answer as it goes out, made once per refused request:
// boxing it would only add an allocation.
#[allow(clippy::result_large_err)]
fn require_token(expected: &str, mut request: Request) -> Result<Request, Response> {
    let authorized = bearer_token(request.headers())
        .filter(|token| constant_time_eq(token.as_bytes(), expected.as_bytes()))
        .map(Arc::<str>::from);
    if let Some(token) = authorized {
        request.extensions_mut().insert(Bearer(token));
        Ok(request)
    } else {
        tracing::info!(path = %request.uri().path(), "MCP request refused: missing or wrong bearer token");
        Err((
            ::http::StatusCode::UNAUTHORIZED,
            [(::http::header::WWW_AUTHENTICATE, "Bearer")],
            "a valid bearer token is required",
        )
            .into_response())
    }
}

/// Answers a POST body that is not one JSON-RPC message with HTTP 400 and a
/// JSON-RPC error, as the transport specifies: `-32700 parse error` for text that
/// is not JSON, `-32600 invalid request` for a batch (an array: the protocol has
/// had none since 2025-06-18) or an object that is not a JSON-RPC message. rmcp
/// answers all three with `415` and plain text; its answer is replaced only then,
/// so a well-formed request is parsed once, by rmcp.
///
/// Also makes the request's call cancellable and delivers a
/// `notifications/cancelled` to the call it names (see [`super::cancel`]): rmcp's
/// stateless transport drops cancellations.
async fn json_rpc_errors<F, Fut>(
    limit: usize,
    in_flight: Arc<InFlight>,
    request: Request,
    inner: F,
) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: Future<Output = Response>,
{
    let is_json = request
        .headers()
        .get(::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            value
                .split(';')
                .next()
                .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
        });
    if request.method() != ::http::Method::POST || !is_json {
        return inner(request).await;
    }
    let (mut parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, limit).await else {
        return (
            ::http::StatusCode::PAYLOAD_TOO_LARGE,
            format!("Payload Too Large: request body exceeds {limit} bytes"),
        )
            .into_response();
    };
    // The same credential is the same caller: one client can't cancel another's
    // call by guessing its id. The guard's token where it kept one, else the
    // header as it is.
    let caller: Arc<str> = match parts.extensions.get::<Bearer>() {
        Some(Bearer(token)) => Arc::clone(token),
        None => parts
            .headers
            .get(::http::header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .into(),
    };
    if let Some(id) = cancelled_request_id(&bytes) {
        in_flight.cancel(&caller, &id);
    }
    parts.extensions.insert(Cancellable { in_flight, caller });
    let response = inner(Request::from_parts(
        parts,
        axum::body::Body::from(bytes.clone()),
    ))
    .await;
    if response.status() != ::http::StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return response;
    }
    let (code, message) = match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Err(error) => (-32700, format!("Parse error: {error}")),
        Ok(serde_json::Value::Array(_)) => (
            -32600,
            "Invalid Request: batch requests are not supported".to_owned(),
        ),
        Ok(_) => (
            -32600,
            "Invalid Request: not a JSON-RPC 2.0 request, notification or response".to_owned(),
        ),
    };
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message},
    });
    (
        ::http::StatusCode::BAD_REQUEST,
        [(::http::header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// The request id a `notifications/cancelled` body names, as JSON text (`7`,
/// `"a"`). Only a body that mentions the method is parsed here.
fn cancelled_request_id(body: &[u8]) -> Option<String> {
    // The searcher is built once: building one per request cost more than the
    // search.
    static METHOD: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"notifications/cancelled"));
    METHOD.find(body)?;
    let message: serde_json::Value = serde_json::from_slice(body).ok()?;
    if message.get("method")?.as_str()? != "notifications/cancelled" || message.get("id").is_some()
    {
        return None;
    }
    Some(message.pointer("/params/requestId")?.to_string())
}

/// Compares two byte strings in time that depends only on their lengths, so a
/// wrong token's timing doesn't say how much of it was right (`subtle`, whose
/// comparison the optimizer cannot turn into an early return).
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq as _;
    a.ct_eq(b).into()
}

/// The `Host` a client sends for `resource` (`https://tools.example.com/mcp` ->
/// `tools.example.com`, `http://127.0.0.1:8080/mcp` -> `127.0.0.1:8080`).
#[cfg(feature = "oauth")]
fn resource_host(resource: &str) -> Option<String> {
    let uri: http::Uri = resource.parse().ok()?;
    let authority = uri.authority()?;
    Some(match authority.port_u16() {
        Some(port) => format!("{}:{port}", authority.host()),
        None => authority.host().to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancellation_names_its_request() {
        let id = |body: &str| cancelled_request_id(body.as_bytes());
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#),
            Some("7".to_owned())
        );
        assert_eq!(
            id(
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}"#
            ),
            Some("\"a\"".to_owned())
        );
        // A request (it has an id), another method, or no request id: none.
        assert_eq!(
            id(
                r#"{"jsonrpc":"2.0","id":1,"method":"notifications/cancelled","params":{"requestId":7}}"#
            ),
            None
        );
        assert_eq!(
            id(
                r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"notifications/cancelled"}}"#
            ),
            None
        );
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}"#),
            None
        );
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret2"));
        assert!(!constant_time_eq(b"", b"x"));
    }
}

//! What every HTTP surface of toolkit (`mcp::McpHttp` with feature `mcp`, the
//! inbox with feature `inbox`) needs from the server it is mounted in: bounds on how
//! long a client may take ([`HttpLimits`]), the `Host` names it answers
//! ([`AllowedHosts`]), and health endpoints for the load balancer in front of it
//! ([`Health`]), and a limit on the requests each peer sends that fail
//! authentication ([`PeerLimit`]).
//!
//! The routers toolkit hands out apply [`HttpLimits::default`] themselves (a
//! builder method replaces them), so a request whose body trickles in, or a
//! handler that never answers, is cut off. The other bounds belong to the server
//! that accepts connections, which is the application's (toolkit binds no port):
//! the time a client may take to send its first byte, then its request line and
//! headers, and the number of connections open at once, in all and from one
//! peer. Serve with hyper's connection builder rather than `axum::serve` (which
//! sets no header timeout) to apply them (hyper and hyper-util, with
//! hyper-util's `server-auto`, `service` and `tokio` features); the sketch below
//! leaves out the first byte's deadline and the cap per peer, which the example
//! server (`examples/mcp_server/src/serve.rs`) adds:
//!
//! ```ignore
//! # async fn run(router: axum::Router) -> std::io::Result<()> {
//! use std::sync::Arc;
//! use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
//! use hyper_util::service::TowerToHyperService;
//!
//! let limits = toolkit::serving::HttpLimits::default();
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! let connections = Arc::new(tokio::sync::Semaphore::new(limits.connections));
//! loop {
//!     // At the cap, wait: further clients queue in the kernel's backlog.
//!     let permit = Arc::clone(&connections).acquire_owned().await.expect("never closed");
//!     let (stream, _) = listener.accept().await?;
//!     let service = TowerToHyperService::new(router.clone());
//!     let mut builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
//!     builder
//!         .http1()
//!         .timer(TokioTimer::new())
//!         .header_read_timeout(limits.header_read);
//!     tokio::spawn(async move {
//!         let _ = builder.serve_connection(TokioIo::new(stream), service).await;
//!         drop(permit);
//!     });
//! }
//! # }
//! ```
//!
//! The example server (`examples/mcp_server`) serves this way.

mod peer;

pub use peer::{PeerLimit, peer_of};

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use http_body::{Body as _, Frame, SizeHint};

/// Bounds on the time and the connections a client may take, each with a safe
/// default. The first two are applied by the routers toolkit makes; the others
/// by the server the application runs (see the [module docs](self)).
///
/// | bound | default | applied by |
/// |---|---|---|
/// | [`body_read`](Self::body_read) | 10 s | the router ([`HttpLimits::apply`]) |
/// | [`request`](Self::request) | 120 s | the router ([`HttpLimits::apply`]) |
/// | [`first_byte`](Self::first_byte) | 3 s | the server: a deadline on the new connection's first readable byte |
/// | [`header_read`](Self::header_read) | 10 s | the server: hyper's `http1::Builder::header_read_timeout` |
/// | [`connections`](Self::connections) | 8192 | the server: a semaphore around `accept` |
/// | [`connections_per_peer`](Self::connections_per_peer) | 64 | the server: a count per peer address around `accept` |
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpLimits {
    /// How long a new connection may stay silent: a client that has sent no
    /// byte by then is disconnected. Short, since a real client writes its
    /// request as soon as it connects, while every silent connection holds a
    /// slot of [`connections`](Self::connections).
    pub first_byte: Duration,
    /// How long the request line and headers may take to arrive, from the first
    /// byte of the request (hyper's `header_read_timeout`). A client that sends
    /// them slower is disconnected without an answer. hyper's timer also runs
    /// while a kept-alive connection waits for its next request, so it bounds
    /// idle connections too.
    pub header_read: Duration,
    /// How long the whole request body may take to arrive, from the moment the
    /// handler starts reading it. A body still arriving then is answered
    /// `408 Request Timeout` with `Connection: close`.
    pub body_read: Duration,
    /// How long a request may take from its headers to its answer's headers,
    /// tool calls included; then it is answered `503 Service Unavailable` with
    /// an empty body. Streamed answers are not cut once begun.
    pub request: Duration,
    /// How many connections may be open at once; the server accepts no more
    /// until one closes. A connection held open between requests or over
    /// trickling headers costs the example server 11-14 KiB (RELIABILITY.md),
    /// so the default, 8192, is some 115 MiB at most; the process needs a
    /// descriptor limit (`ulimit -n`) above it.
    pub connections: usize,
    /// How many of those connections one peer may hold: one IPv4 address, or
    /// one IPv6 /64 network (what one host is usually given). Further
    /// connections from it are closed as soon as they are accepted, so one host
    /// opening connections and trickling on them cannot take the slots every
    /// other client (and the load balancer's health check) needs. Behind a
    /// proxy every client shares the proxy's address: raise it above the
    /// proxy's own connection limit there, and limit clients at the proxy.
    pub connections_per_peer: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            first_byte: Duration::from_secs(3),
            header_read: Duration::from_secs(10),
            body_read: Duration::from_secs(10),
            request: Duration::from_mins(2),
            connections: 8192,
            connections_per_peer: 64,
        }
    }
}

impl HttpLimits {
    /// Sets [`first_byte`](Self::first_byte).
    #[must_use]
    pub fn first_byte(mut self, timeout: Duration) -> Self {
        self.first_byte = timeout;
        self
    }

    /// Sets [`header_read`](Self::header_read).
    #[must_use]
    pub fn header_read(mut self, timeout: Duration) -> Self {
        self.header_read = timeout;
        self
    }

    /// Sets [`body_read`](Self::body_read).
    #[must_use]
    pub fn body_read(mut self, timeout: Duration) -> Self {
        self.body_read = timeout;
        self
    }

    /// Sets [`request`](Self::request).
    #[must_use]
    pub fn request(mut self, timeout: Duration) -> Self {
        self.request = timeout;
        self
    }

    /// Sets [`connections`](Self::connections).
    #[must_use]
    pub fn connections(mut self, connections: usize) -> Self {
        self.connections = connections;
        self
    }

    /// Sets [`connections_per_peer`](Self::connections_per_peer).
    #[must_use]
    pub fn connections_per_peer(mut self, connections: usize) -> Self {
        self.connections_per_peer = connections;
        self
    }

    /// `router` with the bounds a router can apply: [`body_read`](Self::body_read)
    /// and [`request`](Self::request). Also answers `Connection: close` whenever a
    /// request's body was not read to its end (an early refusal such as `401`,
    /// `413` or `415`): the server cannot reuse such a connection, and a client
    /// told so opens a new one instead of failing its next request on a closed
    /// socket.
    pub fn apply(&self, router: Router) -> Router {
        router.layer(Edges {
            body_read: self.body_read,
            request: self.request,
            hosts: None,
        })
    }

    /// [`HttpLimits::apply`] and [`AllowedHosts::apply`] together, the `Host`
    /// checked inside the body's bounds as there, in one layer.
    pub(crate) fn apply_with_hosts(&self, hosts: &AllowedHosts, router: Router) -> Router {
        router.layer(Edges {
            body_read: self.body_read,
            request: self.request,
            hosts: Some(Arc::new(hosts.matcher())),
        })
    }
}

/// The edges of a router toolkit hands out, in one tower layer: the request's
/// deadline, the body's deadline, and the `Host` check (where one is set).
///
/// Written out rather than stacked from tower-http's `TimeoutLayer` and axum's
/// `from_fn`: each of those is a boxed future and a clone of the boxed inner
/// service per request, and `TimeoutLayer` arms its timer before the first poll
/// of the answer. Here the request's timer is armed only once the answer has to
/// be waited for (BENCHMARKS.md, "At rmcp's cost").
#[derive(Clone)]
struct Edges {
    body_read: Duration,
    request: Duration,
    hosts: Option<Arc<HostMatcher>>,
}

impl<S> tower::Layer<S> for Edges {
    type Service = EdgesService<S>;

    fn layer(&self, inner: S) -> EdgesService<S> {
        EdgesService {
            edges: self.clone(),
            inner,
        }
    }
}

/// [`Edges`] in front of one route.
#[derive(Clone)]
struct EdgesService<S> {
    edges: Edges,
    inner: S,
}

impl<S> tower::Service<Request> for EdgesService<S>
where
    S: tower::Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
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
        let ready = std::mem::replace(&mut self.inner, clone);
        let edges = self.edges.clone();
        Box::pin(async move { Ok(edges.serve(request, ready).await) })
    }
}

impl Edges {
    /// Answers `request` with `inner` within the bounds.
    async fn serve<S>(self, request: Request, mut inner: S) -> Response
    where
        S: tower::Service<Request, Response = Response, Error = Infallible>,
    {
        let Edges {
            body_read,
            request: limit,
            hosts,
        } = self;
        let answer = bound_body(body_read, request, |request: Request| async move {
            if let Some(hosts) = &hosts
                && let Err(refusal) = hosts.check(request.uri(), request.headers())
            {
                return refusal;
            }
            match inner.call(request).await {
                Ok(response) => response,
                Err(never) => match never {},
            }
        });
        // The answer is polled first: its deadline's timer is armed only if it
        // is not ready at once.
        tokio::time::timeout(limit, answer)
            .await
            .unwrap_or_else(|_| request_timeout_response())
    }
}

/// The answer to a request that took longer than [`HttpLimits::request`]: `503`
/// with an empty body.
fn request_timeout_response() -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    response
}

/// Gives the request body a deadline and marks the answer `Connection: close`
/// when the body was left unread or ran out of time; `inner` answers the request.
async fn bound_body<F, Fut>(body_read: Duration, request: Request, inner: F) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: Future<Output = Response>,
{
    let state = Arc::new(BodyState {
        finished: AtomicBool::new(request.body().is_end_stream()),
        timed_out: AtomicBool::new(false),
    });
    let (parts, body) = request.into_parts();
    let body = Body::new(DeadlineBody {
        inner: body,
        deadline: Box::pin(tokio::time::sleep(body_read)),
        state: Arc::clone(&state),
    });
    let mut response = inner(Request::from_parts(parts, body)).await;
    if state.timed_out.load(Ordering::Acquire) {
        // Whatever the handler made of its failed read (axum's extractors say 400,
        // a length check 413), the client was too slow.
        return body_timeout_response();
    }
    if !state.finished.load(Ordering::Acquire) {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// The error a request body gives once [`HttpLimits::body_read`] has passed.
#[derive(Debug)]
struct BodyTimeout;

impl std::fmt::Display for BodyTimeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the request body took too long to arrive")
    }
}

impl std::error::Error for BodyTimeout {}

/// The answer to a request whose body ran out of time: the rest of the body may
/// still be on its way, so the connection can't carry another request.
fn body_timeout_response() -> Response {
    use axum::response::IntoResponse as _;
    (
        StatusCode::REQUEST_TIMEOUT,
        [(header::CONNECTION, "close")],
        "Request Timeout: the request body took too long to arrive",
    )
        .into_response()
}

/// What a request's middleware learns from its body.
struct BodyState {
    /// The body was read to its end (or had none).
    finished: AtomicBool,
    /// The body's deadline passed while it was being read.
    timed_out: AtomicBool,
}

/// A request body that fails with [`BodyTimeout`] once its deadline has passed,
/// and says when it was read to its end.
struct DeadlineBody {
    inner: Body,
    deadline: Pin<Box<tokio::time::Sleep>>,
    state: Arc<BodyState>,
}

impl http_body::Body for DeadlineBody {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(None) => {
                this.state.finished.store(true, Ordering::Release);
                Poll::Ready(None)
            }
            Poll::Ready(frame) => Poll::Ready(frame),
            Poll::Pending => match this.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    this.state.timed_out.store(true, Ordering::Release);
                    Poll::Ready(Some(Err(axum::Error::new(BodyTimeout))))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        let end = self.inner.is_end_stream();
        if end {
            self.state.finished.store(true, Ordering::Release);
        }
        end
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The `Host` names a router answers, the guard against DNS rebinding: a page on
/// an attacker's name that the attacker re-points at this server's address still
/// sends the attacker's name as `Host`, and is refused. By default the loopback
/// names (`localhost`, `127.0.0.1`, `::1`), with any port; a deployed server names
/// its public names instead ([`AllowedHosts::new`]).
///
/// One rule for every surface: `mcp::McpHttp` and the inbox apply it (their `allowed_hosts` builder methods), and
/// an application's own routes can too ([`AllowedHosts::apply`]).
///
/// A name without a port matches any port (`tools.example.com` accepts
/// `tools.example.com:8443`); a name with one matches only that port. Names
/// compare without case, IPv6 addresses with or without brackets.
///
/// ```
/// use toolkit::serving::AllowedHosts;
///
/// let hosts = AllowedHosts::new(["tools.example.com", "localhost"]);
/// assert!(hosts.allows("tools.example.com:443"));
/// assert!(hosts.allows("LOCALHOST"));
/// assert!(!hosts.allows("evil.example"));
/// assert!(AllowedHosts::default().allows("[::1]:8080"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowedHosts {
    hosts: Vec<String>,
}

impl Default for AllowedHosts {
    /// The loopback names: `localhost`, `127.0.0.1`, `::1`.
    fn default() -> Self {
        AllowedHosts {
            hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
        }
    }
}

impl AllowedHosts {
    /// Exactly `hosts` (names or `name:port`), instead of the loopback names (list
    /// those too if local clients call the server). An empty list keeps the
    /// loopback names: it never means "any host", so a list built from empty
    /// configuration cannot switch the check off.
    pub fn new(hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let hosts: Vec<String> = hosts.into_iter().map(Into::into).collect();
        if hosts.is_empty() {
            Self::default()
        } else {
            AllowedHosts { hosts }
        }
    }

    /// These names and `host` too.
    #[must_use]
    pub fn and(mut self, host: impl Into<String>) -> Self {
        let host = host.into();
        if !self.hosts.contains(&host) {
            self.hosts.push(host);
        }
        self
    }

    /// Whether a request whose `Host` header is `host` (`name` or `name:port`) is
    /// answered.
    #[must_use]
    pub fn allows(&self, host: &str) -> bool {
        let Ok(authority) = http::uri::Authority::try_from(host) else {
            return false;
        };
        self.matcher().allows_authority(&authority)
    }

    /// The names parsed and normalized once, for the checks of every request.
    fn matcher(&self) -> HostMatcher {
        HostMatcher(
            self.hosts
                .iter()
                .map(
                    |allowed| match http::uri::Authority::try_from(allowed.trim()) {
                        Ok(allowed) => (normalize_host(allowed.host()), allowed.port_u16()),
                        Err(_) => (normalize_host(allowed.trim()), None),
                    },
                )
                .collect(),
        )
    }

    /// Checks a request's `Host` (or, without one, the authority of its URI, as
    /// HTTP/2 carries it): `Ok` to answer it; otherwise the answer, `400 Bad
    /// Request` for a missing or malformed `Host`, for two `Host` headers, and
    /// for a request target in absolute form (`GET http://name/path`) whose name
    /// is not the `Host`'s, and `403 Forbidden` for a name not allowed.
    #[allow(clippy::result_large_err)] // the refusal is the answer itself, made once
    pub fn check(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), Response> {
        self.matcher().check(uri, headers)
    }

    /// `router`, answering only requests whose `Host` is allowed (see
    /// [`check`](Self::check)); the others get `400` or `403` before any handler
    /// runs.
    pub fn apply(&self, router: Router) -> Router {
        let hosts = Arc::new(self.matcher());
        router.layer(axum::middleware::from_fn(
            move |request: Request, next: Next| {
                let hosts = Arc::clone(&hosts);
                async move {
                    match hosts.check(request.uri(), request.headers()) {
                        Ok(()) => next.run(request).await,
                        Err(refusal) => refusal,
                    }
                }
            },
        ))
    }

    /// The names, as given.
    #[must_use]
    pub fn names(&self) -> &[String] {
        &self.hosts
    }
}

/// [`AllowedHosts`] parsed once: each name without brackets, in lower case, and
/// its port if it has one. A request's check then allocates nothing for the
/// list.
struct HostMatcher(Vec<(String, Option<u16>)>);

impl HostMatcher {
    fn allows_authority(&self, authority: &http::uri::Authority) -> bool {
        let host = trim_brackets(authority.host());
        let port = authority.port_u16();
        self.0.iter().any(|(name, allowed_port)| {
            name.eq_ignore_ascii_case(host)
                && allowed_port.is_none_or(|allowed| port == Some(allowed))
        })
    }

    /// [`AllowedHosts::check`].
    #[allow(clippy::result_large_err)] // the refusal is the answer itself, made once
    fn check(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), Response> {
        use axum::response::IntoResponse as _;
        let bad_request = |why: &'static str| Err((StatusCode::BAD_REQUEST, why).into_response());
        let mut hosts = headers.get_all(header::HOST).iter();
        let host = hosts.next();
        // Two `Host` headers: a proxy in front may have read the other one, so
        // neither can be trusted (RFC 9112, section 3.2: answer 400).
        if hosts.next().is_some() {
            return bad_request("Bad Request: more than one Host header");
        }
        let host = match host {
            Some(value) => match value
                .to_str()
                .ok()
                .and_then(|host| http::uri::Authority::try_from(host).ok())
            {
                Some(host) => Some(host),
                None => return bad_request("Bad Request: missing or invalid Host header"),
            },
            None => None,
        };
        // A request target in absolute form (`GET http://name/path`) names the
        // host itself, and a server must use it rather than `Host` (RFC 9112,
        // section 3.2.2); a proxy in front may have used `Host`. So the two must
        // agree, and the name checked is then the same whichever is read.
        let authority = match (uri.authority(), host) {
            (Some(target), Some(host)) if *target != host => {
                return bad_request(
                    "Bad Request: the request target's host differs from the Host header",
                );
            }
            (Some(target), _) => target.clone(),
            (None, Some(host)) => host,
            (None, None) => {
                return bad_request("Bad Request: missing or invalid Host header");
            }
        };
        if self.allows_authority(&authority) {
            Ok(())
        } else {
            tracing::warn!(
                host = %authority,
                "request refused: its Host is not allowed (possible DNS rebinding)"
            );
            Err((
                StatusCode::FORBIDDEN,
                "Forbidden: Host header is not allowed",
            )
                .into_response())
        }
    }
}

/// `[::1]` and `::1`, `LocalHost` and `localhost` are the same host.
fn normalize_host(host: &str) -> String {
    trim_brackets(host).to_ascii_lowercase()
}

/// An IPv6 address without its brackets.
fn trim_brackets(host: &str) -> &str {
    host.trim_start_matches('[').trim_end_matches(']')
}

/// Liveness and readiness endpoints for the load balancer or orchestrator in
/// front of a server: a [`Router`] to merge into the application's app.
///
/// - `GET /livez` answers `200 ok` without touching anything: the process is
///   serving requests. A process that stops answering it (frozen, deadlocked,
///   out of threads) is restarted by whatever watches it.
/// - `GET /readyz` answers `200 ok` once the approval store answers
///   [`ApprovalStore::check`](crate::approval::ApprovalStore::check) (a `SQLite`
///   file another process holds locked is not ready) within
///   [`timeout`](Self::timeout) (2 s by default), else `503` saying why: a
///   replica that can't reach its database takes no new requests. With no store
///   ([`Health::new`]), ready whenever live.
///
/// A load balancer checks `/readyz` every second or so and takes a replica out
/// of rotation after a failed check or two: a replica that hangs (a frozen
/// process accepts connections in the kernel but never answers) leaves within
/// seconds instead of holding its requests until the balancer's server timeout.
/// The endpoints take no token and say nothing but `ok` or the failing check,
/// and answer whatever the `Host`: load balancers probe by address.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use std::time::Duration;
///
/// use toolkit::approval::{ApprovalKey, Approvals, MemoryApprovalStore};
/// use toolkit::serving::Health;
///
/// let key = ApprovalKey::new(*b"an application secret of 32 bytes")?;
/// let approvals = Arc::new(Approvals::new(key, MemoryApprovalStore::new()));
/// let app = axum::Router::new()
///     .merge(Health::new().approvals(approvals).timeout(Duration::from_secs(1)).router());
/// # let _ = app;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
#[must_use]
pub struct Health {
    approvals: Option<Arc<dyn std::borrow::Borrow<crate::approval::Approvals> + Send + Sync>>,
    timeout: Duration,
}

impl Default for Health {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Health {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Health")
            .field("approvals", &self.approvals.is_some())
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl Health {
    /// Liveness and readiness with nothing to check: ready whenever live.
    pub fn new() -> Self {
        Health {
            approvals: None,
            timeout: Duration::from_secs(2),
        }
    }

    /// Ready only while `approvals`' store answers (an `Arc<Approvals>` or a
    /// `&'static Approvals`).
    pub fn approvals(
        mut self,
        approvals: impl std::borrow::Borrow<crate::approval::Approvals> + Send + Sync + 'static,
    ) -> Self {
        self.approvals = Some(Arc::new(approvals));
        self
    }

    /// How long the store may take to answer a readiness check (2 s by default);
    /// keep it below the load balancer's check timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The router: `GET /livez` and `GET /readyz`.
    pub fn router(self) -> Router {
        let health = Arc::new(self);
        Router::new()
            .route("/livez", axum::routing::get(|| async { "ok" }))
            .route(
                "/readyz",
                axum::routing::get(move || {
                    let health = Arc::clone(&health);
                    async move { health.ready().await }
                }),
            )
    }

    /// The answer to `/readyz`.
    async fn ready(&self) -> Response {
        use axum::response::IntoResponse as _;
        let Some(approvals) = &self.approvals else {
            return "ok".into_response();
        };
        let approvals: &crate::approval::Approvals = (**approvals).borrow();
        let why = match tokio::time::timeout(self.timeout, approvals.store().check()).await {
            Ok(Ok(())) => return "ok".into_response(),
            Ok(Err(error)) => {
                // The driver's words stay in the log: the endpoint takes no token.
                tracing::warn!(%error, "readiness check: the approval store failed");
                "not ready: the approval store failed".to_owned()
            }
            Err(_) => {
                tracing::warn!(timeout = ?self.timeout, "readiness check: the approval store did not answer");
                format!(
                    "not ready: the approval store did not answer within {} ms",
                    self.timeout.as_millis()
                )
            }
        };
        (StatusCode::SERVICE_UNAVAILABLE, why).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::{ApprovalKey, ApprovalStore, Approvals};
    use crate::testing::DownApprovalStore;
    use tower::ServiceExt as _;

    fn approvals(store: impl ApprovalStore + 'static) -> Arc<Approvals> {
        let key = ApprovalKey::new(*b"the health tests' approval key!!").unwrap();
        Arc::new(Approvals::new(key, store))
    }

    /// The status and body of `GET path` (no `Host`: load balancers probe by address).
    async fn probe(router: &Router, path: &str) -> (StatusCode, String) {
        let request = Request::get(path).body(Body::empty()).unwrap();
        let response = router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .unwrap();
        (status, String::from_utf8(body.to_vec()).unwrap())
    }

    /// A route that answers `ok` at once, and one that takes 5 s.
    fn prompt_and_slow() -> Router {
        Router::new()
            .route("/prompt", axum::routing::get(|| async { "ok" }))
            .route(
                "/slow",
                axum::routing::get(|| async {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                    "late"
                }),
            )
    }

    #[tokio::test]
    async fn a_request_past_its_limit_is_answered_503_and_a_prompt_one_as_it_is() {
        let limits = HttpLimits::default().request(Duration::from_millis(100));
        for router in [
            limits.apply(prompt_and_slow()),
            limits.apply_with_hosts(&AllowedHosts::default(), prompt_and_slow()),
        ] {
            let started = std::time::Instant::now();
            assert_eq!(
                probe_host(&router, "/slow", Some("localhost"), "").await,
                (StatusCode::SERVICE_UNAVAILABLE, None, String::new())
            );
            assert!(started.elapsed() < Duration::from_secs(2));
            assert_eq!(
                probe_host(&router, "/prompt", Some("localhost"), "").await,
                (StatusCode::OK, None, "ok".to_owned())
            );
        }
    }

    #[tokio::test]
    async fn the_edges_check_the_host_and_close_a_refused_connection() {
        let router = HttpLimits::default()
            .apply_with_hosts(&AllowedHosts::new(["tools.example.com"]), prompt_and_slow());
        assert_eq!(
            probe_host(&router, "/prompt", Some("tools.example.com:8443"), "").await,
            (StatusCode::OK, None, "ok".to_owned())
        );
        // A body left unread: the connection can't carry another request.
        assert_eq!(
            probe_host(&router, "/prompt", Some("tools.example.com"), "x").await,
            (StatusCode::OK, Some("close"), "ok".to_owned())
        );
        assert_eq!(
            probe_host(&router, "/prompt", Some("evil.example"), "x").await,
            (
                StatusCode::FORBIDDEN,
                Some("close"),
                "Forbidden: Host header is not allowed".to_owned()
            )
        );
        assert_eq!(
            probe_host(&router, "/prompt", None, "x").await,
            (
                StatusCode::BAD_REQUEST,
                Some("close"),
                "Bad Request: missing or invalid Host header".to_owned()
            )
        );
    }

    #[tokio::test]
    async fn two_host_headers_or_a_request_target_naming_another_host_are_answered_400() {
        let router = HttpLimits::default()
            .apply_with_hosts(&AllowedHosts::new(["tools.example.com"]), prompt_and_slow());
        let answer = |uri: &'static str, hosts: &'static [&'static str]| {
            let mut request = Request::get(uri).body(Body::empty()).unwrap();
            for host in hosts {
                request
                    .headers_mut()
                    .append(header::HOST, HeaderValue::from_static(host));
            }
            let router = router.clone();
            async move {
                let response = router.oneshot(request).await.unwrap();
                let status = response.status();
                let body = axum::body::to_bytes(response.into_body(), 1 << 16)
                    .await
                    .unwrap();
                (status, String::from_utf8(body.to_vec()).unwrap())
            }
        };
        let two = (
            StatusCode::BAD_REQUEST,
            "Bad Request: more than one Host header".to_owned(),
        );
        assert_eq!(
            answer("/prompt", &["tools.example.com", "evil.example"]).await,
            two
        );
        assert_eq!(
            answer("/prompt", &["evil.example", "tools.example.com"]).await,
            two
        );
        assert_eq!(
            answer("/prompt", &["tools.example.com", "tools.example.com"]).await,
            two
        );
        let differs = (
            StatusCode::BAD_REQUEST,
            "Bad Request: the request target's host differs from the Host header".to_owned(),
        );
        assert_eq!(
            answer("http://evil.example/prompt", &["tools.example.com"]).await,
            differs
        );
        assert_eq!(
            answer(
                "http://tools.example.com:8443/prompt",
                &["tools.example.com"]
            )
            .await,
            differs
        );
        // The same name in both is the name checked; alone, the target's is.
        assert_eq!(
            answer("http://TOOLS.example.com/prompt", &["tools.example.com"]).await,
            (StatusCode::OK, "ok".to_owned())
        );
        assert_eq!(
            answer("http://evil.example/prompt", &["evil.example"]).await,
            (
                StatusCode::FORBIDDEN,
                "Forbidden: Host header is not allowed".to_owned()
            )
        );
        assert_eq!(
            answer("http://evil.example/prompt", &[]).await.0,
            StatusCode::FORBIDDEN
        );
        // The application's own routes get the same check.
        let own = AllowedHosts::new(["tools.example.com"]).apply(prompt_and_slow());
        let mut request = Request::get("http://evil.example/prompt")
            .body(Body::empty())
            .unwrap();
        request
            .headers_mut()
            .insert(header::HOST, HeaderValue::from_static("tools.example.com"));
        assert_eq!(
            own.oneshot(request).await.unwrap().status(),
            StatusCode::BAD_REQUEST
        );
    }

    /// The status, `Connection` header and body of `GET path` with `body` (which
    /// the routes leave unread), sent with `host` as its `Host`.
    async fn probe_host(
        router: &Router,
        path: &str,
        host: Option<&str>,
        body: &'static str,
    ) -> (StatusCode, Option<&'static str>, String) {
        let mut request = Request::get(path).body(Body::from(body)).unwrap();
        if let Some(host) = host {
            request
                .headers_mut()
                .insert(header::HOST, HeaderValue::from_str(host).unwrap());
        }
        let response = router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let connection = match response.headers().get(header::CONNECTION) {
            Some(value) if value == "close" => Some("close"),
            Some(other) => panic!("Connection: {other:?}"),
            None => None,
        };
        let body = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .unwrap();
        (
            status,
            connection,
            String::from_utf8(body.to_vec()).unwrap(),
        )
    }

    /// A `SQLite` file another process holds locked (a backup, a migration) is not
    /// ready, within the check's timeout; liveness still answers at once, on a
    /// single-threaded runtime, since the store waits on its own thread.
    #[cfg(feature = "sqlite")]
    #[tokio::test]
    async fn a_locked_sqlite_store_is_not_ready_and_the_process_is_live() {
        let path = std::env::temp_dir().join(format!(
            "toolkit-health-locked-{}.sqlite3",
            std::process::id()
        ));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        let store = crate::approval::SqliteApprovalStore::open(&path).unwrap();
        let health = Health::new()
            .approvals(approvals(store))
            .timeout(Duration::from_millis(300))
            .router();
        let ok = (StatusCode::OK, "ok".to_owned());
        assert_eq!(probe(&health, "/readyz").await, ok);
        let locker = rusqlite::Connection::open(&path).unwrap();
        locker.execute_batch("BEGIN EXCLUSIVE;").unwrap();
        let started = std::time::Instant::now();
        assert_eq!(
            probe(&health, "/readyz").await,
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "not ready: the approval store did not answer within 300 ms".to_owned()
            )
        );
        // Far below the store's 10 s wait for the lock.
        assert!(started.elapsed() < Duration::from_secs(5));
        let started = std::time::Instant::now();
        assert_eq!(probe(&health, "/livez").await, ok);
        assert!(started.elapsed() < Duration::from_secs(2));
        locker.execute_batch("COMMIT;").unwrap();
        assert_eq!(probe(&health, "/readyz").await, ok);
    }

    #[tokio::test]
    async fn readiness_asks_the_store_and_liveness_asks_nothing() {
        let ok = (StatusCode::OK, "ok".to_owned());
        let healthy = Health::new()
            .approvals(approvals(crate::approval::MemoryApprovalStore::new()))
            .router();
        assert_eq!(probe(&healthy, "/livez").await, ok);
        assert_eq!(probe(&healthy, "/readyz").await, ok);
        assert_eq!(probe(&Health::new().router(), "/readyz").await, ok);

        // A store that fails: not ready, and its words stay in the log.
        let down = Health::new()
            .approvals(approvals(DownApprovalStore::new()))
            .router();
        assert_eq!(probe(&down, "/livez").await, ok);
        assert_eq!(
            probe(&down, "/readyz").await,
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "not ready: the approval store failed".to_owned()
            )
        );

        // A store that hangs: not ready once the timeout passes, not later.
        let stuck = Health::new()
            .approvals(approvals(DownApprovalStore::hanging()))
            .timeout(Duration::from_millis(200))
            .router();
        assert_eq!(probe(&stuck, "/livez").await, ok);
        let started = std::time::Instant::now();
        assert_eq!(
            probe(&stuck, "/readyz").await,
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "not ready: the approval store did not answer within 200 ms".to_owned()
            )
        );
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(200) && took < Duration::from_secs(2),
            "{took:?}"
        );
    }

    #[test]
    fn host_names_match_without_case_brackets_or_an_unnamed_port() {
        let loopback = AllowedHosts::default();
        for host in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:1",
            "[::1]",
            "[::1]:80",
        ] {
            assert!(loopback.allows(host), "{host}");
        }
        for host in [
            "evil.example",
            "localhost.evil.example",
            "127.0.0.2",
            "",
            "a b",
        ] {
            assert!(!loopback.allows(host), "{host}");
        }
        let named = AllowedHosts::new(["Tools.Example.com", "admin.example.com:8443"]);
        assert!(named.allows("tools.example.com:443"));
        assert!(named.allows("admin.example.com:8443"));
        assert!(!named.allows("admin.example.com"));
        assert!(!named.allows("admin.example.com:443"));
        assert!(!named.allows("localhost"));
        // An empty list is never "any host".
        assert_eq!(AllowedHosts::new(Vec::<String>::new()), loopback);
        assert!(named.and("localhost").allows("localhost:3000"));
    }
}

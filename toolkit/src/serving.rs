//! What every HTTP surface of toolkit ([`McpHttp`](crate::mcp::McpHttp), the
//! [inbox](crate::inbox)) needs from the server it is mounted in: bounds on how
//! long a client may take ([`HttpLimits`]).
//!
//! The routers toolkit hands out apply [`HttpLimits::default`] themselves (a
//! builder method replaces them), so a request whose body trickles in, or a
//! handler that never answers, is cut off. Two bounds belong to the server that
//! accepts connections, which is the application's (toolkit binds no port):
//! the time a client may take to send its request line and headers, and the
//! number of connections open at once. Serve with hyper's connection builder
//! rather than `axum::serve` (which sets no header timeout) to apply them
//! (hyper and hyper-util, with hyper-util's `server-auto`, `service` and `tokio`
//! features):
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
use http::{HeaderValue, StatusCode, header};
use http_body::{Body as _, Frame, SizeHint};

/// Bounds on the time and the connections a client may take, each with a safe
/// default. The first two are applied by the routers toolkit makes; the others
/// by the server the application runs (see the [module docs](self)).
///
/// | bound | default | applied by |
/// |---|---|---|
/// | [`body_read`](Self::body_read) | 10 s | the router ([`HttpLimits::apply`]) |
/// | [`request`](Self::request) | 120 s | the router ([`HttpLimits::apply`]) |
/// | [`header_read`](Self::header_read) | 10 s | the server: hyper's `http1::Builder::header_read_timeout` |
/// | [`connections`](Self::connections) | 1024 | the server: a semaphore around `accept` |
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpLimits {
    /// How long the request line and headers may take to arrive, from the first
    /// byte of the request (hyper's `header_read_timeout`). A client that sends
    /// them slower is disconnected without an answer.
    pub header_read: Duration,
    /// How long the whole request body may take to arrive, from the moment the
    /// handler starts reading it. A body still arriving then is answered
    /// `408 Request Timeout` with `Connection: close`.
    pub body_read: Duration,
    /// How long a request may take from its headers to its answer's headers,
    /// tool calls included; then it is answered `503 Service Unavailable`
    /// (tower-http's `TimeoutLayer`). Streamed answers are not cut once begun.
    pub request: Duration,
    /// How many connections may be open at once; the server accepts no more
    /// until one closes.
    pub connections: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            header_read: Duration::from_secs(10),
            body_read: Duration::from_secs(10),
            request: Duration::from_mins(2),
            connections: 1024,
        }
    }
}

impl HttpLimits {
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

    /// `router` with the bounds a router can apply: [`body_read`](Self::body_read)
    /// and [`request`](Self::request). Also answers `Connection: close` whenever a
    /// request's body was not read to its end (an early refusal such as `401`,
    /// `413` or `415`): the server cannot reuse such a connection, and a client
    /// told so opens a new one instead of failing its next request on a closed
    /// socket.
    pub fn apply(&self, router: Router) -> Router {
        let body_read = self.body_read;
        router
            .layer(tower_http::timeout::TimeoutLayer::with_status_code(
                StatusCode::SERVICE_UNAVAILABLE,
                self.request,
            ))
            .layer(axum::middleware::from_fn(
                move |request: Request, next: Next| bound_body(body_read, request, next),
            ))
    }
}

/// Gives the request body a deadline and marks the answer `Connection: close`
/// when the body was left unread or ran out of time.
async fn bound_body(body_read: Duration, request: Request, next: Next) -> Response {
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
    let mut response = next.run(Request::from_parts(parts, body)).await;
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

//! The server loop: accepts connections and serves a router on each, within the
//! bounds toolkit's routers leave to the server ([`HttpLimits::header_read`],
//! [`HttpLimits::connections`]); the routers apply the others themselves.

use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use toolkit::serving::HttpLimits;

/// Serves `router` on `listener` until accepting fails: at most
/// `limits.connections` connections at once (further clients wait in the
/// kernel's backlog), each closed when a request's line and headers take longer
/// than `limits.header_read` to arrive.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: HttpLimits,
) -> std::io::Result<()> {
    let connections = Arc::new(tokio::sync::Semaphore::new(limits.connections.max(1)));
    loop {
        let Ok(permit) = Arc::clone(&connections).acquire_owned().await else {
            return Ok(()); // never closed
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of descriptors or a connection reset before it was accepted:
            // the listener is still good (axum::serve waits a second too).
            Err(error) if is_per_connection(&error) => continue,
            Err(error) => {
                eprintln!(
                    "mcp_server: accepting a connection failed ({error}); retrying in a second"
                );
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone());
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_read);
        tokio::spawn(async move {
            // A client that goes away or is cut off is no error of the server's.
            let _ = builder
                .serve_connection(TokioIo::new(stream), service)
                .await;
            drop(permit);
        });
    }
}

/// Errors of one connection, not of the listener.
fn is_per_connection(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
}

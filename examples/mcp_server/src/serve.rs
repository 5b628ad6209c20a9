//! The server loop: accepts connections and serves a router on each, within the
//! bounds toolkit's routers leave to the server ([`HttpLimits::first_byte`],
//! [`HttpLimits::header_read`], [`HttpLimits::connections`],
//! [`HttpLimits::connections_per_peer`]); the routers apply the others
//! themselves.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use toolkit::serving::{HttpLimits, peer_of};

/// Serves `router` on `listener` until accepting fails: at most
/// `limits.connections` connections at once (further clients wait in the
/// kernel's backlog), at most `limits.connections_per_peer` of them from one
/// peer (further ones are closed at once), each closed when its first byte takes
/// longer than `limits.first_byte`, or a request's line and headers longer than
/// `limits.header_read`, to arrive.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: HttpLimits,
) -> std::io::Result<()> {
    let connections = Arc::new(tokio::sync::Semaphore::new(connection_cap(
        limits.connections.max(1),
    )));
    let peers = Peers::default();
    loop {
        let Ok(permit) = Arc::clone(&connections).acquire_owned().await else {
            return Ok(()); // never closed
        };
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
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
        // Over its share, a peer's connection is closed before anything is read
        // (dropping the stream): its slot is back at once.
        let Some(share) = peers.take(peer.ip(), limits.connections_per_peer) else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        // The peer's address reaches the routers as axum's `ConnectInfo`, as
        // `axum::serve` with connect info gives it (the MCP peer limit reads it).
        let service = TowerToHyperService::new(tower::Layer::layer(
            &axum::Extension(axum::extract::ConnectInfo(peer)),
            router.clone(),
        ));
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_read);
        tokio::spawn(async move {
            // A connection that stays silent is closed sooner than one that
            // trickles its headers: hyper's header timer starts only once the
            // connection is handed over, here at its first byte.
            // `peek` waits for a byte (readiness alone can be reported early);
            // `Ok(0)` is a client that closed without sending one.
            let first = tokio::time::timeout(limits.first_byte, stream.peek(&mut [0u8; 1])).await;
            if let Ok(Ok(1..)) = first {
                // A client that goes away or is cut off is no error of the server's.
                let _ = builder
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            }
            drop(share);
            drop(permit);
        });
    }
}

/// Descriptors kept for what is not a client's connection: the listener, the
/// approval store's connections, logs, the sign-in's HTTP client.
const RESERVED_DESCRIPTORS: u64 = 128;

/// `wanted` connections, or fewer if the process may not open that many
/// descriptors: past its limit `accept` fails for every client alike. The soft
/// limit is first raised to the hard one, as Go's runtime does at start (soft
/// limits of 1024 are common, and a server needs more).
fn connection_cap(wanted: usize) -> usize {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let mut limit = getrlimit(Resource::Nofile);
        if limit.current != limit.maximum {
            let raised = Rlimit {
                current: limit.maximum,
                maximum: limit.maximum,
            };
            if setrlimit(Resource::Nofile, raised).is_ok() {
                limit = raised;
            }
        }
        // `None` is no limit.
        if let Some(current) = limit.current {
            let room = usize::try_from(current.saturating_sub(RESERVED_DESCRIPTORS))
                .unwrap_or(usize::MAX)
                .max(1);
            if room < wanted {
                eprintln!(
                    "mcp_server: the descriptor limit ({current}) leaves room for {room} \
                     connections, not {wanted}: raise `ulimit -n`"
                );
                return room;
            }
        }
    }
    wanted
}

/// The connections open from each peer: an IPv4 address, or an IPv6 /64 network
/// (one host is usually given a whole /64, so counting its addresses apart would
/// give it billions of shares).
#[derive(Clone, Default)]
struct Peers(Arc<Mutex<HashMap<IpAddr, usize>>>);

impl Peers {
    /// One more connection for `ip`'s peer, unless it holds `limit` already.
    fn take(&self, ip: IpAddr, limit: usize) -> Option<PeerShare> {
        let peer = peer_of(ip);
        let mut open = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let count = open.entry(peer).or_insert(0);
        if *count >= limit.max(1) {
            return None;
        }
        *count += 1;
        Some(PeerShare {
            peers: self.clone(),
            peer,
        })
    }
}

/// One open connection of a peer, given back when dropped.
struct PeerShare {
    peers: Peers,
    peer: IpAddr,
}

impl Drop for PeerShare {
    fn drop(&mut self) {
        let mut open = self.peers.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = open.get_mut(&self.peer) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                // The map holds only peers with connections open.
                open.remove(&self.peer);
            }
        }
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

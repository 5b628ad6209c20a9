//! [`PeerLimit`]: a limit on requests that fail authentication, per peer address.
// Only `McpHttp` (feature `mcp`) consults a limit; a build with `inbox` alone
// compiles `serving`, this module with it, and consults none.
#![cfg_attr(not(feature = "mcp"), allow(dead_code))]

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::extract::ConnectInfo;
use http::HeaderMap;

use crate::quota::Quota;
use crate::quota::limit::Gcra;

/// How many peers a [`PeerLimit`] keeps state for, unless
/// [`PeerLimit::max_peers`] says otherwise.
const DEFAULT_MAX_PEERS: usize = 100_000;

/// How many `X-Forwarded-For` entries are read from the right, at most: a chain
/// of trusted proxies longer than this is a misconfiguration, not a reason to
/// read a header of any length.
const MAX_FORWARDED_HOPS: usize = 16;

/// A limit on the requests of each peer that fail authentication (answered
/// `401 Unauthorized`: no bearer token, a wrong one, an expired or forged OAuth
/// token), checked *before* the token is verified: a peer over its limit is
/// answered `429 Too Many Requests` with `Retry-After`, and its token is not
/// looked at, so a flood of bad tokens costs neither signature checks nor
/// introspection calls. Set it with
/// [`McpHttp::peer_limit`](crate::mcp::McpHttp::peer_limit) (feature `mcp`).
///
/// A request whose token verifies is never counted: its caller is known, and
/// [`McpHttp::request_limit`](crate::mcp::McpHttp::request_limit) counts it by
/// principal. Only answers of `401` spend from the peer's limit.
///
/// # The peer
/// The socket's peer address, which the server puts in the request as axum's
/// [`ConnectInfo<SocketAddr>`] (`axum::serve` with
/// `into_make_service_with_connect_info::<SocketAddr>()`, or, serving with
/// hyper, the `axum::Extension(ConnectInfo(peer))` layer on each connection's
/// router). An IPv4 address counts as itself (also mapped into IPv6); an IPv6
/// address counts as its /64 network ([`peer_of`]), which one host usually holds
/// whole. A request without `ConnectInfo` counts as one unknown peer that all
/// such requests share (a warning is logged once): limited together, never
/// unlimited.
///
/// Behind a load balancer every request comes from the balancer. Name it with
/// [`trust_forwarded_for`](Self::trust_forwarded_for): then, for requests whose
/// socket peer is one of those addresses, the peer is read from
/// `X-Forwarded-For`, right to left, skipping the trusted proxies: the first
/// address no trusted proxy has is the client (an entry a client wrote itself
/// sits further left, and is never reached). From any other socket peer the
/// header is ignored, so a client cannot pick whose limit it spends.
///
/// # Per process
/// The counts are kept in this process's memory, per replica, on purpose: the
/// limit protects the work this replica does for a caller it does not know yet
/// (verifying a signature, asking the authorization server), and each replica
/// does its own; a request without credentials must not turn into a database
/// round trip either. Behind a balancer that spreads a flood over `n`
/// replicas, the fleet verifies at most `n` times the limit, which is `n`
/// replicas' worth of capacity.
///
/// Counted with GCRA on the same parameters as the quota stores
/// ([`Quota`]: a burst of `count`, then one every `period / count`), with a
/// check that spends nothing, which a count kept by a rate-limiting crate
/// (`governor` admits by spending) cannot give before the token is verified.
///
/// # Memory
/// State is kept for at most [`max_peers`](Self::max_peers) peers (100,000
/// unless set); peers whose state would admit a full burst again are dropped
/// when the map is full. Should it still be full, further new peers share one
/// count: a flood from many addresses is limited as one, never unlimited.
pub struct PeerLimit {
    quota: Quota,
    gcra: Gcra,
    trusted: Vec<IpAddr>,
    max_peers: usize,
    origin: Instant,
    /// The time instead of `origin.elapsed()`, where a test pins it.
    clock: Option<Box<dyn Fn() -> Duration + Send + Sync>>,
    /// Per peer, GCRA's theoretical arrival time of the next failed request, in
    /// nanoseconds since `origin`.
    state: Mutex<HashMap<PeerKey, i64>>,
    warned: std::sync::atomic::AtomicBool,
}

/// What a peer's count is kept under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum PeerKey {
    /// A peer address ([`peer_of`]).
    Address(IpAddr),
    /// A request without `ConnectInfo`.
    Unknown,
    /// A new peer while the map is full.
    Overflow,
}

impl PeerLimit {
    /// At most `quota` failed authentications per peer.
    #[must_use]
    pub fn new(quota: Quota) -> Self {
        PeerLimit {
            quota,
            gcra: quota.gcra(),
            trusted: Vec::new(),
            max_peers: DEFAULT_MAX_PEERS,
            origin: Instant::now(),
            clock: None,
            state: Mutex::new(HashMap::new()),
            warned: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Reads the peer from `X-Forwarded-For` for requests whose socket peer is
    /// one of `proxies` (the load balancers in front of this server, by
    /// address), instead of counting every request as the balancer's. An
    /// explicit opt-in: by default the header is ignored.
    #[must_use]
    pub fn trust_forwarded_for(mut self, proxies: impl IntoIterator<Item = IpAddr>) -> Self {
        self.trusted
            .extend(proxies.into_iter().map(|address| address.to_canonical()));
        self
    }

    /// Keeps state for at most `max_peers` peers (at least one).
    #[must_use]
    pub fn max_peers(mut self, max_peers: usize) -> Self {
        self.max_peers = max_peers.max(1);
        self
    }

    /// Reads the time from `clock` (any origin, never going back) instead of
    /// this process's monotonic clock: tests pin time with it.
    #[must_use]
    pub fn clock(mut self, clock: impl Fn() -> Duration + Send + Sync + 'static) -> Self {
        self.clock = Some(Box::new(clock));
        self
    }

    /// The limit.
    #[must_use]
    pub fn quota(&self) -> Quota {
        self.quota
    }

    /// The peer a request counts as: its socket peer's [network](peer_of), or,
    /// from a trusted proxy, the client `X-Forwarded-For` names; `None` for a
    /// request without `ConnectInfo<SocketAddr>`.
    #[must_use]
    pub fn peer(&self, extensions: &http::Extensions, headers: &HeaderMap) -> Option<IpAddr> {
        let socket = extensions.get::<ConnectInfo<SocketAddr>>()?.0.ip();
        Some(peer_of(self.client_of(socket, headers)))
    }

    /// The client address: `socket`, unless it is a trusted proxy, then the
    /// rightmost `X-Forwarded-For` entry that is not a trusted proxy. An entry
    /// that is not an address stops the walk at the hop that wrote it (which is
    /// then counted): nothing further left can be believed.
    fn client_of(&self, socket: IpAddr, headers: &HeaderMap) -> IpAddr {
        let mut client = socket.to_canonical();
        if !self.trusted.contains(&client) {
            return client;
        }
        // Several headers are one list, in order (RFC 9110 §5.3).
        let mut entries: Vec<&str> = Vec::new();
        for value in headers.get_all("x-forwarded-for") {
            let Ok(value) = value.to_str() else {
                return client;
            };
            entries.extend(value.split(','));
        }
        for entry in entries.iter().rev().take(MAX_FORWARDED_HOPS) {
            let Some(address) = forwarded_address(entry) else {
                return client;
            };
            client = address;
            if !self.trusted.contains(&client) {
                return client;
            }
        }
        client
    }

    /// How long until `peer` may be answered again, if it is over its limit
    /// now. Spends nothing.
    pub(crate) fn refused(&self, peer: Option<IpAddr>) -> Option<Duration> {
        let now = self.now();
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let tat = *state.get(&self.key_in(&state, peer))?;
        let wait = tat.saturating_sub(self.gcra.tolerance).saturating_sub(now);
        (wait > 0).then(|| Duration::from_nanos(u64::try_from(wait).unwrap_or(0)))
    }

    /// Counts one failed authentication of `peer`.
    pub(crate) fn spend(&self, peer: Option<IpAddr>) {
        if peer.is_none() && !self.warned.swap(true, std::sync::atomic::Ordering::Relaxed) {
            tracing::warn!(
                "a request reached the peer limit without ConnectInfo<SocketAddr>: \
                 requests without it share one count; serve with connect info"
            );
        }
        let now = self.now();
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let mut key = self.key_in(&state, peer);
        if !state.contains_key(&key) && state.len() >= self.max_peers {
            // Peers whose count would admit a full burst are the same as none.
            state.retain(|_, tat| *tat > now);
            if state.len() >= self.max_peers {
                key = PeerKey::Overflow;
            }
        }
        let tat = state.entry(key).or_insert(now);
        *tat = (*tat).max(now).saturating_add(self.gcra.interval);
    }

    /// The key `peer` is counted under: its own, or the overflow count's when
    /// the map was full when it first came.
    fn key_in(&self, state: &HashMap<PeerKey, i64>, peer: Option<IpAddr>) -> PeerKey {
        let key = peer.map_or(PeerKey::Unknown, PeerKey::Address);
        if state.contains_key(&key) || state.len() < self.max_peers {
            key
        } else {
            PeerKey::Overflow
        }
    }

    /// Nanoseconds since the limit was made (or on the pinned clock), on a clock
    /// that never goes back.
    fn now(&self) -> i64 {
        let since = self
            .clock
            .as_ref()
            .map_or_else(|| self.origin.elapsed(), |clock| clock());
        i64::try_from(since.as_nanos()).unwrap_or(i64::MAX)
    }
}

impl std::fmt::Debug for PeerLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PeerLimit")
            .field("quota", &self.quota)
            .field("trusted", &self.trusted)
            .finish_non_exhaustive()
    }
}

/// One `X-Forwarded-For` entry as an address: `192.0.2.1`, `2001:db8::1`, and
/// the bracketed or ported forms some proxies write (`[2001:db8::1]:443`,
/// `192.0.2.1:8080`).
fn forwarded_address(entry: &str) -> Option<IpAddr> {
    let entry = entry.trim();
    if let Ok(address) = entry.parse::<IpAddr>() {
        return Some(address.to_canonical());
    }
    entry
        .parse::<SocketAddr>()
        .ok()
        .map(|socket| socket.ip().to_canonical())
        .or_else(|| {
            entry
                .strip_prefix('[')
                .and_then(|rest| rest.strip_suffix(']'))
                .and_then(|inner| inner.parse::<IpAddr>().ok())
                .map(|address| address.to_canonical())
        })
}

/// The peer an address counts as: an IPv4 address (also when mapped into IPv6)
/// as itself, an IPv6 address as its /64 network (one host is usually given a
/// whole /64, so counting its addresses apart would give it billions of counts).
///
/// ```
/// use std::net::IpAddr;
/// use toolkit::serving::peer_of;
///
/// let ip = |text: &str| text.parse::<IpAddr>().unwrap();
/// assert_eq!(peer_of(ip("2001:db8:1:2:3:4:5:6")), ip("2001:db8:1:2::"));
/// assert_eq!(peer_of(ip("::ffff:192.0.2.7")), ip("192.0.2.7"));
/// ```
#[must_use]
pub fn peer_of(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let network = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(network.into())
        }
        v4 @ IpAddr::V4(_) => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn forwarded(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append("x-forwarded-for", value.parse().unwrap());
        }
        headers
    }

    #[test]
    fn the_client_is_the_rightmost_address_no_trusted_proxy_has() {
        let limit = PeerLimit::new("2/min".parse().unwrap())
            .trust_forwarded_for([ip("10.0.0.1"), ip("10.0.0.2")]);
        // From a client directly: the header is the client's own words.
        assert_eq!(
            limit.client_of(ip("203.0.113.9"), &forwarded(&["198.51.100.1"])),
            ip("203.0.113.9")
        );
        // Through two trusted proxies; the leftmost entry is the client's lie.
        assert_eq!(
            limit.client_of(
                ip("10.0.0.1"),
                &forwarded(&["1.2.3.4, 203.0.113.9", "10.0.0.2"])
            ),
            ip("203.0.113.9")
        );
        // Ported and bracketed forms; IPv4 mapped into IPv6.
        assert_eq!(
            limit.client_of(ip("::ffff:10.0.0.1"), &forwarded(&["[2001:db8::7]:443"])),
            ip("2001:db8::7")
        );
        assert_eq!(
            limit.client_of(ip("10.0.0.1"), &forwarded(&["192.0.2.1:8080"])),
            ip("192.0.2.1")
        );
        // No header, or one that is not an address: the proxy that sent it.
        assert_eq!(
            limit.client_of(ip("10.0.0.1"), &HeaderMap::new()),
            ip("10.0.0.1")
        );
        assert_eq!(
            limit.client_of(ip("10.0.0.1"), &forwarded(&["203.0.113.9, unknown"])),
            ip("10.0.0.1")
        );
        // Every entry trusted: the last one read.
        assert_eq!(
            limit.client_of(ip("10.0.0.1"), &forwarded(&["10.0.0.2"])),
            ip("10.0.0.2")
        );
    }

    #[test]
    fn a_peer_over_its_limit_waits_one_interval_and_checking_spends_nothing() {
        let now = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let clock = std::sync::Arc::clone(&now);
        let limit = PeerLimit::new("2/min".parse().unwrap())
            .clock(move || Duration::from_secs(clock.load(std::sync::atomic::Ordering::SeqCst)));
        let peer = Some(ip("192.0.2.1"));
        for _ in 0..5 {
            assert_eq!(limit.refused(peer), None, "checking spends nothing");
        }
        limit.spend(peer);
        assert_eq!(limit.refused(peer), None);
        limit.spend(peer);
        assert_eq!(limit.refused(peer), Some(Duration::from_secs(30)));
        now.store(10, std::sync::atomic::Ordering::SeqCst);
        assert_eq!(limit.refused(peer), Some(Duration::from_secs(20)));
        now.store(30, std::sync::atomic::Ordering::SeqCst);
        assert_eq!(limit.refused(peer), None, "one more after an interval");
        limit.spend(peer);
        assert_eq!(limit.refused(peer), Some(Duration::from_secs(30)));
        // Another peer, and requests without a peer, count apart.
        assert_eq!(limit.refused(Some(ip("192.0.2.2"))), None);
        assert_eq!(limit.refused(None), None);
    }

    #[test]
    fn new_peers_share_one_count_once_the_map_is_full() {
        let limit = PeerLimit::new("1/h".parse().unwrap()).max_peers(2);
        limit.spend(Some(ip("192.0.2.1")));
        limit.spend(Some(ip("192.0.2.2")));
        assert!(limit.refused(Some(ip("192.0.2.3"))).is_none());
        limit.spend(Some(ip("192.0.2.3")));
        // The third and the fourth peer are the overflow count, spent by the third.
        assert!(limit.refused(Some(ip("192.0.2.4"))).is_some());
        assert!(limit.refused(Some(ip("192.0.2.1"))).is_some());
        assert_eq!(limit.state.lock().unwrap().len(), 3);
    }
}

//! [`MemoryQuotaStore`]: quota state in this process, counted by `governor`.

use std::collections::HashMap;
use std::fmt;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use governor::state::keyed::HashMapStateStore;

use super::Quota;
use super::store::{Admission, QuotaFuture, QuotaKey, QuotaStore, QuotaStoreError};

/// The key governor counts under: the principal and the tool.
type Key = (Box<str>, &'static str);

/// One keyed GCRA limiter per distinct quota: governor's limiter has one quota,
/// and a tool's limit differs between views and principal classes.
type Limiter = governor::RateLimiter<
    Key,
    HashMapStateStore<Key>,
    StoreClock,
    governor::middleware::NoOpMiddleware<Duration>,
>;

/// How many checks pass between two sweeps of the state that would admit a full
/// burst again (governor's `retain_recent`).
const SWEEP_EVERY: u64 = 1024;

/// How many keys the store holds before it refuses to count more.
const DEFAULT_MAX_KEYS: usize = 100_000;

/// The store's clock as governor reads it: the time since an origin of the
/// store's choosing, never going back. `Duration` is one of governor's
/// `Reference` instants.
#[derive(Clone)]
struct StoreClock(Arc<dyn Fn() -> Duration + Send + Sync>);

impl governor::clock::Clock for StoreClock {
    type Instant = Duration;

    fn now(&self) -> Duration {
        (self.0)()
    }
}

/// Quota state in this process's memory: for one process, and for tests.
///
/// Counts with GCRA as the `governor` crate implements it (one keyed limiter per
/// distinct [`Quota`], keyed by principal and tool), on the store's clock: the
/// monotonic time since the store was made, or the one [`clock`](Self::clock)
/// gives it, so tests pin time.
///
/// # Memory
///
/// Every 1,024 checks, the keys whose state would admit a full burst again are
/// dropped (governor's `retain_recent`: such a key is the same as none; governor
/// waits one more interval, `period / count`, before it drops one). A
/// quota whose state reaches [`max_keys`](Self::max_keys) keys (100,000 unless
/// set) is swept at once; should it still hold that many, the store refuses to
/// count new calls of that quota until keys expire: the calls fail closed (or
/// open, for tools declared so), rather than the map growing with every
/// principal a caller can name. The store holds at most `max_keys` keys per
/// distinct quota, and the quotas are the application's few declared values.
///
/// A fleet of replicas needs a store they share; this one is per process, so each
/// replica would allow the whole quota.
pub struct MemoryQuotaStore {
    clock: StoreClock,
    limiters: Mutex<HashMap<Quota, Arc<Limiter>>>,
    checks: AtomicU64,
    max_keys: usize,
}

impl Default for MemoryQuotaStore {
    fn default() -> Self {
        let origin = Instant::now();
        MemoryQuotaStore {
            clock: StoreClock(Arc::new(move || origin.elapsed())),
            limiters: Mutex::new(HashMap::new()),
            checks: AtomicU64::new(0),
            max_keys: DEFAULT_MAX_KEYS,
        }
    }
}

impl MemoryQuotaStore {
    /// An empty store on the monotonic clock.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads time from `clock`: the time since any fixed origin, never going
    /// back (tests pin it, and move it forward by hand).
    #[must_use]
    pub fn clock(mut self, clock: impl Fn() -> Duration + Send + Sync + 'static) -> Self {
        self.clock = StoreClock(Arc::new(clock));
        self
    }

    /// The most keys (principal and tool pairs with state) the store holds.
    #[must_use]
    pub fn max_keys(mut self, max_keys: usize) -> Self {
        self.max_keys = max_keys.max(1);
        self
    }

    /// How many keys hold state now.
    #[must_use]
    pub fn len(&self) -> usize {
        self.limiters().values().map(|limiter| limiter.len()).sum()
    }

    /// Whether no key holds state.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn limiters(&self) -> std::sync::MutexGuard<'_, HashMap<Quota, Arc<Limiter>>> {
        // A panic while the map was held left it whole (every change is one insert).
        self.limiters
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn limiter(&self, quota: Quota) -> Arc<Limiter> {
        let mut limiters = self.limiters();
        Arc::clone(limiters.entry(quota).or_insert_with(|| {
            Arc::new(governor::RateLimiter::new(
                gcra_quota(quota),
                HashMapStateStore::default(),
                self.clock.clone(),
            ))
        }))
    }

    /// Drops the keys that would admit a full burst again.
    fn sweep(&self) {
        let limiters: Vec<Arc<Limiter>> = self.limiters().values().cloned().collect();
        for limiter in limiters {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
    }

    fn check_now(&self, key: QuotaKey<'_>, quota: Quota) -> Result<Admission, QuotaStoreError> {
        let checks = self.checks.fetch_add(1, Ordering::Relaxed);
        if checks % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.sweep();
        }
        let limiter = self.limiter(quota);
        if limiter.len() >= self.max_keys {
            limiter.retain_recent();
            limiter.shrink_to_fit();
            if limiter.len() >= self.max_keys {
                return Err(QuotaStoreError::new(format!(
                    "the memory quota store holds {} keys of the quota {quota}, its bound; calls are not counted until keys expire",
                    self.max_keys
                )));
            }
        }
        let key: Key = (key.principal.into(), key.tool);
        match limiter.check_key(&key) {
            Ok(()) => Ok(Admission::Admitted),
            Err(not_until) => Ok(Admission::Refused {
                retry_after: not_until.wait_time_from(governor::clock::Clock::now(&self.clock)),
            }),
        }
    }
}

/// `count` calls per `period` as governor's quota: a burst of `count`, one cell
/// back every `period / count` (at least a nanosecond, governor's resolution).
fn gcra_quota(quota: Quota) -> governor::Quota {
    let burst = NonZeroU32::new(quota.count()).unwrap_or(NonZeroU32::MIN);
    let interval = (quota.per() / quota.count().max(1)).max(Duration::from_nanos(1));
    governor::Quota::with_period(interval)
        .unwrap_or_else(|| governor::Quota::per_second(NonZeroU32::MAX))
        .allow_burst(burst)
}

impl QuotaStore for MemoryQuotaStore {
    fn check<'a>(&'a self, key: QuotaKey<'a>, quota: Quota) -> QuotaFuture<'a, Admission> {
        Box::pin(std::future::ready(self.check_now(key, quota)))
    }
}

impl fmt::Debug for MemoryQuotaStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryQuotaStore")
            .field("keys", &self.len())
            .field("max_keys", &self.max_keys)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    use super::{Admission, MemoryQuotaStore, QuotaKey, QuotaStore};

    fn pinned() -> (MemoryQuotaStore, Arc<AtomicU64>) {
        let millis = Arc::new(AtomicU64::new(1_000_000));
        let clock = Arc::clone(&millis);
        let store = MemoryQuotaStore::new()
            .clock(move || Duration::from_millis(clock.load(Ordering::SeqCst)));
        (store, millis)
    }

    fn check(store: &MemoryQuotaStore, principal: &str, quota: &str) -> Admission {
        let key = QuotaKey {
            principal,
            tool: "create_transfers",
        };
        futures_executor::block_on(store.check(key, quota.parse().unwrap())).unwrap()
    }

    #[test]
    fn a_refused_check_spends_nothing_and_time_gives_calls_back() {
        let (store, millis) = pinned();
        for _ in 0..3 {
            assert_eq!(check(&store, "ann", "3/min"), Admission::Admitted);
        }
        let refused = Admission::Refused {
            retry_after: Duration::from_secs(20),
        };
        // Refused again and again, the wait stays: nothing was spent.
        assert_eq!(check(&store, "ann", "3/min"), refused);
        assert_eq!(check(&store, "ann", "3/min"), refused);
        millis.fetch_add(19_000, Ordering::SeqCst);
        assert_eq!(
            check(&store, "ann", "3/min"),
            Admission::Refused {
                retry_after: Duration::from_secs(1)
            }
        );
        millis.fetch_add(1_000, Ordering::SeqCst);
        assert_eq!(check(&store, "ann", "3/min"), Admission::Admitted);
        assert_eq!(check(&store, "ann", "3/min"), refused);
    }

    #[test]
    fn keys_that_would_admit_a_full_burst_are_dropped_and_the_bound_holds() {
        let (store, millis) = pinned();
        let store = store.max_keys(10);
        for principal in 0..10 {
            assert_eq!(
                check(&store, &principal.to_string(), "1/s"),
                Admission::Admitted
            );
        }
        assert_eq!(store.len(), 10);
        // At the bound: the next check sweeps, finds every key still spent, and
        // refuses to count rather than grow.
        let error = futures_executor::block_on(store.check(
            QuotaKey {
                principal: "eleventh",
                tool: "create_transfers",
            },
            "1/s".parse().unwrap(),
        ))
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "the memory quota store holds 10 keys of the quota 1/s, its bound; calls are not counted until keys expire"
        );
        // Every key admits a full burst again a second later; governor drops such
        // a key once one more interval has passed.
        millis.fetch_add(2_000, Ordering::SeqCst);
        assert_eq!(check(&store, "eleventh", "1/s"), Admission::Admitted);
        assert_eq!(store.len(), 1);
    }
}

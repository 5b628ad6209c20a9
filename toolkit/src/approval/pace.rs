//! How often a process purges what a store no longer needs.

use std::sync::atomic::{AtomicI64, Ordering};

/// The least time (seconds) between two purges by one process.
const PURGE_EVERY: i64 = 60;

/// The pace of one process's purges of a table: at most one a minute, on the
/// process's clock (only the pace depends on it, never what is purged, which the
/// purge's own statement decides on the store's clock). Of several tasks asking
/// at once, one is told to purge.
#[derive(Debug, Default)]
pub(super) struct PurgePace {
    /// When this process last purged (Unix seconds).
    last: AtomicI64,
}

impl PurgePace {
    /// Whether to purge now: a minute has passed since the last purge, and this
    /// caller won the turn.
    pub(super) fn due(&self) -> bool {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| {
                i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
            });
        let last = self.last.load(Ordering::Relaxed);
        now.saturating_sub(last) >= PURGE_EVERY
            && self
                .last
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_purge_a_minute() {
        let pace = PurgePace::default();
        assert!(pace.due(), "the first is due");
        assert!(!pace.due(), "not again within the minute");
        pace.last.fetch_sub(PURGE_EVERY, Ordering::Relaxed);
        assert!(pace.due(), "due again a minute later");
    }
}

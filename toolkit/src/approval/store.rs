//! Where used approvals are recorded, so an approved call runs once.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

/// The future an [`ApprovalStore`] returns.
pub type StoreFuture<'a> = Pin<Box<dyn Future<Output = Result<bool, StoreError>> + Send + 'a>>;

/// Records which approvals were used. Shared by every process that resumes
/// approvals, so that one approval runs its call exactly once even when two
/// processes race to resume it.
///
/// `claim` must be atomic: of any number of concurrent claims of one key, exactly one
/// returns `Ok(true)`.
pub trait ApprovalStore: Send + Sync {
    /// Marks `key` used and returns `Ok(true)`, or returns `Ok(false)` if it already
    /// was. `expires_at` (Unix seconds) is when the approval stops being valid
    /// anyway, after which the record may be dropped; `now` is the caller's clock.
    fn claim<'a>(&'a self, key: &'a str, expires_at: u64, now: u64) -> StoreFuture<'a>;
}

/// Records are kept this long past their approval's expiry, so that clocks a little
/// apart between processes never make a used approval look new.
pub(crate) const GRACE_SECONDS: u64 = 60 * 60;

/// The store could not record or read a claim; the call did not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError {
    /// What failed.
    pub message: String,
}

impl StoreError {
    /// A store error saying `message`.
    pub fn new(message: impl fmt::Display) -> Self {
        StoreError {
            message: message.to_string(),
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StoreError {}

/// Used approvals in this process's memory: enough for one process; several
/// processes need a shared store (`SqliteApprovalStore`, feature `sqlite`).
#[derive(Debug, Default)]
pub struct MemoryApprovalStore {
    used: Mutex<HashMap<String, u64>>,
}

impl MemoryApprovalStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// How many used approvals are recorded.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether none is.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, u64>> {
        self.used
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl ApprovalStore for MemoryApprovalStore {
    fn claim<'a>(&'a self, key: &'a str, expires_at: u64, now: u64) -> StoreFuture<'a> {
        let mut used = self.lock();
        used.retain(|_, &mut expiry| expiry.saturating_add(GRACE_SECONDS) >= now);
        let claimed = if used.contains_key(key) {
            false
        } else {
            used.insert(key.to_owned(), expires_at);
            true
        };
        Box::pin(std::future::ready(Ok(claimed)))
    }
}

//! The seam where quota state is kept: [`QuotaStore`], and what it answers.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use super::Quota;
use super::limit::Gcra;

/// The future a [`QuotaStore`] returns.
pub type QuotaFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, QuotaStoreError>> + Send + 'a>>;

/// Whose calls of which tool a check counts: the principal (the view's) and the
/// tool's registered name (never an alias, so every spelling shares one count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QuotaKey<'a> {
    /// The principal the view acts for.
    pub principal: &'a str,
    /// The tool's name.
    pub tool: &'static str,
}

/// What a [`QuotaStore`] says of one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// The call is counted and may run.
    Admitted,
    /// The call is over the quota and was not counted; the earliest time another
    /// call would be admitted is `retry_after` from now (store time).
    Refused {
        /// How long to wait.
        retry_after: Duration,
    },
}

/// Where quota state lives: counted per principal and tool, on the store's own
/// clock, so that processes sharing a store share the counts and agree on time.
///
/// [`MemoryQuotaStore`](super::MemoryQuotaStore) keeps them in this process; a
/// store over a database (the approval store's, so a fleet of replicas shares
/// one count) implements the same one method, reading the database's `now()`.
///
/// # Contract
///
/// - A check that admits counts the call, atomically with the test (two checks at
///   once never both take the last call).
/// - A check that refuses counts nothing: a refused caller spends nothing, and
///   is told how long until a call would be admitted.
/// - Time is the store's; the caller passes none.
/// - The store bounds its own size: state of a key that would admit a full burst
///   again is indistinguishable from none, and may be dropped.
pub trait QuotaStore: Send + Sync {
    /// Counts one call of `key` against `quota`, or refuses it.
    fn check<'a>(&'a self, key: QuotaKey<'a>, quota: Quota) -> QuotaFuture<'a, Admission>;
}

/// A store shared by reference: several [`Quotas`](super::Quotas) (one per
/// configuration, say) counting in one store.
impl<S: QuotaStore + ?Sized> QuotaStore for &S {
    fn check<'a>(&'a self, key: QuotaKey<'a>, quota: Quota) -> QuotaFuture<'a, Admission> {
        (**self).check(key, quota)
    }
}

/// A store shared by an [`Arc`](std::sync::Arc).
impl<S: QuotaStore + ?Sized> QuotaStore for std::sync::Arc<S> {
    fn check<'a>(&'a self, key: QuotaKey<'a>, quota: Quota) -> QuotaFuture<'a, Admission> {
        (**self).check(key, quota)
    }
}

/// A quota store that could not answer: the caller fails closed (the call is
/// refused) unless the tool was declared to fail open
/// ([`QuotasBuilder::fail_open`](super::QuotasBuilder::fail_open)).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct QuotaStoreError {
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl QuotaStoreError {
    /// A failure described by `message`.
    pub fn new(message: impl Into<String>) -> Self {
        QuotaStoreError {
            message: message.into(),
            source: None,
        }
    }

    /// A failure caused by `source` (the driver's error), kept as the cause.
    pub fn with_source(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        QuotaStoreError {
            message: message.into(),
            source: Some(Box::new(source)),
        }
    }
}

/// What a database store's GCRA statement answered for `key`: its verdict
/// (`admitted`, `refused`, `reset` when the stored time was further ahead than a
/// clock that never goes back leaves it, `corrupt` when it was not a time) and how
/// far ahead of the statement's time the key's TAT now is (nanoseconds).
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn admission_of(
    verdict: &str,
    ahead: i64,
    gcra: Gcra,
    key: QuotaKey<'_>,
    quota: Quota,
) -> Result<Admission, QuotaStoreError> {
    // A refused key's TAT is more than τ ahead; at least a nanosecond's wait.
    let wait = || Duration::from_nanos(u64::try_from(ahead - gcra.tolerance).unwrap_or(0).max(1));
    match verdict {
        "admitted" => Ok(Admission::Admitted),
        "refused" => Ok(Admission::Refused {
            retry_after: wait(),
        }),
        "reset" => {
            tracing::warn!(
                toolkit.quota.tool = key.tool,
                toolkit.quota.limit = %quota,
                "the quota state of a key was further ahead than its period allows: the store's clock went back, or the row was written wrongly; it counts as spent in full now"
            );
            Ok(Admission::Refused {
                retry_after: wait(),
            })
        }
        "corrupt" => Err(QuotaStoreError::new(format!(
            "the quota state of `{}` for `{}` was corrupt (not a time); it was reset to a quota spent in full, and this call was not counted",
            crate::echo::echo(key.principal),
            key.tool
        ))),
        other => Err(QuotaStoreError::new(format!(
            "the quota store answered an unknown verdict `{}` for `{}`",
            crate::echo::echo(other),
            key.tool
        ))),
    }
}

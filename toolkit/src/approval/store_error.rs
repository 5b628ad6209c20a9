//! Why the approval store could not record or read: typed, with the driver's
//! error as the cause.

use std::error::Error;
use std::fmt;
use std::sync::Arc;

/// The store could not record or read. What it means for a call depends on where
/// it failed: before a claim, nothing ran; after a run, its end may not be
/// recorded (the claim is won again once its lease ends); reading a call's state,
/// what became of it is not known. A failure of kind `Unavailable`, `Timeout` or
/// `Conflict` is worth retrying.
///
/// Its [`kind`](StoreError::kind) says what went wrong in terms an application acts
/// on (try again, fix the set-up, look at the data); its
/// [`source`](std::error::Error::source) is the driver's own error when there is one
/// (a `rusqlite::Error`, a `tokio_postgres::Error`, a `deadpool_postgres::PoolError`,
/// a `serde_json::Error` for a stored value that does not parse), to downcast. Its
/// message already carries the cause's words on one line, so a log that prints only
/// the message loses nothing.
///
/// Two store errors are equal when they are of the same kind and say the same
/// thing; their causes are not compared.
///
/// ```
/// use toolkit::approval::{StoreError, StoreErrorKind};
///
/// let cause = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
/// let error = StoreError::new("the ledger database is away")
///     .with_kind(StoreErrorKind::Unavailable)
///     .caused_by(cause);
/// assert_eq!(error.to_string(), "the ledger database is away");
/// assert_eq!(error.kind(), StoreErrorKind::Unavailable);
/// let source = std::error::Error::source(&error).expect("its cause");
/// assert!(source.downcast_ref::<std::io::Error>().is_some());
/// ```
#[derive(Clone, Debug)]
pub struct StoreError {
    kind: StoreErrorKind,
    message: String,
    // An `Arc` so the error stays `Clone` (an `ApprovalError` is); `source()` hands
    // out what it points to, so the driver's error downcasts to its own type.
    source: Option<Arc<dyn Error + Send + Sync + 'static>>,
}

/// What kind of failure a [`StoreError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StoreErrorKind {
    /// The database could not be reached: the connection was refused or lost, the
    /// server is shutting down or starting, the file could not be opened. Try
    /// again.
    Unavailable,
    /// No answer in time: the database is stalled or busy (the `PostgreSQL`
    /// store's wait, its pool's, `SQLite`'s busy timeout). Try again.
    Timeout,
    /// The statement collided with another transaction (a serialization failure,
    /// a deadlock, a key taken meanwhile). Trying again may succeed.
    Conflict,
    /// A stored record cannot be read back: a value this build does not know (a
    /// verdict), arguments that are not JSON, a column of another type, a damaged
    /// database file. Trying again does not help.
    Corrupt,
    /// The database is not set up as this build needs: an address that does not
    /// parse, tables newer than this build, a table missing, a permission refused,
    /// a read-only file. Trying again does not help.
    Misconfigured,
    /// The query asks for more than a store answers (too many principals or tools
    /// to filter by). Trying again does not help.
    InvalidQuery,
    /// Anything else: the database refused the statement for another reason, or a
    /// store said no more than its message ([`StoreError::new`]).
    Other,
}

impl StoreError {
    /// A store error saying `message`, of kind [`StoreErrorKind::Other`] and
    /// without a cause; [`with_kind`](Self::with_kind) and
    /// [`caused_by`](Self::caused_by) add them.
    pub fn new(message: impl fmt::Display) -> Self {
        StoreError {
            kind: StoreErrorKind::Other,
            message: message.to_string(),
            source: None,
        }
    }

    /// This error, of kind `kind`.
    #[must_use]
    pub fn with_kind(mut self, kind: StoreErrorKind) -> Self {
        self.kind = kind;
        self
    }

    /// This error, caused by `source` (the driver's error): what
    /// [`source`](std::error::Error::source) returns. The message is not changed.
    #[must_use]
    pub fn caused_by(mut self, source: impl Error + Send + Sync + 'static) -> Self {
        self.source = Some(Arc::new(source));
        self
    }

    /// What kind of failure this is.
    #[must_use]
    pub fn kind(&self) -> StoreErrorKind {
        self.kind
    }

    /// What failed, in words (what [`Display`](fmt::Display) writes).
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

// By hand rather than derived: thiserror would hand out the `Arc` itself, which
// does not downcast to the driver's error type.
impl Error for StoreError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source
            .as_deref()
            .map(|source| source as &(dyn Error + 'static))
    }
}

impl PartialEq for StoreError {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.message == other.message
    }
}

impl Eq for StoreError {}

/// A quota check that failed in the approval store's database: the call fails
/// closed (or open, for the `auto` tools declared so), and the store's error is
/// the cause.
impl From<StoreError> for crate::quota::QuotaStoreError {
    fn from(error: StoreError) -> Self {
        crate::quota::QuotaStoreError::with_source(
            format!("the quota store failed: {error}"),
            error,
        )
    }
}

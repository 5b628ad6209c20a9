//! Used approvals in a `SQLite` file, shared by every process that opens it.

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rusqlite::{Connection, params};

use super::store::{ApprovalStore, GRACE_SECONDS, StoreError, StoreFuture};

/// How long a store waits for another process holding the database.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Used approvals in a `SQLite` database (feature `sqlite`; `SQLite` is compiled in).
/// Processes that open the same file share it: a claim is one `INSERT` on a primary
/// key, so of two processes resuming one approval exactly one runs the call.
///
/// ```no_run
/// # #[cfg(feature = "sqlite")] {
/// use toolkit::approval::{ApprovalKey, Approvals, SqliteApprovalStore};
///
/// let store = SqliteApprovalStore::open("/var/lib/app/approvals.sqlite3")?;
/// let approvals = Approvals::new(ApprovalKey::new(std::env::var("APPROVAL_KEY")?), store);
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct SqliteApprovalStore {
    connection: Mutex<Connection>,
}

impl SqliteApprovalStore {
    /// Opens (or creates) the database at `path` and its table
    /// `toolkit_used_approvals`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        Self::from_connection(Connection::open(path).map_err(StoreError::new)?)
    }

    /// Uses an open connection (an in-memory database in tests, say).
    pub fn from_connection(connection: Connection) -> Result<Self, StoreError> {
        // Concurrent writers wait for each other instead of failing at once.
        connection
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(StoreError::new)?;
        // Two processes creating the same new file race for the switch to WAL and
        // the table; `SQLite` answers "busy" at once where waiting could deadlock,
        // without the busy handler, so the set-up is tried again for as long.
        let deadline = Instant::now() + BUSY_TIMEOUT;
        loop {
            match connection.execute_batch(
                "PRAGMA journal_mode = WAL;
                 CREATE TABLE IF NOT EXISTS toolkit_used_approvals (
                     key TEXT PRIMARY KEY NOT NULL,
                     expires_at INTEGER NOT NULL
                 );",
            ) {
                Ok(()) => break,
                Err(rusqlite::Error::SqliteFailure(error, _))
                    if matches!(
                        error.code,
                        rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                    ) && Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(error) => return Err(StoreError::new(error)),
            }
        }
        Ok(SqliteApprovalStore {
            connection: Mutex::new(connection),
        })
    }

    fn claim_now(&self, key: &str, expires_at: u64, now: u64) -> Result<bool, StoreError> {
        let connection = self
            .connection
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let expires_at = i64::try_from(expires_at).unwrap_or(i64::MAX);
        let forget_before = i64::try_from(now.saturating_sub(GRACE_SECONDS)).unwrap_or(i64::MAX);
        connection
            .execute(
                "DELETE FROM toolkit_used_approvals WHERE expires_at < ?1",
                params![forget_before],
            )
            .map_err(StoreError::new)?;
        let inserted = connection
            .execute(
                "INSERT INTO toolkit_used_approvals (key, expires_at) VALUES (?1, ?2)
                 ON CONFLICT (key) DO NOTHING",
                params![key, expires_at],
            )
            .map_err(StoreError::new)?;
        Ok(inserted == 1)
    }
}

impl ApprovalStore for SqliteApprovalStore {
    fn claim<'a>(&'a self, key: &'a str, expires_at: u64, now: u64) -> StoreFuture<'a> {
        Box::pin(std::future::ready(self.claim_now(key, expires_at, now)))
    }
}

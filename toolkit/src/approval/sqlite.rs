//! The life of approvals in a `SQLite` file, shared by every process that opens it.

use std::fmt::Write as _;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use super::store::{
    ApprovalStore, CLOCK_SKEW_SECONDS, CUT_ARGUMENTS_START_CHARS, Claim, DecisionOutcome,
    DecisionQuery, DecisionRecord, ListedPending, MAX_QUERY_LIMIT, PendingCaps, PendingQuery,
    RefusalRecord, RunRecord, SavedPending, StoreClock, StoreFuture, system_clock,
};
use super::store_error::{StoreError, StoreErrorKind};
use super::{PendingApproval, RunOutcome, Verdict};
use crate::principal::Principal;

mod quota;

pub use quota::SqliteQuotaStore;

/// How long a store waits for another process holding the database.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The schema, one entry per version (`PRAGMA user_version` says which ran).
const MIGRATIONS: [&str; 11] = [
    "CREATE TABLE IF NOT EXISTS toolkit_used_approvals (
         key TEXT PRIMARY KEY NOT NULL,
         expires_at INTEGER NOT NULL
     );",
    // `expires_at` of a used approval now means "kept until".
    "CREATE TABLE toolkit_pending_approvals (
         principal TEXT NOT NULL,
         call_id TEXT NOT NULL,
         tool TEXT NOT NULL,
         arguments TEXT NOT NULL,
         digest TEXT NOT NULL,
         requested_at INTEGER NOT NULL,
         expires_at INTEGER NOT NULL,
         signature TEXT NOT NULL,
         keep_until INTEGER NOT NULL,
         PRIMARY KEY (principal, call_id)
     );
     CREATE INDEX toolkit_pending_approvals_requested ON toolkit_pending_approvals (requested_at);
     CREATE TABLE toolkit_approval_decisions (
         principal TEXT NOT NULL,
         call_id TEXT NOT NULL,
         tool TEXT NOT NULL,
         verdict TEXT NOT NULL,
         digest TEXT NOT NULL,
         message TEXT,
         decided_by TEXT NOT NULL,
         decided_at INTEGER NOT NULL,
         keep_until INTEGER NOT NULL,
         PRIMARY KEY (principal, call_id)
     );
     CREATE INDEX toolkit_approval_decisions_decided ON toolkit_approval_decisions (decided_at);",
    // The label of the view a pending approval was asked through (NULL: none).
    "ALTER TABLE toolkit_pending_approvals ADD COLUMN view TEXT;",
    // Claims with a lease and an outcome; a claim made before counts as done.
    "ALTER TABLE toolkit_used_approvals ADD COLUMN done INTEGER NOT NULL DEFAULT 1;
     ALTER TABLE toolkit_used_approvals ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
     ALTER TABLE toolkit_used_approvals ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1;",
    // The edited arguments of an approval with edits (NULL: none, or decided before).
    "ALTER TABLE toolkit_approval_decisions ADD COLUMN arguments TEXT;",
    // The outcome of a run (JSON; NULL while its first attempt runs) and when it
    // ended, whether a decided call's run is settled, and the decisions the policy
    // refused.
    "ALTER TABLE toolkit_used_approvals ADD COLUMN outcome TEXT;
     ALTER TABLE toolkit_used_approvals ADD COLUMN ended_at INTEGER;
     ALTER TABLE toolkit_approval_decisions ADD COLUMN settled INTEGER NOT NULL DEFAULT 0;
     CREATE INDEX toolkit_approval_decisions_unsettled
         ON toolkit_approval_decisions (settled, decided_at);
     CREATE TABLE toolkit_approval_refusals (
         principal TEXT NOT NULL,
         call_id TEXT NOT NULL,
         tool TEXT NOT NULL,
         decided_by TEXT NOT NULL,
         reason TEXT NOT NULL,
         refused_at INTEGER NOT NULL,
         keep_until INTEGER NOT NULL
     );
     CREATE INDEX toolkit_approval_refusals_refused ON toolkit_approval_refusals (refused_at);",
    // A claim completed before outcomes were kept ran (or counted as done because it
    // was made before leases): without an outcome it would read as approved and
    // not run yet. It ran, and what it returned was not kept.
    "UPDATE toolkit_used_approvals
         SET outcome = '{\"status\":\"ran\",\"result\":null,\"bytes\":0}'
         WHERE done AND outcome IS NULL;",
    // Principals typed: free strings become `toolkit:legacy` principals.
    super::legacy::PRINCIPALS_TYPED,
    // Quota state (`SqliteQuotaStore`): per principal and tool, GCRA's theoretical
    // arrival time of the next call, and the time and verdict of the last check
    // (nanoseconds since the Unix epoch).
    "CREATE TABLE IF NOT EXISTS toolkit_quota_state (
         principal TEXT NOT NULL,
         tool TEXT NOT NULL,
         tat INTEGER NOT NULL,
         checked_at INTEGER NOT NULL,
         verdict TEXT NOT NULL,
         PRIMARY KEY (principal, tool)
     );",
    // The runs not complete, by lease: a runner lists those whose lease ended
    // (`lapsed_claims`) without reading the completed ones.
    "CREATE INDEX IF NOT EXISTS toolkit_used_approvals_lapsed ON toolkit_used_approvals (done, lease_until);",
    // Deciders typed: old calls' free-string deciders become `toolkit:legacy` ones.
    super::legacy::DECIDERS_TYPED,
];

/// The life of approvals in a `SQLite` database (feature `sqlite`; `SQLite` is
/// compiled in). Processes that open the same file share it: a decision and a claim
/// are each one `INSERT` on a primary key, so of two processes deciding or resuming
/// one approval exactly one wins. Its clock is the process's (one host, one clock);
/// the tables are created and migrated on open (versioned with `user_version`).
///
/// The statements run on a thread of the store's own, never on the caller's: a
/// database another process holds (a second replica writing, a backup, a
/// migration) makes the store's futures wait, up to the busy timeout (10 s), while
/// the executor goes on serving everything else. A future dropped before its
/// statement started (a cancelled request) never runs it.
///
/// ```no_run
/// # #[cfg(feature = "sqlite")] {
/// use toolkit::approval::{ApprovalKey, Approvals, SqliteApprovalStore};
///
/// let store = SqliteApprovalStore::open("/var/lib/app/approvals.sqlite3")?;
/// let approvals = Approvals::new(ApprovalKey::new(std::env::var("APPROVAL_KEY")?)?, store);
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SqliteApprovalStore {
    // The connection lives on a thread of its own, which runs the statements one
    // at a time: a statement waits (up to the busy timeout) while another process
    // holds the database, and that wait must not stop the async workers that serve
    // every other request. Dropping the store ends the thread.
    jobs: mpsc::Sender<Job>,
    clock: StoreClock,
}

/// A statement for the connection's thread.
type Job = Box<dyn FnOnce(&mut Connection) + Send>;

impl std::fmt::Debug for SqliteApprovalStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteApprovalStore")
            .finish_non_exhaustive()
    }
}

/// The connection's thread is gone (a statement panicked past its guard, or the
/// process is going down).
fn stopped() -> StoreError {
    StoreError::new("the SQLite connection's thread stopped before answering")
        .with_kind(StoreErrorKind::Unavailable)
}

fn to_sql(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn from_sql(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(error, rusqlite::Error::SqliteFailure(error, _)
    if matches!(
        error.code,
        rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
    ))
}

/// A store error saying what `SQLite` said, of the kind its result code names,
/// with `rusqlite`'s error as the cause.
fn store_error(error: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode;
    let kind = match &error {
        rusqlite::Error::SqliteFailure(failure, _) => match failure.code {
            // Still busy once the busy timeout has been waited out.
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => StoreErrorKind::Timeout,
            ErrorCode::CannotOpen
            | ErrorCode::SystemIoFailure
            | ErrorCode::DiskFull
            | ErrorCode::FileLockingProtocolFailed => StoreErrorKind::Unavailable,
            ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => StoreErrorKind::Corrupt,
            ErrorCode::ConstraintViolation => StoreErrorKind::Conflict,
            ErrorCode::PermissionDenied
            | ErrorCode::ReadOnly
            | ErrorCode::AuthorizationForStatementDenied => StoreErrorKind::Misconfigured,
            _ => StoreErrorKind::Other,
        },
        // A column that does not hold what this build wrote there.
        rusqlite::Error::FromSqlConversionFailure(..)
        | rusqlite::Error::InvalidColumnType(..)
        | rusqlite::Error::IntegralValueOutOfRange(..)
        | rusqlite::Error::Utf8Error(..) => StoreErrorKind::Corrupt,
        _ => StoreErrorKind::Other,
    };
    StoreError::new(&error).with_kind(kind).caused_by(error)
}

impl SqliteApprovalStore {
    /// Opens (or creates) the database at `path` and its tables.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        Self::from_connection(Connection::open(path).map_err(store_error)?)
    }

    /// Uses an open connection (an in-memory database in tests, say).
    pub fn from_connection(mut connection: Connection) -> Result<Self, StoreError> {
        // Concurrent writers wait for each other instead of failing at once.
        connection.busy_timeout(BUSY_TIMEOUT).map_err(store_error)?;
        // Two processes creating the same new file race for the switch to WAL and
        // the tables; `SQLite` answers "busy" at once where waiting could deadlock,
        // without the busy handler, so the set-up is tried again for as long.
        let deadline = Instant::now() + BUSY_TIMEOUT;
        loop {
            match migrate(&mut connection) {
                Ok(()) => break,
                Err(error) if is_busy(&error) && Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(error) => return Err(store_error(error)),
            }
        }
        let (jobs, queue) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("toolkit-sqlite".to_owned())
            .spawn(move || {
                for job in queue {
                    // A statement that panics fails its own caller (its answer is
                    // dropped), not every later one.
                    let _ = std::panic::catch_unwind(AssertUnwindSafe(|| job(&mut connection)));
                }
            })
            .map_err(|error| {
                StoreError::new(format_args!(
                    "the SQLite connection's thread could not start: {error}"
                ))
                .with_kind(StoreErrorKind::Unavailable)
                .caused_by(error)
            })?;
        Ok(SqliteApprovalStore {
            jobs,
            clock: system_clock(),
        })
    }

    /// Reads the time (Unix seconds) from `clock` instead of the process's clock
    /// (tests move time with it).
    #[must_use]
    pub fn clock(mut self, clock: impl Fn() -> u64 + Send + Sync + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Runs `run` on the connection's thread, with the store's time when it
    /// starts; the future answers when it is done. Dropped before then, the
    /// statement does not start.
    fn with<T: Send + 'static>(
        &self,
        run: impl FnOnce(&Connection, u64) -> rusqlite::Result<T> + Send + 'static,
    ) -> StoreFuture<'static, T> {
        let (answer, answered) = futures_channel::oneshot::channel();
        let clock = Arc::clone(&self.clock);
        let job: Job = Box::new(move |connection| {
            if answer.is_canceled() {
                return;
            }
            let _ = answer.send(run(connection, clock()).map_err(store_error));
        });
        if self.jobs.send(job).is_err() {
            return Box::pin(std::future::ready(Err(stopped())));
        }
        Box::pin(async move { answered.await.unwrap_or_else(|_| Err(stopped())) })
    }
}

/// Runs the migrations this file has not seen, in one immediate transaction, so
/// that processes opening it together run each once.
fn migrate(connection: &mut Connection) -> rusqlite::Result<()> {
    connection.pragma_update(None, "journal_mode", "WAL")?;
    let transaction =
        connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let version: i64 = transaction.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    let start = usize::try_from(version).unwrap_or(0);
    for migration in MIGRATIONS.iter().skip(start) {
        transaction.execute_batch(migration)?;
    }
    transaction.pragma_update(None, "user_version", MIGRATIONS.len())?;
    transaction.commit()
}

fn purge_at(connection: &Connection, now: u64) -> rusqlite::Result<u64> {
    let now = to_sql(now);
    let mut purged = 0;
    for table in [
        "DELETE FROM toolkit_used_approvals WHERE expires_at < ?1",
        "DELETE FROM toolkit_pending_approvals WHERE keep_until < ?1",
        "DELETE FROM toolkit_approval_decisions WHERE keep_until < ?1",
        "DELETE FROM toolkit_approval_refusals WHERE keep_until < ?1",
    ] {
        purged += connection.execute(table, params![now])?;
    }
    Ok(purged as u64)
}

/// Inserts `pending` unless one with its principal and call id is stored;
/// whether it did.
fn insert_pending(connection: &Connection, pending: &PendingApproval) -> rusqlite::Result<bool> {
    let inserted = connection.execute(
        "INSERT INTO toolkit_pending_approvals (principal, call_id, tool, arguments,
             digest, requested_at, expires_at, signature, keep_until, view)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
         ON CONFLICT (principal, call_id) DO NOTHING",
        params![
            pending.principal,
            pending.call_id,
            pending.tool,
            pending.arguments.to_string(),
            pending.digest,
            to_sql(pending.requested_at),
            to_sql(pending.expires_at),
            pending.signature,
            to_sql(pending.expires_at.saturating_add(CLOCK_SKEW_SECONDS)),
            pending.view,
        ],
    )?;
    Ok(inserted == 1)
}

fn decision_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<DecisionRecord> {
    decision_from_row_at(row, 0)
}

/// A decision from the row's columns `at`, `at + 1`, ... (principal, call id, tool,
/// verdict, digest, message, decided by, decided at, arguments).
fn decision_from_row_at(row: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<DecisionRecord> {
    let verdict: String = row.get(at + 3)?;
    Ok(DecisionRecord {
        principal: row.get(at)?,
        call_id: row.get(at + 1)?,
        tool: row.get(at + 2)?,
        verdict: Verdict::from_name(&verdict).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                at + 3,
                rusqlite::types::Type::Text,
                format!("unknown verdict `{verdict}`").into(),
            )
        })?,
        digest: row.get(at + 4)?,
        message: row.get(at + 5)?,
        decided_by: row.get(at + 6)?,
        decided_at: from_sql(row.get(at + 7)?),
        arguments: row
            .get::<_, Option<String>>(at + 8)?
            .map(|arguments| {
                serde_json::from_str(&arguments).map_err(|error| {
                    rusqlite::Error::FromSqlConversionFailure(
                        at + 8,
                        rusqlite::types::Type::Text,
                        error.into(),
                    )
                })
            })
            .transpose()?,
    })
}

/// The decision on `call_id` of `principal`, if one is recorded.
fn decision_of(
    connection: &Connection,
    principal: &Principal,
    call_id: &str,
) -> rusqlite::Result<Option<DecisionRecord>> {
    connection
        .query_row(
            "SELECT principal, call_id, tool, verdict, digest, message, decided_by,
                    decided_at, arguments
             FROM toolkit_approval_decisions WHERE principal = ?1 AND call_id = ?2",
            params![principal, call_id],
            decision_from_row,
        )
        .optional()
}

fn pending_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<PendingApproval> {
    pending_from_row_at(row, 0)
}

/// A pending approval from the row's columns `at`, `at + 1`, ... (principal, call
/// id, tool, arguments, digest, requested at, expires at, signature, view).
fn pending_from_row_at(row: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<PendingApproval> {
    let arguments: String = row.get(at + 3)?;
    Ok(PendingApproval {
        principal: row.get(at)?,
        call_id: row.get(at + 1)?,
        tool: row.get(at + 2)?,
        arguments: serde_json::from_str(&arguments).map_err(|error| {
            rusqlite::Error::FromSqlConversionFailure(
                at + 3,
                rusqlite::types::Type::Text,
                error.into(),
            )
        })?,
        digest: row.get(at + 4)?,
        requested_at: from_sql(row.get(at + 5)?),
        expires_at: from_sql(row.get(at + 6)?),
        signature: row.get(at + 7)?,
        view: row.get(at + 8)?,
    })
}

/// The statement listing undecided, unexpired pending approvals that pass
/// `query`, newest first, at most `limit`: principal, call id and tool, then
/// `columns` (bound first with `column_values`).
fn pending_list(
    columns: &str,
    column_values: Vec<rusqlite::types::Value>,
    query: &PendingQuery,
    now: u64,
    limit: usize,
) -> (String, Vec<rusqlite::types::Value>) {
    let mut sql = format!(
        "SELECT p.principal, p.call_id, p.tool, {columns}
         FROM toolkit_pending_approvals p
         WHERE p.expires_at >= ?
           AND NOT EXISTS (SELECT 1 FROM toolkit_approval_decisions d
                           WHERE d.principal = p.principal AND d.call_id = p.call_id)"
    );
    let mut bound = column_values;
    bound.push(rusqlite::types::Value::Integer(to_sql(now)));
    Filters {
        principal: "p.principal",
        tool: "p.tool",
        time: "p.requested_at",
        principals: &query.principals,
        tools: &query.tools,
        after: query.requested_after,
        before: query.requested_before,
    }
    .push(&mut sql, &mut bound);
    if let Some(cursor) = &query.before {
        sql.push_str(" AND (p.requested_at, p.principal, p.call_id) < (?, ?, ?)");
        bound.push(rusqlite::types::Value::Integer(to_sql(cursor.requested_at)));
        bound.push(rusqlite::types::Value::Text(
            cursor.principal.key().to_owned(),
        ));
        bound.push(rusqlite::types::Value::Text(cursor.call_id.clone()));
    }
    sql.push_str(" ORDER BY p.requested_at DESC, p.principal DESC, p.call_id DESC LIMIT ?");
    bound.push(rusqlite::types::Value::Integer(to_sql(limit as u64)));
    (sql, bound)
}

/// The filters every list of the store shares, as `AND ...` conditions: any of
/// the principals, any of the tools (none listed: all), and a time window
/// (`after` included, `before` not) on one column.
struct Filters<'q> {
    principal: &'static str,
    tool: &'static str,
    time: &'static str,
    principals: &'q [Principal],
    tools: &'q [String],
    after: Option<u64>,
    before: Option<u64>,
}

impl<'q> Filters<'q> {
    /// A [`DecisionQuery`]'s filters on a table of decisions or refusals, its
    /// window on `time`.
    fn of_decisions(query: &'q DecisionQuery, time: &'static str) -> Self {
        Filters {
            principal: "principal",
            tool: "tool",
            time,
            principals: &query.principals,
            tools: &query.tools,
            after: query.decided_after,
            before: query.decided_before,
        }
    }

    /// Appends the conditions to `sql` and their values to `bound`.
    fn push(&self, sql: &mut String, bound: &mut Vec<rusqlite::types::Value>) {
        any_of(
            self.principal,
            self.principals.iter().map(Principal::key),
            sql,
            bound,
        );
        any_of(self.tool, self.tools.iter().map(String::as_str), sql, bound);
        for (condition, value) in [(">=", self.after), ("<", self.before)] {
            if let Some(value) = value {
                // Column names are this file's constants; values are bound.
                let _ = write!(sql, " AND {} {condition} ?", self.time);
                bound.push(rusqlite::types::Value::Integer(to_sql(value)));
            }
        }
    }
}

/// `column IN (?, ?, ...)` for `values`, or nothing when there are none.
fn any_of<'v>(
    column: &str,
    values: impl ExactSizeIterator<Item = &'v str>,
    sql: &mut String,
    bound: &mut Vec<rusqlite::types::Value>,
) {
    if values.len() == 0 {
        return;
    }
    sql.push_str(" AND ");
    sql.push_str(column);
    sql.push_str(" IN (");
    for (i, value) in values.enumerate() {
        if i > 0 {
            sql.push(',');
        }
        sql.push('?');
        bound.push(rusqlite::types::Value::Text(value.to_owned()));
    }
    sql.push(')');
}

impl ApprovalStore for SqliteApprovalStore {
    fn now(&self) -> StoreFuture<'_, u64> {
        Box::pin(std::future::ready(Ok((self.clock)())))
    }

    fn check(&self) -> StoreFuture<'_, ()> {
        // The clock is the process's; the database is ready when a write could
        // start: another process holding it (a backup, a migration) makes this
        // wait like any write, up to the busy timeout.
        self.with(|connection, _| connection.execute_batch("BEGIN IMMEDIATE; ROLLBACK;"))
    }

    fn save_pending<'a>(&'a self, pending: &'a PendingApproval) -> StoreFuture<'a, bool> {
        let pending = pending.clone();
        self.with(move |connection, _| insert_pending(connection, &pending))
    }

    fn save_pending_capped<'a>(
        &'a self,
        pending: &'a PendingApproval,
        caps: PendingCaps,
    ) -> StoreFuture<'a, SavedPending> {
        let pending = pending.clone();
        self.with(move |connection, now| {
            // The write lock from the count to the insert: another process's
            // capped save waits (the busy timeout) and then counts this one.
            let transaction = rusqlite::Transaction::new_unchecked(
                connection,
                rusqlite::TransactionBehavior::Immediate,
            )?;
            let exists: bool = transaction.query_row(
                "SELECT EXISTS (SELECT 1 FROM toolkit_pending_approvals
                                WHERE principal = ?1 AND call_id = ?2)",
                params![pending.principal, pending.call_id],
                |row| row.get(0),
            )?;
            if exists {
                return Ok(SavedPending::AlreadySaved);
            }
            let count = |tool: Option<&str>, cap: Option<u32>| {
                transaction.query_row(
                    "SELECT count(*) FROM (
                         SELECT 1 FROM toolkit_pending_approvals p
                         WHERE p.principal = ?1 AND (?2 IS NULL OR p.tool = ?2)
                           AND p.expires_at >= ?3
                           AND NOT EXISTS (SELECT 1 FROM toolkit_approval_decisions d
                                           WHERE d.principal = p.principal
                                             AND d.call_id = p.call_id)
                         LIMIT ?4)",
                    params![
                        pending.principal,
                        tool,
                        to_sql(now),
                        i64::from(cap.unwrap_or(0))
                    ],
                    |row| row.get::<_, i64>(0),
                )
            };
            let waiting = from_sql(count(None, caps.per_principal)?);
            let of_tool = from_sql(count(Some(&pending.tool), caps.per_tool)?);
            if let Some(full) = caps.full(waiting, of_tool) {
                return Ok(full);
            }
            let inserted = insert_pending(&transaction, &pending)?;
            transaction.commit()?;
            Ok(if inserted {
                SavedPending::Saved
            } else {
                SavedPending::AlreadySaved
            })
        })
    }

    fn list_pending<'a>(
        &'a self,
        query: &'a PendingQuery,
    ) -> StoreFuture<'a, Vec<PendingApproval>> {
        let limit = match query.bounded_limit() {
            Ok(limit) => limit,
            Err(error) => return Box::pin(std::future::ready(Err(error))),
        };
        let query = query.clone();
        self.with(move |connection, now| {
            let (sql, bound) = pending_list(
                "p.arguments, p.digest, p.requested_at, p.expires_at, p.signature, p.view",
                Vec::new(),
                &query,
                now,
                limit,
            );
            let mut statement = connection.prepare(&sql)?;
            let rows = statement.query_map(rusqlite::params_from_iter(bound), |row| {
                pending_from_row_at(row, 0)
            })?;
            rows.collect()
        })
    }

    fn list_pending_cut<'a>(
        &'a self,
        query: &'a PendingQuery,
        arguments_up_to: usize,
    ) -> StoreFuture<'a, Vec<ListedPending>> {
        let limit = match query.bounded_limit() {
            Ok(limit) => limit,
            Err(error) => return Box::pin(std::future::ready(Err(error))),
        };
        let query = query.clone();
        self.with(move |connection, now| {
            // The arguments are cut by the query: a call whose arguments are
            // megabytes long costs the list its length and first characters.
            let (sql, bound) = pending_list(
                "CASE WHEN length(CAST(p.arguments AS BLOB)) <= ? THEN p.arguments END,
                 p.digest, p.requested_at, p.expires_at, p.signature, p.view,
                 length(CAST(p.arguments AS BLOB)), substr(p.arguments, 1, ?)",
                vec![
                    rusqlite::types::Value::Integer(to_sql(arguments_up_to as u64)),
                    rusqlite::types::Value::Integer(to_sql(CUT_ARGUMENTS_START_CHARS as u64)),
                ],
                &query,
                now,
                limit,
            );
            let mut statement = connection.prepare(&sql)?;
            let rows = statement.query_map(rusqlite::params_from_iter(bound), |row| {
                let arguments = row
                    .get::<_, Option<String>>(3)?
                    .map(|text| {
                        serde_json::from_str(&text).map_err(|error| {
                            rusqlite::Error::FromSqlConversionFailure(
                                3,
                                rusqlite::types::Type::Text,
                                error.into(),
                            )
                        })
                    })
                    .transpose()?;
                let pending = PendingApproval {
                    principal: row.get(0)?,
                    call_id: row.get(1)?,
                    tool: row.get(2)?,
                    arguments: Value::Null,
                    digest: row.get(4)?,
                    requested_at: from_sql(row.get(5)?),
                    expires_at: from_sql(row.get(6)?),
                    signature: row.get(7)?,
                    view: row.get(8)?,
                };
                let bytes = usize::try_from(row.get::<_, i64>(9)?).unwrap_or(usize::MAX);
                Ok(ListedPending::from_parts(
                    pending,
                    arguments,
                    bytes,
                    row.get(10)?,
                ))
            })?;
            rows.collect()
        })
    }

    fn pending<'a>(
        &'a self,
        principal: &'a Principal,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<PendingApproval>> {
        let (principal, call_id) = (principal.to_owned(), call_id.to_owned());
        self.with(move |connection, _| {
            connection
                .query_row(
                    "SELECT principal, call_id, tool, arguments, digest,
                            requested_at, expires_at, signature, view
                     FROM toolkit_pending_approvals WHERE principal = ? AND call_id = ?",
                    rusqlite::params![principal, call_id],
                    pending_from_row,
                )
                .optional()
        })
    }

    fn record_decision<'a>(
        &'a self,
        record: &'a DecisionRecord,
        keep_until: u64,
    ) -> StoreFuture<'a, DecisionOutcome> {
        let record = record.clone();
        self.with(move |connection, _| {
            let inserted = connection.execute(
                "INSERT INTO toolkit_approval_decisions (principal, call_id, tool, verdict,
                     digest, message, decided_by, decided_at, keep_until, arguments)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                 ON CONFLICT (principal, call_id) DO NOTHING",
                params![
                    record.principal,
                    record.call_id,
                    record.tool,
                    record.verdict.as_str(),
                    record.digest,
                    record.message,
                    record.decided_by,
                    to_sql(record.decided_at),
                    to_sql(keep_until),
                    record.arguments.as_ref().map(Value::to_string),
                ],
            )?;
            if inserted == 1 {
                return Ok(DecisionOutcome::Recorded);
            }
            let winner = decision_of(connection, &record.principal, &record.call_id)?;
            Ok(match winner {
                Some(winner) => DecisionOutcome::AlreadyDecided(Box::new(winner)),
                // Purged between the two statements: only possible past its
                // retention, when nothing signed for the call is valid any more.
                None => DecisionOutcome::AlreadyDecided(Box::new(record.clone())),
            })
        })
    }

    fn decision<'a>(
        &'a self,
        principal: &'a Principal,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<DecisionRecord>> {
        let (principal, call_id) = (principal.to_owned(), call_id.to_owned());
        self.with(move |connection, _| decision_of(connection, &principal, &call_id))
    }

    fn decisions<'a>(&'a self, query: &'a DecisionQuery) -> StoreFuture<'a, Vec<DecisionRecord>> {
        let limit = match query.bounded_limit() {
            Ok(limit) => limit,
            Err(error) => return Box::pin(std::future::ready(Err(error))),
        };
        let query = query.clone();
        self.with(move |connection, _| {
            let mut sql = String::from(
                "SELECT principal, call_id, tool, verdict, digest, message, decided_by,
                            decided_at, arguments
                     FROM toolkit_approval_decisions WHERE 1 = 1",
            );
            let mut bound = Vec::new();
            Filters::of_decisions(&query, "decided_at").push(&mut sql, &mut bound);
            sql.push_str(" ORDER BY decided_at DESC, principal DESC, call_id DESC LIMIT ?");
            bound.push(rusqlite::types::Value::Integer(to_sql(limit as u64)));
            let mut statement = connection.prepare(&sql)?;
            let rows = statement.query_map(rusqlite::params_from_iter(bound), decision_from_row)?;
            rows.collect()
        })
    }

    fn claim<'a>(
        &'a self,
        key: &'a str,
        lease_until: u64,
        keep_until: u64,
    ) -> StoreFuture<'a, Claim> {
        let key = key.to_owned();
        self.with(move |connection, now| {
            purge_at(connection, now)?;
            // One statement: the primary key lets one insert, and only a claim not
            // done whose lease ended is taken over.
            let won: Option<i64> = connection
                .query_row(
                    "INSERT INTO toolkit_used_approvals (key, expires_at, done, lease_until, attempt)
                     VALUES (?1, ?2, 0, ?3, 1)
                     ON CONFLICT (key) DO UPDATE SET
                         lease_until = excluded.lease_until,
                         attempt = attempt + 1,
                         expires_at = max(expires_at, excluded.expires_at)
                     WHERE NOT done AND lease_until < ?4
                     RETURNING attempt",
                    params![key, to_sql(keep_until), to_sql(lease_until), to_sql(now)],
                    |row| row.get(0),
                )
                .optional()?;
            if let Some(attempt) = won {
                return Ok(Claim::Won {
                    attempt: u32::try_from(attempt).unwrap_or(u32::MAX),
                });
            }
            let held: Option<(bool, i64)> = connection
                .query_row(
                    "SELECT done, lease_until FROM toolkit_used_approvals WHERE key = ?1",
                    params![key],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .optional()?;
            Ok(match held {
                Some((false, lease_until)) => Claim::Held {
                    lease_until: u64::try_from(lease_until).unwrap_or(0),
                },
                _ => Claim::Done,
            })
        })
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        attempt: u32,
        outcome: &'a RunOutcome,
    ) -> StoreFuture<'a, bool> {
        let (key, outcome) = (key.to_owned(), outcome.to_json());
        self.with(move |connection, now| {
            let updated = connection.execute(
                "UPDATE toolkit_used_approvals SET lease_until = 0, outcome = ?3, ended_at = ?4
                 WHERE key = ?1 AND attempt = ?2 AND NOT done",
                params![key, attempt, outcome, to_sql(now)],
            )?;
            Ok(updated == 1)
        })
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        attempt: u32,
        outcome: &'a RunOutcome,
    ) -> StoreFuture<'a, bool> {
        let (key, outcome) = (key.to_owned(), outcome.to_json());
        self.with(move |connection, now| {
            // Fenced on the attempt: only the claim's holder ends it. Completing
            // again keeps the first outcome.
            let updated = connection.execute(
                "UPDATE toolkit_used_approvals
                 SET outcome = CASE WHEN done THEN outcome ELSE ?3 END,
                     ended_at = CASE WHEN done THEN ended_at ELSE ?4 END,
                     done = 1
                 WHERE key = ?1 AND attempt = ?2",
                params![key, attempt, outcome, to_sql(now)],
            )?;
            Ok(updated == 1)
        })
    }

    fn renew<'a>(&'a self, key: &'a str, attempt: u32, lease_until: u64) -> StoreFuture<'a, bool> {
        let key = key.to_owned();
        self.with(move |connection, _| {
            let updated = connection.execute(
                "UPDATE toolkit_used_approvals SET lease_until = max(lease_until, ?3)
                 WHERE key = ?1 AND attempt = ?2 AND NOT done AND lease_until > 0",
                params![key, attempt, to_sql(lease_until)],
            )?;
            Ok(updated == 1)
        })
    }

    fn run<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<RunRecord>> {
        let key = key.to_owned();
        self.with(move |connection, _| {
            connection
                .query_row(
                    "SELECT attempt, done, lease_until, outcome, ended_at
                     FROM toolkit_used_approvals WHERE key = ?1",
                    params![key],
                    |row| {
                        let record = RunRecord::new(
                            u32::try_from(row.get::<_, i64>(0)?).unwrap_or(u32::MAX),
                            row.get(1)?,
                            from_sql(row.get(2)?),
                            row.get::<_, Option<String>>(3)?
                                .as_deref()
                                .map(RunOutcome::from_json)
                                .transpose()
                                .map_err(|error| {
                                    rusqlite::Error::FromSqlConversionFailure(
                                        3,
                                        rusqlite::types::Type::Text,
                                        Box::new(error),
                                    )
                                })?,
                        );
                        Ok(match row.get::<_, Option<i64>>(4)? {
                            Some(ended_at) => record.ended_at(from_sql(ended_at)),
                            None => record,
                        })
                    },
                )
                .optional()
        })
    }

    fn lapsed_claims<'a>(&'a self, prefix: &'a str, limit: usize) -> StoreFuture<'a, Vec<String>> {
        let prefix = prefix.to_owned();
        self.with(move |connection, now| {
            let mut statement = connection.prepare(
                "SELECT key FROM toolkit_used_approvals
                 WHERE NOT done AND lease_until < ?1 AND expires_at >= ?1
                   AND substr(key, 1, length(?2)) = ?2
                 ORDER BY lease_until, key
                 LIMIT ?3",
            )?;
            let rows = statement.query_map(
                params![
                    to_sql(now),
                    prefix,
                    to_sql(limit.min(MAX_QUERY_LIMIT) as u64)
                ],
                |row| row.get(0),
            )?;
            rows.collect()
        })
    }

    fn approved_unsettled(
        &self,
        decided_after: u64,
        decided_before: u64,
        limit: usize,
    ) -> StoreFuture<'_, Vec<(PendingApproval, DecisionRecord)>> {
        self.with(move |connection, _| {
            let mut statement = connection.prepare(
                "SELECT p.principal, p.call_id, p.tool, p.arguments, p.digest,
                        p.requested_at, p.expires_at, p.signature, p.view,
                        d.principal, d.call_id, d.tool, d.verdict, d.digest, d.message,
                        d.decided_by, d.decided_at, d.arguments
                 FROM toolkit_approval_decisions d
                 JOIN toolkit_pending_approvals p
                   ON p.principal = d.principal AND p.call_id = d.call_id
                 WHERE NOT d.settled AND d.verdict <> 'denied'
                   AND d.decided_at >= ?1 AND d.decided_at < ?2
                 ORDER BY d.decided_at, d.principal, d.call_id
                 LIMIT ?3",
            )?;
            let rows = statement.query_map(
                params![
                    to_sql(decided_after),
                    to_sql(decided_before),
                    to_sql(limit.min(MAX_QUERY_LIMIT) as u64)
                ],
                |row| Ok((pending_from_row(row)?, decision_from_row_at(row, 9)?)),
            )?;
            rows.collect()
        })
    }

    fn settle<'a>(&'a self, principal: &'a Principal, call_id: &'a str) -> StoreFuture<'a, bool> {
        let (principal, call_id) = (principal.to_owned(), call_id.to_owned());
        self.with(move |connection, _| {
            let updated = connection.execute(
                "UPDATE toolkit_approval_decisions SET settled = 1
                 WHERE principal = ?1 AND call_id = ?2",
                params![principal, call_id],
            )?;
            Ok(updated == 1)
        })
    }

    fn record_refusal<'a>(
        &'a self,
        refusal: &'a RefusalRecord,
        keep_until: u64,
    ) -> StoreFuture<'a, ()> {
        let refusal = refusal.clone();
        self.with(move |connection, _| {
            connection.execute(
                "INSERT INTO toolkit_approval_refusals (principal, call_id, tool, decided_by,
                     reason, refused_at, keep_until)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    refusal.principal,
                    refusal.call_id,
                    refusal.tool,
                    refusal.decided_by,
                    refusal.reason,
                    to_sql(refusal.refused_at),
                    to_sql(keep_until),
                ],
            )?;
            Ok(())
        })
    }

    fn refusals<'a>(&'a self, query: &'a DecisionQuery) -> StoreFuture<'a, Vec<RefusalRecord>> {
        let limit = match query.bounded_limit() {
            Ok(limit) => limit,
            Err(error) => return Box::pin(std::future::ready(Err(error))),
        };
        let query = query.clone();
        self.with(move |connection, _| {
            let mut sql = String::from(
                "SELECT principal, call_id, tool, decided_by, reason, refused_at
                     FROM toolkit_approval_refusals WHERE 1 = 1",
            );
            let mut bound = Vec::new();
            Filters::of_decisions(&query, "refused_at").push(&mut sql, &mut bound);
            sql.push_str(" ORDER BY refused_at DESC, rowid DESC LIMIT ?");
            bound.push(rusqlite::types::Value::Integer(to_sql(limit as u64)));
            let mut statement = connection.prepare(&sql)?;
            let rows = statement.query_map(rusqlite::params_from_iter(bound), |row| {
                Ok(RefusalRecord {
                    principal: row.get(0)?,
                    call_id: row.get(1)?,
                    tool: row.get(2)?,
                    decided_by: row.get(3)?,
                    reason: row.get(4)?,
                    refused_at: from_sql(row.get(5)?),
                })
            })?;
            rows.collect()
        })
    }

    fn purge(&self) -> StoreFuture<'_, u64> {
        self.with(purge_at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of its own for `name`, removed first.
    fn fresh_file(name: &str) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!(
            "toolkit-sqlite-{name}-{}.sqlite3",
            std::process::id()
        ));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        path
    }

    /// Another process's connection holding the write lock of `path` for `held`.
    fn hold_write_lock(path: &Path, held: Duration) -> std::thread::JoinHandle<()> {
        let locker = Connection::open(path).expect("opens");
        locker.execute_batch("BEGIN EXCLUSIVE;").expect("locks");
        std::thread::spawn(move || {
            std::thread::sleep(held);
            locker.execute_batch("COMMIT;").expect("unlocks");
        })
    }

    fn pending(call_id: &str) -> PendingApproval {
        PendingApproval {
            principal: Principal::local("user:7").expect("a principal"),
            call_id: call_id.to_owned(),
            tool: "delete_projects".to_owned(),
            arguments: serde_json::json!({ "id": 3 }),
            digest: "sha256:00".to_owned(),
            requested_at: 100,
            expires_at: 4_000_000_000,
            signature: "ab".to_owned(),
            view: None,
        }
    }

    /// A write waiting for a database another process holds (a backup, a second
    /// replica, a migration) waits on the store's thread: a single-threaded
    /// executor goes on running its other futures (a timer ticking every 20 ms
    /// here) until the lock is given back, and then the write is done.
    #[test]
    fn a_locked_database_does_not_freeze_the_executor() {
        let path = fresh_file("locked");
        let store = SqliteApprovalStore::open(&path).expect("opens");
        // Long beside the bound below, so a busy machine's scheduling never
        // reads as a frozen executor, and a frozen one always fails.
        let held = Duration::from_secs(3);
        let unlocked = hold_write_lock(&path, held);
        let started = Instant::now();
        let done = std::sync::atomic::AtomicBool::new(false);
        let write = async {
            let saved = store.save_pending(&pending("call_1")).await;
            done.store(true, std::sync::atomic::Ordering::SeqCst);
            (saved, started.elapsed())
        };
        let ticks = async {
            let mut longest = Duration::ZERO;
            let mut last = Instant::now();
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                futures_timer::Delay::new(Duration::from_millis(20)).await;
                longest = longest.max(last.elapsed());
                last = Instant::now();
            }
            longest
        };
        let ((saved, waited), longest) =
            futures_executor::block_on(futures_util::future::join(write, ticks));
        unlocked.join().expect("unlocked");
        assert_eq!(saved, Ok(true));
        assert!(waited >= Duration::from_millis(2900), "{waited:?}");
        assert!(
            longest < Duration::from_millis(1500),
            "the executor stood still for {longest:?}"
        );
    }

    /// A statement whose caller stopped waiting before it started (a cancelled
    /// request, a readiness check past its timeout) never runs.
    #[test]
    fn a_statement_dropped_before_it_started_never_runs() {
        let path = fresh_file("dropped");
        let store = SqliteApprovalStore::open(&path).expect("opens");
        let unlocked = hold_write_lock(&path, Duration::from_millis(500));
        futures_executor::block_on(async {
            // The first write waits for the lock on the store's thread; the second
            // is queued behind it, and its caller gives up.
            let (one, two) = (pending("call_1"), pending("call_2"));
            let first = store.save_pending(&one);
            let second = store.save_pending(&two);
            drop(second);
            assert_eq!(first.await, Ok(true));
        });
        unlocked.join().expect("unlocked");
        let listed =
            futures_executor::block_on(store.list_pending(&PendingQuery::new())).expect("lists");
        let ids: Vec<&str> = listed
            .iter()
            .map(|pending| pending.call_id.as_str())
            .collect();
        assert_eq!(ids, ["call_1"]);
    }

    /// The readiness check takes the write lock: ready on an idle file, and
    /// waiting (so a bounded check fails) while another process holds it.
    #[test]
    fn the_check_waits_while_another_process_holds_the_database() {
        let path = fresh_file("check");
        let store = SqliteApprovalStore::open(&path).expect("opens");
        assert_eq!(futures_executor::block_on(store.check()), Ok(()));
        let held = Duration::from_millis(800);
        let unlocked = hold_write_lock(&path, held);
        let started = Instant::now();
        assert_eq!(futures_executor::block_on(store.check()), Ok(()));
        assert!(started.elapsed() >= Duration::from_millis(700));
        unlocked.join().expect("unlocked");
    }

    /// A database made by a build before views had labels keeps its pending
    /// approvals: the new column is added, and they are listed with no label.
    #[test]
    fn a_database_from_before_view_labels_is_migrated_in_place() {
        let connection = Connection::open_in_memory().expect("opens");
        for migration in &MIGRATIONS[..2] {
            connection.execute_batch(migration).expect("old schema");
        }
        connection
            .pragma_update(None, "user_version", 2)
            .expect("version");
        connection
            .execute(
                "INSERT INTO toolkit_pending_approvals VALUES
                 ('user:7', 'call_1', 'delete_projects', '{\"id\":3}', 'sha256:00', 100,
                  4000000000, 'ab', 4000003600)",
                [],
            )
            .expect("an old pending approval");
        connection
            .execute(
                "INSERT INTO toolkit_approval_decisions VALUES
                 ('user:7', 'call_0', 'delete_projects', 'approved_with_edits', 'sha256:01',
                  NULL, 'alice', 150, 4000003600),
                 ('team|a%b', 'call_2', 'delete_projects', 'approved', 'sha256:02',
                  NULL, 'ops|x%', 140, 4000003600),
                 ('user:8', 'call_3', 'delete_projects', 'denied', 'sha256:03',
                  'no', 'the requester', 130, 4000003600)",
                [],
            )
            .expect("old decisions");
        let store = SqliteApprovalStore::from_connection(connection)
            .expect("migrates")
            .clock(|| 200);
        let listed =
            futures_executor::block_on(store.list_pending(&PendingQuery::new())).expect("lists");
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].call_id, "call_1");
        assert_eq!(listed[0].view, None);
        // An old row's free string reads as a principal of the reserved issuer,
        // which no principal made from a token or by the application equals.
        let old = &listed[0].principal;
        assert_eq!(old.key(), "toolkit:legacy|user:7");
        assert_eq!(old.legacy_name(), Some("user:7"));
        assert_ne!(*old, Principal::local("user:7").expect("a principal"));
        // Found by that principal, and by no new one spelt like the old string.
        let found = futures_executor::block_on(store.pending(old, "call_1")).expect("reads");
        assert_eq!(
            found.map(|pending| pending.call_id).as_deref(),
            Some("call_1")
        );
        let local = Principal::local("user:7").expect("a principal");
        assert_eq!(
            futures_executor::block_on(store.pending(&local, "call_1")).expect("reads"),
            None
        );
        // A decision recorded before edited arguments were kept has none: an MCP
        // client waiting on it is refused, as before.
        let decided = futures_executor::block_on(store.decisions(&DecisionQuery::new()))
            .expect("lists decisions");
        assert_eq!(decided.len(), 3);
        assert_eq!(decided[0].verdict, Verdict::ApprovedWithEdits);
        assert_eq!(decided[0].arguments, None);
        // The separator and the escape character are escaped as a key escapes them.
        assert_eq!(decided[1].principal.key(), "toolkit:legacy|team%7Ca%25b");
        assert_eq!(decided[1].principal.legacy_name(), Some("team|a%b"));
        // Deciders too: a free string is a legacy principal, escaped alike; the
        // requester's own answer stays the requester's.
        let legacy =
            |key: &str| super::super::DecidedBy::Person(Principal::from_key(key).expect("a key"));
        assert_eq!(decided[0].decided_by, legacy("toolkit:legacy|alice"));
        assert_eq!(decided[1].decided_by, legacy("toolkit:legacy|ops%7Cx%25"));
        assert_eq!(decided[1].decided_by.display_name(), "ops|x%");
        assert_eq!(decided[2].decided_by, super::super::DecidedBy::Requester);
        let version: i64 = futures_executor::block_on(store.with(|connection, _| {
            connection.query_row("PRAGMA user_version", [], |row| row.get(0))
        }))
        .expect("reads");
        assert_eq!(version, 11);
    }
}

//! [`SqliteQuotaStore`]: quota state in the approval store's `SQLite` file, so
//! every process that opens it counts against one quota.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{BUSY_TIMEOUT, SqliteApprovalStore};
use crate::approval::pace::PurgePace;
use crate::quota::{
    Admission, CLOCK_JUMP_SLACK, Quota, QuotaFuture, QuotaKey, QuotaStore, QuotaStoreError,
};

/// How long a check may wait for the database, unless set.
const WAIT: Duration = Duration::from_secs(5);

/// The check: GCRA in one `INSERT ... ON CONFLICT DO UPDATE ... RETURNING`.
/// `?1` principal, `?2` tool, `?3` T, `?4` τ, `?5` the pinned time (NULL: the
/// database's), `?6` the furthest ahead a TAT may be, `?7` count × T. The
/// statement's time is written as `checked_at` first, so every branch reads one
/// time.
const CHECK: &str = "
    INSERT INTO toolkit_quota_state AS q (principal, tool, tat, checked_at, verdict)
    SELECT ?1, ?2, n.now + ?3, n.now, 'admitted'
    FROM (SELECT COALESCE(?5, CAST(unixepoch('subsec') * 1000 AS INTEGER) * 1000000) AS now) n
    WHERE true
    ON CONFLICT (principal, tool) DO UPDATE SET
        verdict = CASE
            WHEN typeof(q.tat) <> 'integer' THEN 'corrupt'
            WHEN q.tat > excluded.checked_at + ?6 THEN 'reset'
            WHEN max(q.tat, excluded.checked_at) - excluded.checked_at <= ?4 THEN 'admitted'
            ELSE 'refused' END,
        tat = CASE
            WHEN typeof(q.tat) <> 'integer' OR q.tat > excluded.checked_at + ?6
                THEN excluded.checked_at + ?4 + ?7
            WHEN max(q.tat, excluded.checked_at) - excluded.checked_at <= ?4
                THEN max(q.tat, excluded.checked_at) + ?3
            ELSE q.tat END,
        checked_at = excluded.checked_at
    RETURNING verdict, tat - checked_at";

/// Quota state in a `SQLite` file (feature `sqlite`): the [`QuotaStore`] of
/// processes on one host sharing the approval store's file. Made by
/// [`SqliteApprovalStore::quota_store`]; its statements run on that store's
/// connection thread, in its tables (created by the same migrations).
///
/// Counts with GCRA: one row per principal and tool keeps the theoretical arrival
/// time of the next call (nanoseconds). A check is ONE statement (`INSERT ... ON
/// CONFLICT DO UPDATE ... RETURNING`) computed in SQL on `SQLite`'s clock
/// (`unixepoch('subsec')`, milliseconds; one host, one clock), and `SQLite` runs
/// writers one at a time, so two processes never both take the last call.
///
/// - A check that cannot start within its wait ([`wait_at_most`](Self::wait_at_most),
///   5 s unless set), or whose file another process holds that long, fails with
///   a [`QuotaStoreError`]: the call is refused, unless its tool is an `auto`
///   tool declared to fail open.
/// - A stored time that is not a time is a [`QuotaStoreError`] (the call is
///   refused, or fails open as above); the row is reset to a quota spent in full.
///   A stored time further ahead than the quota's period allows (the clock went
///   back) counts as spent in full now: the key is refused for one period, then
///   counts as usual.
/// - Rows whose next call would be admitted with a full burst are dropped after a
///   check, at most once a minute per process (as the `PostgreSQL` stores purge).
pub struct SqliteQuotaStore {
    store: SqliteApprovalStore,
    pinned: Option<Arc<dyn Fn() -> Duration + Send + Sync>>,
    wait: Duration,
    purges: PurgePace,
}

impl SqliteApprovalStore {
    /// The quota store of this store's file, on the same connection (see
    /// [`SqliteQuotaStore`]).
    #[must_use]
    pub fn quota_store(&self) -> SqliteQuotaStore {
        SqliteQuotaStore {
            store: SqliteApprovalStore {
                jobs: self.jobs.clone(),
                clock: Arc::clone(&self.clock),
            },
            pinned: None,
            wait: WAIT,
            purges: PurgePace::default(),
        }
    }
}

impl SqliteQuotaStore {
    /// Reads the time (since the Unix epoch) from `clock` instead of `SQLite`'s:
    /// tests pin time with it.
    #[must_use]
    pub fn clock(mut self, clock: impl Fn() -> Duration + Send + Sync + 'static) -> Self {
        self.pinned = Some(Arc::new(clock));
        self
    }

    /// How long a check may wait to start and for the file's lock (5 seconds
    /// unless set); past it, the store counts as down.
    #[must_use]
    pub fn wait_at_most(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }
}

impl QuotaStore for SqliteQuotaStore {
    fn check<'a>(&'a self, key: QuotaKey<'a>, quota: Quota) -> QuotaFuture<'a, Admission> {
        let gcra = quota.gcra();
        let slack = i64::try_from(CLOCK_JUMP_SLACK.as_nanos()).unwrap_or(i64::MAX);
        let pinned = self
            .pinned
            .as_ref()
            .map(|clock| i64::try_from(clock().as_nanos()).unwrap_or(i64::MAX));
        let principal = key.principal.to_owned();
        let tool = key.tool;
        let deadline = Instant::now() + self.wait;
        let purge = self.purges.due();
        let answer = self.store.with(move |connection, _| {
            // The check waits for the file's lock no longer than its deadline.
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return Ok(None);
            };
            connection.busy_timeout(left)?;
            let checked = connection.prepare_cached(CHECK).and_then(|mut statement| {
                statement.query_row(
                    rusqlite::params![
                        principal,
                        tool,
                        gcra.interval,
                        gcra.tolerance,
                        pinned,
                        gcra.full + slack,
                        gcra.full
                    ],
                    |row| Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?)),
                )
            });
            if purge && checked.is_ok() {
                let swept = connection.execute(
                    "DELETE FROM toolkit_quota_state WHERE typeof(tat) = 'integer'
                     AND tat < COALESCE(?1, CAST(unixepoch('subsec') * 1000 AS INTEGER) * 1000000)",
                    [pinned],
                );
                if let Err(error) = swept {
                    tracing::warn!(%error, "purging spent quota state failed");
                }
            }
            connection.busy_timeout(BUSY_TIMEOUT)?;
            checked.map(Some)
        });
        let wait = self.wait;
        Box::pin(async move {
            match answer.await? {
                Some((verdict, ahead)) => {
                    crate::quota::admission_of(&verdict, ahead, gcra, key, quota)
                }
                None => Err(QuotaStoreError::new(format!(
                    "the quota store could not start the check within {} ms; the SQLite file is busy",
                    wait.as_millis()
                ))),
            }
        })
    }
}

impl std::fmt::Debug for SqliteQuotaStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteQuotaStore")
            .field("wait", &self.wait)
            .finish_non_exhaustive()
    }
}

//! [`PostgresQuotaStore`]: quota state in the approval store's `PostgreSQL`
//! database, so every replica counts against one quota.

use std::sync::Arc;
use std::time::Duration;

use super::{PostgresApprovalStore, column, db_error};
use crate::approval::pace::PurgePace;
use crate::approval::store_error::StoreError;
use crate::quota::{
    Admission, CLOCK_JUMP_SLACK, Quota, QuotaFuture, QuotaKey, QuotaStore, QuotaStoreError,
};

/// The database's clock in nanoseconds since the Unix epoch, shifted by the
/// approval store's test shift (`$5`, seconds), or the pinned time `$6` when a
/// test gave one: `now()` is the time the statement's transaction started, one
/// value for the whole statement.
const NOW_NS: &str = "COALESCE($6::bigint,
     (extract(epoch FROM now()) * 1000000000)::bigint + $5::bigint * 1000000000)";

/// Quota state in `PostgreSQL` (feature `postgres`): the [`QuotaStore`] of a fleet
/// of replicas sharing one database. Made by
/// [`PostgresApprovalStore::quota_store`], it shares that store's pool, its
/// bounded wait and its tables (created by the same migrations).
///
/// Counts with GCRA: one row per principal and tool keeps the theoretical arrival
/// time of the next call (nanoseconds, database time). A check is ONE statement
/// (`INSERT ... ON CONFLICT DO UPDATE ... RETURNING`), computed in SQL on the
/// database's clock (`now()`), under the row's lock: two replicas checking the
/// same key at once are counted one after the other, and no replica's own clock
/// takes part. A refused check writes the row's verdict and changes nothing else.
///
/// - A database that does not answer within the approval store's wait
///   ([`PostgresApprovalStore::wait_at_most`], 5 s unless set) is down: the check
///   fails with a [`QuotaStoreError`], and the call is refused, unless its tool is
///   an `auto` tool declared to fail open.
/// - A stored time further ahead than the quota's period allows (the database's
///   clock went back, or the row was written wrongly) counts as a quota spent in
///   full now: the key is refused for one period, then counts as usual. Nothing
///   is admitted beyond the quota, and a clock that went back an hour does not
///   lock a caller out for an hour.
/// - Rows whose next call would be admitted with a full burst are dropped, at most
///   once a minute per process.
///
/// ```no_run
/// # async fn start() -> Result<(), Box<dyn std::error::Error>> {
/// use toolkit::approval::{ApprovalKey, Approvals, PostgresApprovalStore};
/// use toolkit::quota::Quotas;
///
/// let store = PostgresApprovalStore::connect("postgres://app@db.internal/app").await?;
/// let quotas = Quotas::builder(toolkit::registry(), store.quota_store()).build()?;
/// let approvals = Approvals::new(ApprovalKey::new(std::env::var("APPROVAL_KEY")?)?, store);
/// # Ok(()) }
/// ```
pub struct PostgresQuotaStore {
    pool: deadpool_postgres::Pool,
    shift: Arc<dyn Fn() -> i64 + Send + Sync>,
    pinned: Option<Arc<dyn Fn() -> Duration + Send + Sync>>,
    wait: Duration,
    purges: PurgePace,
}

impl PostgresApprovalStore {
    /// The quota store of this store's database: same pool, same wait, same
    /// clock (see [`PostgresQuotaStore`]).
    #[must_use]
    pub fn quota_store(&self) -> PostgresQuotaStore {
        PostgresQuotaStore {
            pool: self.pool.clone(),
            shift: Arc::clone(&self.shift),
            pinned: None,
            wait: self.wait,
            purges: PurgePace::default(),
        }
    }
}

impl PostgresQuotaStore {
    /// Reads the time (since the Unix epoch) from `clock` instead of the
    /// database's: tests pin time with it. A deployment leaves it alone, so every
    /// replica reads the one clock of the database.
    #[must_use]
    pub fn clock(mut self, clock: impl Fn() -> Duration + Send + Sync + 'static) -> Self {
        self.pinned = Some(Arc::new(clock));
        self
    }

    fn pinned_nanos(&self) -> Option<i64> {
        self.pinned
            .as_ref()
            .map(|clock| i64::try_from(clock().as_nanos()).unwrap_or(i64::MAX))
    }

    async fn check_now(
        &self,
        key: QuotaKey<'_>,
        quota: Quota,
    ) -> Result<Admission, QuotaStoreError> {
        let gcra = quota.gcra();
        let slack = i64::try_from(CLOCK_JUMP_SLACK.as_nanos()).unwrap_or(i64::MAX);
        let client = self.pool.get().await.map_err(db_error)?;
        // $3 T, $4 τ, $7 the furthest ahead a TAT may be, $8 count × T.
        let row = client
            .query_one(
                &format!(
                    "INSERT INTO toolkit_quota_state AS q (principal, tool, tat, checked_at, verdict)
                     SELECT $1, $2, n.now + $3, n.now, 'admitted'
                     FROM (SELECT {NOW_NS} AS now) n
                     ON CONFLICT (principal, tool) DO UPDATE SET
                         verdict = CASE
                             WHEN q.tat > EXCLUDED.checked_at + $7 THEN 'reset'
                             WHEN GREATEST(q.tat, EXCLUDED.checked_at) - EXCLUDED.checked_at <= $4
                                 THEN 'admitted'
                             ELSE 'refused' END,
                         tat = CASE
                             WHEN q.tat > EXCLUDED.checked_at + $7
                                 THEN EXCLUDED.checked_at + $4 + $8
                             WHEN GREATEST(q.tat, EXCLUDED.checked_at) - EXCLUDED.checked_at <= $4
                                 THEN GREATEST(q.tat, EXCLUDED.checked_at) + $3
                             ELSE q.tat END,
                         checked_at = EXCLUDED.checked_at
                     RETURNING verdict, tat - checked_at"
                ),
                &[
                    &key.principal,
                    &key.tool,
                    &gcra.interval,
                    &gcra.tolerance,
                    &(self.shift)(),
                    &self.pinned_nanos(),
                    &(gcra.full + slack),
                    &gcra.full,
                ],
            )
            .await
            .map_err(db_error)?;
        let verdict: String = column(&row, 0)?;
        let ahead: i64 = column(&row, 1)?;
        let admission = crate::quota::admission_of(&verdict, ahead, gcra, key, quota)?;
        // After the check, so a failing purge never stands in its way.
        if let Err(error) = self.maybe_purge(&client).await {
            tracing::warn!(%error, "purging spent quota state failed");
        }
        Ok(admission)
    }

    /// Drops the rows whose next call would be admitted with a full burst (their
    /// TAT is past), when this process has not for a minute (process time: only
    /// the pace depends on it).
    async fn maybe_purge(&self, client: &deadpool_postgres::Object) -> Result<(), StoreError> {
        if self.purges.due() {
            client
                .execute(
                    "DELETE FROM toolkit_quota_state
                     WHERE tat < COALESCE($2::bigint,
                         (extract(epoch FROM now()) * 1000000000)::bigint + $1::bigint * 1000000000)",
                    &[&(self.shift)(), &self.pinned_nanos()],
                )
                .await
                .map_err(db_error)?;
        }
        Ok(())
    }
}

impl QuotaStore for PostgresQuotaStore {
    fn check<'a>(&'a self, key: QuotaKey<'a>, quota: Quota) -> QuotaFuture<'a, Admission> {
        Box::pin(async move {
            match tokio::time::timeout(self.wait, self.check_now(key, quota)).await {
                Ok(done) => done,
                Err(_) => Err(QuotaStoreError::new(format!(
                    "the quota store did not answer within {} ms; the database may be stalled",
                    self.wait.as_millis()
                ))),
            }
        })
    }
}

impl std::fmt::Debug for PostgresQuotaStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresQuotaStore")
            .field("pool", &self.pool.status())
            .field("wait", &self.wait)
            .finish_non_exhaustive()
    }
}

//! The life of approvals in `PostgreSQL`, shared by every replica of an application.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::NoTls;

use super::pace::PurgePace;
use super::store::{
    ApprovalStore, CLOCK_SKEW_SECONDS, CUT_ARGUMENTS_START_CHARS, Claim, DecisionOutcome,
    DecisionQuery, DecisionRecord, ListedPending, MAX_QUERY_LIMIT, PendingCaps, PendingQuery,
    RefusalRecord, RunRecord, SavedPending, StoreFuture,
};
use super::store_error::{StoreError, StoreErrorKind};
use super::{PendingApproval, RunOutcome, Verdict};
use crate::principal::Principal;

mod quota;

pub use quota::PostgresQuotaStore;

/// The schema, one entry per version; `toolkit_approval_schema` says which ran.
const MIGRATIONS: [&str; 10] = [
    "CREATE TABLE toolkit_pending_approvals (
         principal TEXT NOT NULL,
         call_id TEXT NOT NULL,
         tool TEXT NOT NULL,
         arguments TEXT NOT NULL,
         digest TEXT NOT NULL,
         requested_at BIGINT NOT NULL,
         expires_at BIGINT NOT NULL,
         signature TEXT NOT NULL,
         keep_until BIGINT NOT NULL,
         PRIMARY KEY (principal, call_id)
     );
     CREATE INDEX toolkit_pending_approvals_requested
         ON toolkit_pending_approvals (requested_at DESC);
     CREATE INDEX toolkit_pending_approvals_keep ON toolkit_pending_approvals (keep_until);
     CREATE TABLE toolkit_approval_decisions (
         principal TEXT NOT NULL,
         call_id TEXT NOT NULL,
         tool TEXT NOT NULL,
         verdict TEXT NOT NULL,
         digest TEXT NOT NULL,
         message TEXT,
         decided_by TEXT NOT NULL,
         decided_at BIGINT NOT NULL,
         keep_until BIGINT NOT NULL,
         PRIMARY KEY (principal, call_id)
     );
     CREATE INDEX toolkit_approval_decisions_decided
         ON toolkit_approval_decisions (decided_at DESC);
     CREATE INDEX toolkit_approval_decisions_keep ON toolkit_approval_decisions (keep_until);
     CREATE TABLE toolkit_approval_claims (
         key TEXT PRIMARY KEY,
         keep_until BIGINT NOT NULL
     );
     CREATE INDEX toolkit_approval_claims_keep ON toolkit_approval_claims (keep_until);",
    // The label of the view a pending approval was asked through (NULL: none).
    "ALTER TABLE toolkit_pending_approvals ADD COLUMN view TEXT;",
    // Claims with a lease and an outcome; a claim made before counts as done.
    "ALTER TABLE toolkit_approval_claims
         ADD COLUMN done BOOLEAN NOT NULL DEFAULT TRUE,
         ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0,
         ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1;",
    // The edited arguments of an approval with edits (NULL: none, or decided before).
    "ALTER TABLE toolkit_approval_decisions ADD COLUMN arguments TEXT;",
    // The outcome of a run (JSON; NULL while its first attempt runs) and when it
    // ended, whether a decided call's run is settled, and the decisions the policy
    // refused.
    "ALTER TABLE toolkit_approval_claims ADD COLUMN outcome TEXT, ADD COLUMN ended_at BIGINT;
     ALTER TABLE toolkit_approval_decisions
         ADD COLUMN settled BOOLEAN NOT NULL DEFAULT FALSE;
     CREATE INDEX toolkit_approval_decisions_unsettled
         ON toolkit_approval_decisions (decided_at) WHERE NOT settled;
     CREATE TABLE toolkit_approval_refusals (
         id BIGSERIAL PRIMARY KEY,
         principal TEXT NOT NULL,
         call_id TEXT NOT NULL,
         tool TEXT NOT NULL,
         decided_by TEXT NOT NULL,
         reason TEXT NOT NULL,
         refused_at BIGINT NOT NULL,
         keep_until BIGINT NOT NULL
     );
     CREATE INDEX toolkit_approval_refusals_refused
         ON toolkit_approval_refusals (refused_at DESC);
     CREATE INDEX toolkit_approval_refusals_keep ON toolkit_approval_refusals (keep_until);",
    // A claim completed before outcomes were kept ran (or counted as done because it
    // was made before leases): without an outcome it would read as approved and
    // not run yet. It ran, and what it returned was not kept.
    "UPDATE toolkit_approval_claims
         SET outcome = '{\"status\":\"ran\",\"result\":null,\"bytes\":0}'
         WHERE done AND outcome IS NULL;",
    // Principals typed: free strings become `toolkit:legacy` principals.
    super::legacy::PRINCIPALS_TYPED,
    // Quota state (`PostgresQuotaStore`): per principal and tool, GCRA's
    // theoretical arrival time of the next call, and the time and verdict of the
    // last check (nanoseconds since the Unix epoch, database time).
    "CREATE TABLE IF NOT EXISTS toolkit_quota_state (
         principal TEXT NOT NULL,
         tool TEXT NOT NULL,
         tat BIGINT NOT NULL,
         checked_at BIGINT NOT NULL,
         verdict TEXT NOT NULL,
         PRIMARY KEY (principal, tool)
     );",
    // The runs not complete, by lease: a runner lists those whose lease ended
    // (`lapsed_claims`) without reading the completed ones.
    "CREATE INDEX IF NOT EXISTS toolkit_approval_claims_lapsed
         ON toolkit_approval_claims (lease_until) WHERE NOT done;",
    // Deciders typed: old calls' free-string deciders become `toolkit:legacy` ones.
    super::legacy::DECIDERS_TYPED,
];

/// The class of the advisory locks (two-key form, a key space apart from
/// [`MIGRATION_LOCK`]'s) a capped save of a pending approval takes on its
/// principal, so that counting what waits and inserting are one step.
const PENDING_CAP_LOCK: i32 = 0x746b_7063;

/// The advisory lock replicas take while migrating, so that several starting at
/// once migrate one after the other (`toolkit` in ASCII).
const MIGRATION_LOCK: i64 = 0x0074_6f6f_6c6b_6974;

/// How long the end of a run is retried while the database cannot be reached,
/// unless set: a restart or a failover takes seconds.
const RUN_END_RETRY: Duration = Duration::from_secs(30);

/// The first pause between two tries of the end of a run, doubled up to
/// [`RUN_END_PAUSE_MAX`].
const RUN_END_PAUSE: Duration = Duration::from_millis(50);
const RUN_END_PAUSE_MAX: Duration = Duration::from_secs(1);

/// How long one operation waits for the database, unless set.
const WAIT: Duration = Duration::from_secs(5);

/// The store's clock in SQL: the database's `now()` in Unix seconds, shifted by `$1`.
const NOW: &str = "(floor(extract(epoch FROM now()))::bigint + $1::bigint)";

/// [`NOW`], shifted by `$4` instead.
const NOW4: &str = "(floor(extract(epoch FROM now()))::bigint + $4::bigint)";

/// The life of approvals in `PostgreSQL` (feature `postgres`), for a fleet of
/// replicas behind a load balancer: pending approvals, THE decision on each, and
/// the claims that make an approved call run once. The clock is the database's
/// `now()`, so replicas whose clocks differ agree on expiry.
///
/// Built on `tokio-postgres` with a `deadpool-postgres` pool (16 connections by
/// default; use [`PostgresApprovalStore::from_pool`] to size your own); it runs on
/// a Tokio runtime with its timer enabled (`#[tokio::main]`, or
/// `Builder::enable_all`), which the retries below sleep on. Opening
/// creates and migrates the tables, versioned in `toolkit_approval_schema`, under
/// an advisory lock, so replicas starting together migrate once. A decision is one
/// `INSERT ... ON CONFLICT DO NOTHING RETURNING` statement; a claim is one
/// `INSERT ... ON CONFLICT DO UPDATE ... WHERE` (taken over only when not done and
/// its lease ended, by the database's clock) `RETURNING` statement.
/// Expired records are purged by the replicas themselves, at most once a minute
/// each.
///
/// The end of a run (complete, or released after the tool failed) is one
/// idempotent `UPDATE`, retried while the database cannot be reached (its
/// connection lost, the server restarting or refusing connections) for 30 seconds
/// unless [`PostgresApprovalStore::retry_run_ends_for`] says otherwise: a run whose
/// tool has done its work is recorded as done through a restart, instead of being
/// run again after its lease. Every other statement fails at once with the
/// database's error, and the caller is told to try again.
///
/// Plain TCP or a Unix socket (`NoTls`): put the database on a private network or
/// behind a TLS-terminating proxy.
///
/// ```no_run
/// # async fn start() -> Result<(), Box<dyn std::error::Error>> {
/// use toolkit::approval::{ApprovalKey, Approvals, PostgresApprovalStore};
///
/// let store = PostgresApprovalStore::connect("postgres://app@db.internal/app").await?;
/// let approvals = Approvals::new(ApprovalKey::new(std::env::var("APPROVAL_KEY")?)?, store);
/// # Ok(()) }
/// ```
pub struct PostgresApprovalStore {
    pool: Pool,
    shift: Arc<dyn Fn() -> i64 + Send + Sync>,
    purges: PurgePace,
    run_end_retry: Duration,
    wait: Duration,
}

impl std::fmt::Debug for PostgresApprovalStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresApprovalStore")
            .field("pool", &self.pool.status())
            .finish_non_exhaustive()
    }
}

/// A store error of `kind` saying `message`, after `PostgreSQL: `.
fn store_error(kind: StoreErrorKind, message: impl std::fmt::Display) -> StoreError {
    StoreError::new(format_args!("PostgreSQL: {message}")).with_kind(kind)
}

/// A stored value this build cannot read back, with the parser's error as the cause.
fn corrupt(error: serde_json::Error) -> StoreError {
    store_error(StoreErrorKind::Corrupt, &error).caused_by(error)
}

/// An error of the client or the pool, of the kind it is, with the error itself as
/// the cause and what caused it on one line: tokio-postgres says only "db error"
/// and keeps the database's own message ("relation ... does not exist") in the
/// error's source.
fn db_error<E: Kind + std::error::Error + Send + Sync + 'static>(error: E) -> StoreError {
    store_error(error.kind(), crate::error::with_causes(&error)).caused_by(error)
}

/// What kind of store failure an error of the client or the pool is.
trait Kind {
    fn kind(&self) -> StoreErrorKind;
}

impl Kind for tokio_postgres::Error {
    /// [`unreachable`], else by SQLSTATE (`PostgreSQL`'s appendix A, "Error Codes").
    fn kind(&self) -> StoreErrorKind {
        if unreachable(self) {
            return StoreErrorKind::Unavailable;
        }
        let Some(state) = self.code() else {
            return StoreErrorKind::Other;
        };
        let code = state.code();
        match code {
            // A statement timeout, or a lock not granted in time.
            "57014" | "55P03" => StoreErrorKind::Timeout,
            // Serialization failure, deadlock, a unique key taken meanwhile.
            "40001" | "40P01" | "23505" => StoreErrorKind::Conflict,
            // Data corrupted, an index corrupted.
            "XX001" | "XX002" => StoreErrorKind::Corrupt,
            // Bad credentials, no such database, no such table or column, no
            // permission, a read-only transaction.
            _ if code.starts_with("28")
                || matches!(code, "3D000" | "42P01" | "42703" | "42501" | "25006") =>
            {
                StoreErrorKind::Misconfigured
            }
            _ => StoreErrorKind::Other,
        }
    }
}

impl Kind for deadpool_postgres::PoolError {
    fn kind(&self) -> StoreErrorKind {
        match self {
            deadpool_postgres::PoolError::Backend(error) => error.kind(),
            deadpool_postgres::PoolError::Timeout(_) => StoreErrorKind::Timeout,
            deadpool_postgres::PoolError::Closed => StoreErrorKind::Unavailable,
            deadpool_postgres::PoolError::NoRuntimeSpecified => StoreErrorKind::Misconfigured,
            deadpool_postgres::PoolError::PostCreateHook(_) => StoreErrorKind::Other,
        }
    }
}

impl Kind for deadpool_postgres::BuildError {
    fn kind(&self) -> StoreErrorKind {
        StoreErrorKind::Misconfigured
    }
}

fn to_sql(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// Column `index` of a row read back, as a `T`: a stored record is hostile input
/// too, so a column of another type, or NULL where a value belongs, is a
/// [`StoreErrorKind::Corrupt`] error keeping the driver's error, where `Row::get`
/// would panic.
fn column<'r, T: tokio_postgres::types::FromSql<'r>>(
    row: &'r tokio_postgres::Row,
    index: usize,
) -> Result<T, StoreError> {
    row.try_get(index)
        .map_err(|error| store_error(StoreErrorKind::Corrupt, &error).caused_by(error))
}

fn from_sql(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// Whether `error` says the database could not be reached, rather than that it
/// refused the statement: the connection was lost or refused (no SQLSTATE), or the
/// server said so (class 08, connection exception; 57P01 to 57P03, the server
/// shutting down or starting).
fn unreachable(error: &tokio_postgres::Error) -> bool {
    match error.code() {
        Some(state) => {
            let code = state.code();
            code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03")
        }
        None => {
            error.is_closed()
                || std::error::Error::source(error)
                    .is_some_and(<dyn std::error::Error>::is::<std::io::Error>)
        }
    }
}

/// [`unreachable`] for a connection asked of the pool.
fn pool_unreachable(error: &deadpool_postgres::PoolError) -> bool {
    match error {
        deadpool_postgres::PoolError::Backend(error) => unreachable(error),
        deadpool_postgres::PoolError::Timeout(_) => true,
        _ => false,
    }
}

impl PostgresApprovalStore {
    /// Connects to `url` (`postgres://user:password@host:port/database`, or the
    /// key-value form) with a pool of 16 connections, and creates or migrates the
    /// tables.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let mut config: tokio_postgres::Config = url
            .parse()
            .map_err(|error| store_error(StoreErrorKind::Misconfigured, &error).caused_by(error))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(WAIT);
        }
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                // A connection the server dropped (a restart) is noticed and
                // replaced before it is handed out.
                recycling_method: RecyclingMethod::Fast,
            },
        );
        // Waiting for a free connection, or for a new one, is bounded too: a
        // stalled database fails calls within seconds instead of queueing them.
        let pool = Pool::builder(manager)
            .max_size(16)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .wait_timeout(Some(WAIT))
            .create_timeout(Some(WAIT))
            .recycle_timeout(Some(WAIT))
            .build()
            .map_err(db_error)?;
        Self::from_pool(pool).await
    }

    /// Uses `pool`, and creates or migrates the tables.
    pub async fn from_pool(pool: Pool) -> Result<Self, StoreError> {
        let store = PostgresApprovalStore {
            pool,
            shift: Arc::new(|| 0),
            purges: PurgePace::default(),
            run_end_retry: RUN_END_RETRY,
            wait: WAIT,
        };
        store.migrate().await?;
        Ok(store)
    }

    /// Shifts the database's clock by `shift()` seconds, for tests that travel in
    /// time; a deployment leaves it alone.
    #[must_use]
    pub fn clock_shift(mut self, shift: impl Fn() -> i64 + Send + Sync + 'static) -> Self {
        self.shift = Arc::new(shift);
        self
    }

    /// How long the end of a run ([`ApprovalStore::complete`],
    /// [`ApprovalStore::release`]) is retried while the database cannot be reached
    /// (30 seconds unless set; zero tries once). The caller's answer waits for it.
    /// A run whose end is not yet recorded when its lease
    /// ([`Approvals::run_lease`](super::Approvals::run_lease)) ends may be run
    /// again by the next presentation; a release recorded late never frees a later
    /// attempt's claim.
    #[must_use]
    pub fn retry_run_ends_for(mut self, retry: Duration) -> Self {
        self.run_end_retry = retry;
        self
    }

    /// How long one operation of the store may wait for the database (5 seconds
    /// unless set): past it, the caller is told that the approval store failed and
    /// nothing ran, and to try again. A stalled database (paused, its network cut)
    /// never hangs a caller, nor holds a run's claim past its lease. The end of a
    /// run waits this long per try, within
    /// [`retry_run_ends_for`](Self::retry_run_ends_for).
    ///
    /// [`connect`](Self::connect) bounds the connection's set-up and the wait
    /// for a pooled connection by the same 5 seconds; a pool given to
    /// [`from_pool`](Self::from_pool) keeps its own timeouts.
    #[must_use]
    pub fn wait_at_most(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }

    /// The pool, to share with the application.
    #[must_use]
    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    /// `operation`, or a store error once it has waited [`Self::wait_at_most`].
    fn bounded<'a, T: Send + 'a>(
        &'a self,
        operation: impl Future<Output = Result<T, StoreError>> + Send + 'a,
    ) -> StoreFuture<'a, T> {
        Box::pin(async move {
            match tokio::time::timeout(self.wait, operation).await {
                Ok(done) => done,
                Err(_) => Err(self.stalled()),
            }
        })
    }

    fn stalled(&self) -> StoreError {
        store_error(
            StoreErrorKind::Timeout,
            format_args!(
                "no answer within {} ms; the database may be stalled",
                self.wait.as_millis()
            ),
        )
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.pool.get().await.map_err(db_error)
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let transaction = client.transaction().await.map_err(db_error)?;
        transaction
            .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await
            .map_err(db_error)?;
        transaction
            .batch_execute(
                "CREATE TABLE IF NOT EXISTS toolkit_approval_schema (version INTEGER NOT NULL);",
            )
            .await
            .map_err(db_error)?;
        let version: i32 = match transaction
            .query_opt("SELECT version FROM toolkit_approval_schema", &[])
            .await
            .map_err(db_error)?
        {
            Some(row) => column(&row, 0)?,
            None => 0,
        };
        let start = usize::try_from(version).unwrap_or(0);
        if start > MIGRATIONS.len() {
            return Err(store_error(
                StoreErrorKind::Misconfigured,
                format_args!(
                    "the approval tables are at version {version}, newer than this build \
                     knows ({}); upgrade toolkit",
                    MIGRATIONS.len()
                ),
            ));
        }
        for migration in MIGRATIONS.iter().skip(start) {
            transaction
                .batch_execute(migration)
                .await
                .map_err(db_error)?;
        }
        let latest = i32::try_from(MIGRATIONS.len()).unwrap_or(i32::MAX);
        transaction
            .execute("DELETE FROM toolkit_approval_schema", &[])
            .await
            .map_err(db_error)?;
        transaction
            .execute(
                "INSERT INTO toolkit_approval_schema (version) VALUES ($1)",
                &[&latest],
            )
            .await
            .map_err(db_error)?;
        transaction.commit().await.map_err(db_error)
    }

    /// Runs `statement`, an idempotent `UPDATE` that ends a run, on a connection
    /// of its own each try, until it succeeds, the database refuses it, or the
    /// retry time is spent.
    async fn end_run(
        &self,
        statement: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<u64, StoreError> {
        let give_up = tokio::time::Instant::now() + self.run_end_retry;
        let mut pause = RUN_END_PAUSE;
        loop {
            let attempt = async {
                match self.pool.get().await {
                    Ok(client) => match client.execute(statement, params).await {
                        Ok(updated) => Ok(updated),
                        Err(error) => {
                            let retry = unreachable(&error);
                            Err((db_error(error), retry))
                        }
                    },
                    Err(error) => {
                        let retry = pool_unreachable(&error);
                        Err((db_error(error), retry))
                    }
                }
            };
            // A try that gets no answer is a database that cannot be reached.
            let (error, retry) = match tokio::time::timeout(self.wait, attempt).await {
                Ok(Ok(updated)) => return Ok(updated),
                Ok(Err(failed)) => failed,
                Err(_) => (self.stalled(), true),
            };
            if !retry || tokio::time::Instant::now() + pause > give_up {
                return Err(error);
            }
            tracing::warn!(%error, "the end of an approved run could not be recorded yet; trying again");
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(RUN_END_PAUSE_MAX);
        }
    }

    async fn now_at(&self, client: &deadpool_postgres::Object) -> Result<u64, StoreError> {
        let shift = (self.shift)();
        let row = client
            .query_one(&format!("SELECT {NOW}"), &[&shift])
            .await
            .map_err(db_error)?;
        Ok(from_sql(column(&row, 0)?))
    }

    async fn purge_with(&self, client: &deadpool_postgres::Object) -> Result<u64, StoreError> {
        let shift = (self.shift)();
        let mut purged = 0;
        for table in [
            "toolkit_pending_approvals",
            "toolkit_approval_decisions",
            "toolkit_approval_claims",
            "toolkit_approval_refusals",
        ] {
            purged += client
                .execute(
                    &format!("DELETE FROM {table} WHERE keep_until < {NOW}"),
                    &[&shift],
                )
                .await
                .map_err(db_error)?;
        }
        Ok(purged)
    }

    /// Purges when this process has not for a minute ([`PurgePace`]).
    async fn maybe_purge(&self, client: &deadpool_postgres::Object) -> Result<(), StoreError> {
        if self.purges.due() {
            self.purge_with(client).await?;
        }
        Ok(())
    }
}

fn decision_from_row(row: &tokio_postgres::Row) -> Result<DecisionRecord, StoreError> {
    decision_from_row_at(row, 0)
}

/// A decision from the row's columns `at`, `at + 1`, ... (principal, call id, tool,
/// verdict, digest, message, decided by, decided at, arguments).
fn decision_from_row_at(
    row: &tokio_postgres::Row,
    at: usize,
) -> Result<DecisionRecord, StoreError> {
    let verdict: String = column(row, at + 3)?;
    Ok(DecisionRecord {
        principal: column(row, at)?,
        call_id: column(row, at + 1)?,
        tool: column(row, at + 2)?,
        verdict: Verdict::from_name(&verdict).ok_or_else(|| {
            store_error(
                StoreErrorKind::Corrupt,
                format_args!("unknown verdict `{verdict}`"),
            )
        })?,
        digest: column(row, at + 4)?,
        message: column(row, at + 5)?,
        decided_by: column(row, at + 6)?,
        decided_at: from_sql(column(row, at + 7)?),
        arguments: column::<Option<String>>(row, at + 8)?
            .map(|arguments| serde_json::from_str(&arguments).map_err(corrupt))
            .transpose()?,
    })
}

/// The rows of an audit list (`select`: its columns and table) that pass
/// `query`'s filters, newest first by the `at` column (then `tie_break`), at most
/// its limit.
async fn audit_rows(
    client: &deadpool_postgres::Object,
    select: &str,
    at: &str,
    tie_break: &str,
    query: &DecisionQuery,
) -> Result<Vec<tokio_postgres::Row>, StoreError> {
    let limit = to_sql(query.bounded_limit()? as u64);
    client
        .query(
            &format!(
                "{select}
                 WHERE (cardinality($1::text[]) = 0 OR principal = ANY($1))
                   AND (cardinality($2::text[]) = 0 OR tool = ANY($2))
                   AND ($3::bigint IS NULL OR {at} >= $3)
                   AND ($4::bigint IS NULL OR {at} < $4)
                 ORDER BY {at} DESC, {tie_break}
                 LIMIT $5"
            ),
            &[
                &query.principals,
                &query.tools,
                &query.decided_after.map(to_sql),
                &query.decided_before.map(to_sql),
                &limit,
            ],
        )
        .await
        .map_err(db_error)
}

/// The decision on `call_id` of `principal`, if one is recorded.
async fn decision_of(
    client: &deadpool_postgres::Object,
    principal: &Principal,
    call_id: &str,
) -> Result<Option<DecisionRecord>, StoreError> {
    let row = client
        .query_opt(
            "SELECT principal, call_id, tool, verdict, digest, message, decided_by,
                    decided_at, arguments
             FROM toolkit_approval_decisions WHERE principal = $1 AND call_id = $2",
            &[&principal, &call_id],
        )
        .await
        .map_err(db_error)?;
    row.as_ref().map(decision_from_row).transpose()
}

/// Inserts `pending` unless one with its principal and call id is stored;
/// whether it did.
async fn insert_pending<C: tokio_postgres::GenericClient + Sync>(
    client: &C,
    pending: &PendingApproval,
) -> Result<bool, StoreError> {
    let inserted = client
        .execute(
            "INSERT INTO toolkit_pending_approvals (principal, call_id, tool, arguments,
                 digest, requested_at, expires_at, signature, keep_until, view)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             ON CONFLICT (principal, call_id) DO NOTHING",
            &[
                &pending.principal,
                &pending.call_id,
                &pending.tool,
                &pending.arguments.to_string(),
                &pending.digest,
                &to_sql(pending.requested_at),
                &to_sql(pending.expires_at),
                &pending.signature,
                &to_sql(pending.expires_at.saturating_add(CLOCK_SKEW_SECONDS)),
                &pending.view,
            ],
        )
        .await
        .map_err(db_error)?;
    Ok(inserted == 1)
}

fn pending_from_row(row: &tokio_postgres::Row) -> Result<PendingApproval, StoreError> {
    let arguments: String = column(row, 3)?;
    Ok(PendingApproval {
        principal: column(row, 0)?,
        call_id: column(row, 1)?,
        tool: column(row, 2)?,
        arguments: serde_json::from_str(&arguments).map_err(corrupt)?,
        digest: column(row, 4)?,
        requested_at: from_sql(column(row, 5)?),
        expires_at: from_sql(column(row, 6)?),
        signature: column(row, 7)?,
        view: column(row, 8)?,
    })
}

impl PostgresApprovalStore {
    /// The undecided, unexpired pending approvals that pass `query`, newest first:
    /// principal, call id, tool, the arguments (NULL when their JSON text is longer
    /// than `arguments_up_to` bytes), digest, requested at, expires at, signature,
    /// view, the arguments' length in bytes and their first characters.
    async fn pending_rows(
        &self,
        client: &deadpool_postgres::Object,
        query: &PendingQuery,
        arguments_up_to: i64,
    ) -> Result<Vec<tokio_postgres::Row>, StoreError> {
        let limit = to_sql(query.bounded_limit()? as u64);
        let before = query.before.as_ref();
        let start = to_sql(CUT_ARGUMENTS_START_CHARS as u64);
        client
            .query(
                &format!(
                    "SELECT p.principal, p.call_id, p.tool,
                            CASE WHEN octet_length(p.arguments) <= $10::bigint THEN p.arguments END,
                            p.digest, p.requested_at, p.expires_at, p.signature, p.view,
                            octet_length(p.arguments), left(p.arguments, $11::int)
                     FROM toolkit_pending_approvals p
                     WHERE p.expires_at >= {NOW}
                       AND NOT EXISTS (SELECT 1 FROM toolkit_approval_decisions d
                                       WHERE d.principal = p.principal
                                         AND d.call_id = p.call_id)
                       AND (cardinality($2::text[]) = 0 OR p.principal = ANY($2))
                       AND (cardinality($3::text[]) = 0 OR p.tool = ANY($3))
                       AND ($4::bigint IS NULL OR p.requested_at >= $4)
                       AND ($5::bigint IS NULL OR p.requested_at < $5)
                       AND ($7::bigint IS NULL
                            OR (p.requested_at, p.principal, p.call_id)
                               < ($7::bigint, $8::text, $9::text))
                     ORDER BY p.requested_at DESC, p.principal DESC, p.call_id DESC
                     LIMIT $6"
                ),
                &[
                    &(self.shift)(),
                    &query.principals,
                    &query.tools,
                    &query.requested_after.map(to_sql),
                    &query.requested_before.map(to_sql),
                    &limit,
                    &before.map(|cursor| to_sql(cursor.requested_at)),
                    &before.map(|cursor| cursor.principal.key()),
                    &before.map(|cursor| cursor.call_id.as_str()),
                    &arguments_up_to,
                    &i32::try_from(start).unwrap_or(i32::MAX),
                ],
            )
            .await
            .map_err(db_error)
    }
}

impl ApprovalStore for PostgresApprovalStore {
    fn now(&self) -> StoreFuture<'_, u64> {
        self.bounded(async move {
            let client = self.client().await?;
            self.now_at(&client).await
        })
    }

    fn save_pending<'a>(&'a self, pending: &'a PendingApproval) -> StoreFuture<'a, bool> {
        self.bounded(async move {
            let client = self.client().await?;
            let client: &tokio_postgres::Client = &client;
            insert_pending(client, pending).await
        })
    }

    fn save_pending_capped<'a>(
        &'a self,
        pending: &'a PendingApproval,
        caps: PendingCaps,
    ) -> StoreFuture<'a, SavedPending> {
        self.bounded(async move {
            let mut client = self.client().await?;
            let transaction = client.transaction().await.map_err(db_error)?;
            // Capped saves of one principal wait for each other here, until commit:
            // each counts what the one before it inserted.
            transaction
                .execute(
                    "SELECT pg_advisory_xact_lock($1, hashtext($2))",
                    &[&PENDING_CAP_LOCK, &pending.principal],
                )
                .await
                .map_err(db_error)?;
            let cap = |cap: Option<u32>| cap.map(i64::from);
            let row = transaction
                .query_one(
                    &format!(
                        "SELECT
                             EXISTS (SELECT 1 FROM toolkit_pending_approvals
                                     WHERE principal = $2 AND call_id = $3),
                             (SELECT count(*) FROM (
                                 SELECT 1 FROM toolkit_pending_approvals p
                                 WHERE p.principal = $2 AND p.expires_at >= {NOW}
                                   AND NOT EXISTS (SELECT 1 FROM toolkit_approval_decisions d
                                                   WHERE d.principal = p.principal
                                                     AND d.call_id = p.call_id)
                                 LIMIT COALESCE($5::bigint, 0)) waiting),
                             (SELECT count(*) FROM (
                                 SELECT 1 FROM toolkit_pending_approvals p
                                 WHERE p.principal = $2 AND p.tool = $4 AND p.expires_at >= {NOW}
                                   AND NOT EXISTS (SELECT 1 FROM toolkit_approval_decisions d
                                                   WHERE d.principal = p.principal
                                                     AND d.call_id = p.call_id)
                                 LIMIT COALESCE($6::bigint, 0)) waiting)"
                    ),
                    &[
                        &(self.shift)(),
                        &pending.principal,
                        &pending.call_id,
                        &pending.tool,
                        &cap(caps.per_principal),
                        &cap(caps.per_tool),
                    ],
                )
                .await
                .map_err(db_error)?;
            if column::<bool>(&row, 0)? {
                return Ok(SavedPending::AlreadySaved);
            }
            let waiting = from_sql(column(&row, 1)?);
            let of_tool = from_sql(column(&row, 2)?);
            if let Some(full) = caps.full(waiting, of_tool) {
                return Ok(full);
            }
            let inserted = {
                let transaction: &tokio_postgres::Transaction<'_> = &transaction;
                insert_pending(transaction, pending).await?
            };
            transaction.commit().await.map_err(db_error)?;
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
        self.bounded(async move {
            let client = self.client().await?;
            let rows = self.pending_rows(&client, query, i64::MAX).await?;
            rows.iter().map(pending_from_row).collect()
        })
    }

    fn list_pending_cut<'a>(
        &'a self,
        query: &'a PendingQuery,
        arguments_up_to: usize,
    ) -> StoreFuture<'a, Vec<ListedPending>> {
        self.bounded(async move {
            let client = self.client().await?;
            // The arguments are cut by the query: a call whose arguments are
            // megabytes long costs the list its length and first characters.
            let rows = self
                .pending_rows(&client, query, to_sql(arguments_up_to as u64))
                .await?;
            rows.iter()
                .map(|row| {
                    let arguments = column::<Option<String>>(row, 3)?
                        .map(|text| serde_json::from_str(&text).map_err(corrupt))
                        .transpose()?;
                    let pending = PendingApproval {
                        principal: column(row, 0)?,
                        call_id: column(row, 1)?,
                        tool: column(row, 2)?,
                        arguments: serde_json::Value::Null,
                        digest: column(row, 4)?,
                        requested_at: from_sql(column(row, 5)?),
                        expires_at: from_sql(column(row, 6)?),
                        signature: column(row, 7)?,
                        view: column(row, 8)?,
                    };
                    let bytes = usize::try_from(column::<i32>(row, 9)?).unwrap_or(usize::MAX);
                    Ok(ListedPending::from_parts(
                        pending,
                        arguments,
                        bytes,
                        column(row, 10)?,
                    ))
                })
                .collect()
        })
    }

    fn pending<'a>(
        &'a self,
        principal: &'a Principal,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<PendingApproval>> {
        self.bounded(async move {
            let client = self.client().await?;
            let row = client
                .query_opt(
                    "SELECT principal, call_id, tool, arguments, digest,
                            requested_at, expires_at, signature, view
                     FROM toolkit_pending_approvals WHERE principal = $1 AND call_id = $2",
                    &[&principal, &call_id],
                )
                .await
                .map_err(db_error)?;
            row.as_ref().map(pending_from_row).transpose()
        })
    }

    fn record_decision<'a>(
        &'a self,
        record: &'a DecisionRecord,
        keep_until: u64,
    ) -> StoreFuture<'a, DecisionOutcome> {
        self.bounded(async move {
            let client = self.client().await?;
            let won = client
                .query_opt(
                    "INSERT INTO toolkit_approval_decisions (principal, call_id, tool, verdict,
                         digest, message, decided_by, decided_at, keep_until, arguments)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                     ON CONFLICT (principal, call_id) DO NOTHING
                     RETURNING 1",
                    &[
                        &record.principal,
                        &record.call_id,
                        &record.tool,
                        &record.verdict.as_str(),
                        &record.digest,
                        &record.message,
                        &record.decided_by,
                        &to_sql(record.decided_at),
                        &to_sql(keep_until),
                        &record.arguments.as_ref().map(serde_json::Value::to_string),
                    ],
                )
                .await
                .map_err(db_error)?;
            if won.is_some() {
                return Ok(DecisionOutcome::Recorded);
            }
            let winner = decision_of(&client, &record.principal, &record.call_id).await?;
            // Purged between the two statements: only possible past its
            // retention, when nothing signed for the call is valid any more.
            Ok(DecisionOutcome::AlreadyDecided(Box::new(
                winner.unwrap_or_else(|| record.clone()),
            )))
        })
    }

    fn decision<'a>(
        &'a self,
        principal: &'a Principal,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<DecisionRecord>> {
        self.bounded(async move {
            let client = self.client().await?;
            decision_of(&client, principal, call_id).await
        })
    }

    fn decisions<'a>(&'a self, query: &'a DecisionQuery) -> StoreFuture<'a, Vec<DecisionRecord>> {
        self.bounded(async move {
            let client = self.client().await?;
            let rows = audit_rows(
                &client,
                "SELECT principal, call_id, tool, verdict, digest, message, decided_by,
                        decided_at, arguments
                 FROM toolkit_approval_decisions",
                "decided_at",
                "principal DESC, call_id DESC",
                query,
            )
            .await?;
            rows.iter().map(decision_from_row).collect()
        })
    }

    fn claim<'a>(
        &'a self,
        key: &'a str,
        lease_until: u64,
        keep_until: u64,
    ) -> StoreFuture<'a, Claim> {
        self.bounded(async move {
            let client = self.client().await?;
            let shift = (self.shift)();
            // One statement: of concurrent claims, the primary key lets one insert,
            // and the row lock lets one take over an ended lease.
            let won = client
                .query_opt(
                    &format!(
                        "INSERT INTO toolkit_approval_claims AS claim
                             (key, keep_until, done, lease_until, attempt)
                         VALUES ($2, $3, FALSE, $4, 1)
                         ON CONFLICT (key) DO UPDATE SET
                             lease_until = EXCLUDED.lease_until,
                             attempt = claim.attempt + 1,
                             keep_until = GREATEST(claim.keep_until, EXCLUDED.keep_until)
                         WHERE NOT claim.done AND claim.lease_until < {NOW}
                         RETURNING attempt"
                    ),
                    &[&shift, &key, &to_sql(keep_until), &to_sql(lease_until)],
                )
                .await
                .map_err(db_error)?;
            let claim = match won {
                Some(row) => Claim::Won {
                    attempt: u32::try_from(column::<i32>(&row, 0)?).unwrap_or(u32::MAX),
                },
                // Lost: only what the winner left, for the caller's message.
                None => match client
                    .query_opt(
                        "SELECT done, lease_until FROM toolkit_approval_claims WHERE key = $1",
                        &[&key],
                    )
                    .await
                    .map_err(db_error)?
                {
                    Some(row) if !column::<bool>(&row, 0)? => Claim::Held {
                        lease_until: from_sql(column(&row, 1)?),
                    },
                    // Done, or purged since: only past its retention.
                    _ => Claim::Done,
                },
            };
            // After the claim, so a failing purge never stands in its way.
            if let Err(error) = self.maybe_purge(&client).await {
                tracing::warn!(%error, "purging expired approval records failed");
            }
            Ok(claim)
        })
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        attempt: u32,
        outcome: &'a RunOutcome,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let attempt = i32::try_from(attempt).unwrap_or(i32::MAX);
            let updated = self
                .end_run(
                    &format!(
                        "UPDATE toolkit_approval_claims
                         SET lease_until = 0, outcome = $3, ended_at = {NOW4}
                         WHERE key = $1 AND attempt = $2 AND NOT done"
                    ),
                    &[&key, &attempt, &outcome.to_json(), &(self.shift)()],
                )
                .await?;
            Ok(updated == 1)
        })
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        attempt: u32,
        outcome: &'a RunOutcome,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let attempt = i32::try_from(attempt).unwrap_or(i32::MAX);
            // Fenced on the attempt: only the claim's holder ends it. Completing
            // again (a retry whose first answer was lost) keeps the first outcome.
            let updated = self
                .end_run(
                    &format!(
                        "UPDATE toolkit_approval_claims
                         SET outcome = CASE WHEN done THEN outcome ELSE $3 END,
                             ended_at = CASE WHEN done THEN ended_at ELSE {NOW4} END,
                             done = TRUE
                         WHERE key = $1 AND attempt = $2"
                    ),
                    &[&key, &attempt, &outcome.to_json(), &(self.shift)()],
                )
                .await?;
            Ok(updated == 1)
        })
    }

    fn renew<'a>(&'a self, key: &'a str, attempt: u32, lease_until: u64) -> StoreFuture<'a, bool> {
        self.bounded(async move {
            let client = self.client().await?;
            let attempt = i32::try_from(attempt).unwrap_or(i32::MAX);
            let updated = client
                .execute(
                    "UPDATE toolkit_approval_claims
                     SET lease_until = GREATEST(lease_until, $3)
                     WHERE key = $1 AND attempt = $2 AND NOT done AND lease_until > 0",
                    &[&key, &attempt, &to_sql(lease_until)],
                )
                .await
                .map_err(db_error)?;
            Ok(updated == 1)
        })
    }

    fn run<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<RunRecord>> {
        self.bounded(async move {
            let client = self.client().await?;
            let row = client
                .query_opt(
                    "SELECT attempt, done, lease_until, outcome, ended_at
                     FROM toolkit_approval_claims WHERE key = $1",
                    &[&key],
                )
                .await
                .map_err(db_error)?;
            let Some(row) = row else {
                return Ok(None);
            };
            let record = RunRecord::new(
                u32::try_from(column::<i32>(&row, 0)?).unwrap_or(u32::MAX),
                column(&row, 1)?,
                from_sql(column(&row, 2)?),
                column::<Option<String>>(&row, 3)?
                    .as_deref()
                    .map(RunOutcome::from_json)
                    .transpose()
                    .map_err(|error| {
                        store_error(StoreErrorKind::Corrupt, &error).caused_by(error)
                    })?,
            );
            Ok(Some(match column::<Option<i64>>(&row, 4)? {
                Some(ended_at) => record.ended_at(from_sql(ended_at)),
                None => record,
            }))
        })
    }

    fn lapsed_claims<'a>(&'a self, prefix: &'a str, limit: usize) -> StoreFuture<'a, Vec<String>> {
        self.bounded(async move {
            let client = self.client().await?;
            let shift = (self.shift)();
            let rows = client
                .query(
                    &format!(
                        "SELECT key FROM toolkit_approval_claims
                         WHERE NOT done AND lease_until < {NOW} AND keep_until >= {NOW}
                           AND starts_with(key, $2)
                         ORDER BY lease_until, key
                         LIMIT $3"
                    ),
                    &[&shift, &prefix, &to_sql(limit.min(MAX_QUERY_LIMIT) as u64)],
                )
                .await
                .map_err(db_error)?;
            rows.iter().map(|row| column(row, 0)).collect()
        })
    }

    fn approved_unsettled(
        &self,
        decided_after: u64,
        decided_before: u64,
        limit: usize,
    ) -> StoreFuture<'_, Vec<(PendingApproval, DecisionRecord)>> {
        self.bounded(async move {
            let client = self.client().await?;
            let rows = client
                .query(
                    "SELECT p.principal, p.call_id, p.tool, p.arguments, p.digest,
                            p.requested_at, p.expires_at, p.signature, p.view,
                            d.principal, d.call_id, d.tool, d.verdict, d.digest, d.message,
                            d.decided_by, d.decided_at, d.arguments
                     FROM toolkit_approval_decisions d
                     JOIN toolkit_pending_approvals p USING (principal, call_id)
                     WHERE NOT d.settled AND d.verdict <> 'denied'
                       AND d.decided_at >= $1 AND d.decided_at < $2
                     ORDER BY d.decided_at, d.principal, d.call_id
                     LIMIT $3",
                    &[
                        &to_sql(decided_after),
                        &to_sql(decided_before),
                        &to_sql(limit.min(MAX_QUERY_LIMIT) as u64),
                    ],
                )
                .await
                .map_err(db_error)?;
            rows.iter()
                .map(|row| Ok((pending_from_row(row)?, decision_from_row_at(row, 9)?)))
                .collect()
        })
    }

    fn settle<'a>(&'a self, principal: &'a Principal, call_id: &'a str) -> StoreFuture<'a, bool> {
        self.bounded(async move {
            let client = self.client().await?;
            let updated = client
                .execute(
                    "UPDATE toolkit_approval_decisions SET settled = TRUE
                     WHERE principal = $1 AND call_id = $2",
                    &[&principal, &call_id],
                )
                .await
                .map_err(db_error)?;
            Ok(updated == 1)
        })
    }

    fn record_refusal<'a>(
        &'a self,
        refusal: &'a RefusalRecord,
        keep_until: u64,
    ) -> StoreFuture<'a, ()> {
        self.bounded(async move {
            let client = self.client().await?;
            client
                .execute(
                    "INSERT INTO toolkit_approval_refusals (principal, call_id, tool, decided_by,
                         reason, refused_at, keep_until)
                     VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    &[
                        &refusal.principal,
                        &refusal.call_id,
                        &refusal.tool,
                        &refusal.decided_by,
                        &refusal.reason,
                        &to_sql(refusal.refused_at),
                        &to_sql(keep_until),
                    ],
                )
                .await
                .map_err(db_error)?;
            Ok(())
        })
    }

    fn refusals<'a>(&'a self, query: &'a DecisionQuery) -> StoreFuture<'a, Vec<RefusalRecord>> {
        self.bounded(async move {
            let client = self.client().await?;
            let rows = audit_rows(
                &client,
                "SELECT principal, call_id, tool, decided_by, reason, refused_at
                 FROM toolkit_approval_refusals",
                "refused_at",
                "id DESC",
                query,
            )
            .await?;
            rows.iter()
                .map(|row| {
                    Ok(RefusalRecord {
                        principal: column(row, 0)?,
                        call_id: column(row, 1)?,
                        tool: column(row, 2)?,
                        decided_by: column(row, 3)?,
                        reason: column(row, 4)?,
                        refused_at: from_sql(column(row, 5)?),
                    })
                })
                .collect()
        })
    }

    fn purge(&self) -> StoreFuture<'_, u64> {
        self.bounded(async move {
            let client = self.client().await?;
            self.purge_with(&client).await
        })
    }
}

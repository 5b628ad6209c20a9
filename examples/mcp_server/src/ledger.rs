//! A ledger of transfers in `PostgreSQL`: the example's `approve` tool whose effect
//! lives outside the process, made exactly-once with the approved run's key.
//!
//! The approval store runs an approved call to completion once; a run that dies
//! mid-way (its replica killed, its request dropped) runs again after its lease,
//! with the same [`ApprovedRun::key`]. The effect below is one `INSERT` keyed by
//! that run key, so a second attempt finds the first one's row instead of moving
//! the money twice: the part of exactly-once only the tool can do. The attempt is
//! a fencing token: an attempt that lost its claim (its replica frozen past the
//! lease) and wakes after a later one wrote the row changes nothing.

use std::sync::Arc;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use serde_json::{Value, json};
use tokio_postgres::NoTls;
use toolkit::approval::ApprovedRun;
use toolkit::{State, ToolError, tool};

/// How long the ledger waits for the database: a connection, a pooled
/// connection, one statement.
const WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The tool's group: shown only by a server with a ledger.
pub const LEDGER_GROUP: &str = "ledger";

/// The transfers, notes and reports tables, made once (under an advisory lock, so replicas starting
/// together do not race on `CREATE TABLE`).
const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS mcp_server_transfers (
    run_key TEXT PRIMARY KEY,
    reference TEXT NOT NULL,
    amount_cents BIGINT NOT NULL,
    replica TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 1,
    recorded_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS mcp_server_notes (
    id BIGSERIAL PRIMARY KEY,
    reference TEXT NOT NULL,
    replica TEXT NOT NULL,
    recorded_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS mcp_server_reports (
    run_key TEXT PRIMARY KEY,
    reference TEXT NOT NULL,
    replica TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 1,
    started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    stopped_at TIMESTAMPTZ,
    finished_at TIMESTAMPTZ
)";

/// The ledger: a pool on the database, and the name of this replica (written
/// beside each transfer, to see where it ran).
#[derive(Clone)]
pub struct Ledger {
    pool: Pool,
    replica: Arc<str>,
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger")
            .field("replica", &self.replica)
            .finish_non_exhaustive()
    }
}

impl Ledger {
    /// The ledger in the database at `url`, its table created if missing.
    pub async fn connect(url: &str, replica: &str) -> Result<Self, String> {
        let mut config: tokio_postgres::Config = url.parse().map_err(|error| format!("{error}"))?;
        config.connect_timeout(WAIT);
        // The database's view of who is waiting on what names the replica.
        config.application_name(format!("mcp_server {replica}"));
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        // A stalled database fails a transfer within seconds (the caller is told
        // to try again) instead of holding its request, and its run, open.
        let pool = Pool::builder(manager)
            .max_size(8)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .wait_timeout(Some(WAIT))
            .create_timeout(Some(WAIT))
            .recycle_timeout(Some(WAIT))
            .build()
            .map_err(|error| error.to_string())?;
        let mut client = pool.get().await.map_err(|error| error.to_string())?;
        let transaction = client
            .transaction()
            .await
            .map_err(|error| error.to_string())?;
        transaction
            .execute("SELECT pg_advisory_xact_lock(7370726)", &[])
            .await
            .map_err(|error| error.to_string())?;
        transaction
            .batch_execute(SCHEMA)
            .await
            .map_err(|error| error.to_string())?;
        transaction
            .commit()
            .await
            .map_err(|error| error.to_string())?;
        drop(client);
        Ok(Ledger {
            pool,
            replica: replica.into(),
        })
    }
}

/// Transfer money to a payee, recorded in the ledger under `reference`. Moves real
/// money: a human approves every transfer.
#[tool(scope = assistant, tier = approve, group = "ledger")]
pub async fn create_transfers(
    #[ctx] ledger: State<Ledger>,
    /// The payment's reference, shown on the payee's statement.
    reference: String,
    /// The amount, in cents.
    // Shown to the approver as money (the inbox reads `x-currency`).
    #[schemars(extend("x-currency" = "EUR"))]
    amount_cents: u32,
) -> Result<Value, ToolError> {
    // Only an approved run reaches here (the tool is `approve`); its key is the
    // idempotency key of the transfer.
    let run = ApprovedRun::current()
        .ok_or_else(|| ToolError::failed("a transfer runs only as an approved call"))?;
    let client = ledger.pool.get().await.map_err(|error| {
        ToolError::failed(format!("the ledger is unreachable, try again: {error}"))
    })?;
    // One statement: the first attempt records the transfer; a later attempt of the
    // same approved call (after a crash) only counts itself. The attempt is the
    // run's fencing token: an earlier attempt arriving late (its replica frozen
    // past its lease while a later one took over) changes nothing.
    let (cents, attempt) = (
        i64::from(amount_cents),
        i32::try_from(run.attempt).unwrap_or(i32::MAX),
    );
    let replica: &str = &ledger.replica;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 5] =
        [&run.key, &reference, &cents, &replica, &attempt];
    let insert = client.query_opt(
        "INSERT INTO mcp_server_transfers AS t (run_key, reference, amount_cents, replica, attempt)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (run_key) DO UPDATE
                 SET attempts = t.attempts + 1, attempt = EXCLUDED.attempt
                 WHERE t.attempt <= EXCLUDED.attempt
             RETURNING reference, amount_cents",
        &params,
    );
    let row = tokio::time::timeout(WAIT, insert)
        .await
        .map_err(|_| ToolError::failed("the ledger did not answer in time, try again"))?
        .map_err(|error| {
            ToolError::failed(format!("the ledger is unreachable, try again: {error}"))
        })?
        .ok_or_else(|| {
            ToolError::failed(
                "a later attempt of this approved transfer took over; this one changed nothing",
            )
        })?;
    let recorded: String = row.get(0);
    let transferred: i64 = row.get(1);
    Ok(json!({ "transferred": transferred, "reference": recorded }))
}

/// Record a note in the ledger under `reference`. Runs at once (`auto`): one row
/// per call, which is what the fleet test counts against the tool's quota
/// (`MCP_QUOTAS=create_notes=...`).
#[tool(scope = shared, tier = auto, group = "ledger")]
pub async fn create_notes(
    #[ctx] ledger: State<Ledger>,
    /// What the note is filed under.
    reference: String,
) -> Result<Value, ToolError> {
    let client = ledger.pool.get().await.map_err(|error| {
        ToolError::failed(format!("the ledger is unreachable, try again: {error}"))
    })?;
    let replica: &str = &ledger.replica;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 2] = [&reference, &replica];
    let insert = client.execute(
        "INSERT INTO mcp_server_notes (reference, replica) VALUES ($1, $2)",
        &params,
    );
    tokio::time::timeout(WAIT, insert)
        .await
        .map_err(|_| ToolError::failed("the ledger did not answer in time, try again"))?
        .map_err(|error| {
            ToolError::failed(format!("the ledger is unreachable, try again: {error}"))
        })?;
    Ok(json!({ "recorded": reference }))
}

/// The longest a report takes to compile, in seconds.
const MAX_REPORT_SECONDS: u32 = 600;

/// Compile a report filed under `reference`: works `seconds` (at most 600), then
/// files it in the ledger. Only ever an MCP task (`task = required`), which a
/// replica runs in the background: the fleet test's long run, taken over by
/// another replica when the one running it dies, stopped where it waits when the
/// task is cancelled.
///
/// One row per task (keyed by [`ApprovedRun::key`], the same for every attempt):
/// written when an attempt starts (`attempts` counts them), `finished_at` set
/// when the report is filed, `stopped_at` when a cancellation stopped it, each by
/// the attempt that holds the row now (an earlier attempt, fenced off, changes
/// nothing). All times are the database's.
#[tool(scope = shared, tier = auto, task = required, group = "ledger")]
pub async fn create_reports(
    #[ctx] ledger: State<Ledger>,
    /// What the report is filed under.
    reference: String,
    /// How long compiling it takes, in seconds.
    seconds: u32,
) -> Result<Value, ToolError> {
    if seconds > MAX_REPORT_SECONDS {
        return Err(ToolError::invalid_arguments(
            "seconds",
            format!("a report takes at most {MAX_REPORT_SECONDS} seconds, not {seconds}"),
        ));
    }
    let run = ApprovedRun::current()
        .ok_or_else(|| ToolError::failed("a report is compiled only as a task"))?;
    let attempt = i32::try_from(run.attempt).unwrap_or(i32::MAX);
    let replica: &str = &ledger.replica;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 4] =
        [&run.key, &reference, &replica, &attempt];
    let started = ledger_query(
        &ledger,
        "INSERT INTO mcp_server_reports AS r (run_key, reference, replica, attempt)
             VALUES ($1, $2, $3, $4)
             ON CONFLICT (run_key) DO UPDATE
                 SET attempts = r.attempts + 1, attempt = EXCLUDED.attempt,
                     replica = EXCLUDED.replica, started_at = now()
                 WHERE r.attempt <= EXCLUDED.attempt AND r.finished_at IS NULL",
        &params,
    )
    .await?;
    if started == 0 {
        return Err(ToolError::failed(
            "this report was filed or taken over by another attempt; this one changed nothing",
        ));
    }
    // Dropped before it is disarmed (the task cancelled mid-way): says when.
    let mut stopped = StoppedGuard {
        ledger: ledger.0.clone(),
        key: run.key.clone(),
        attempt,
        armed: true,
    };
    tokio::time::sleep(std::time::Duration::from_secs(seconds.into())).await;
    stopped.armed = false;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 2] = [&run.key, &attempt];
    let filed = ledger_query(
        &ledger,
        "UPDATE mcp_server_reports SET finished_at = now()
             WHERE run_key = $1 AND attempt = $2 AND finished_at IS NULL",
        &params,
    )
    .await?;
    if filed == 0 {
        return Err(ToolError::failed(
            "a later attempt of this report took over; this one changed nothing",
        ));
    }
    Ok(json!({ "filed": reference, "seconds": seconds }))
}

/// Runs one statement of the ledger within its wait; the rows it changed.
async fn ledger_query(
    ledger: &Ledger,
    statement: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<u64, ToolError> {
    let client = ledger.pool.get().await.map_err(|error| {
        ToolError::failed(format!("the ledger is unreachable, try again: {error}"))
    })?;
    tokio::time::timeout(WAIT, client.execute(statement, params))
        .await
        .map_err(|_| ToolError::failed("the ledger did not answer in time, try again"))?
        .map_err(|error| {
            ToolError::failed(format!("the ledger is unreachable, try again: {error}"))
        })
}

/// Records when a report's run stopped before it was filed: its future dropped
/// (the task cancelled). A killed process records nothing.
struct StoppedGuard {
    ledger: Ledger,
    key: String,
    attempt: i32,
    armed: bool,
}

impl Drop for StoppedGuard {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (ledger, key, attempt) = (self.ledger.clone(), self.key.clone(), self.attempt);
        runtime.spawn(async move {
            let params: [&(dyn tokio_postgres::types::ToSql + Sync); 2] = [&key, &attempt];
            if let Err(error) = ledger_query(
                &ledger,
                "UPDATE mcp_server_reports SET stopped_at = now()
                     WHERE run_key = $1 AND attempt = $2",
                &params,
            )
            .await
            {
                tracing::warn!(%error, "a stopped report's time was not recorded");
            }
        });
    }
}

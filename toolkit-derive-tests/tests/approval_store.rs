//! The contract every approval store keeps, one suite run against each store (the
//! memory and `SQLite` stores; and `PostgreSQL`): a decided
//! pending approval runs once for its whole life (a second decision, an edit, a
//! purge, a store restart), THE decision is recorded once, pending approvals are
//! listed by principal, tool and age, expiry and purging follow the store's clock
//! even when the process's clock is two hours off, keys rotate, and short keys are
//! refused.

// In-memory tools never await.
#![allow(clippy::unused_async)]

#[path = "approval_store/suite.rs"]
mod suite;

use std::sync::Arc;

use toolkit::approval::{
    ApprovalStore, DecisionQuery, MemoryApprovalStore, SqliteApprovalStore, StoreError,
    StoreErrorKind,
};

use suite::{Backend, Clock};

/// A principal the test application names.
fn p(name: &str) -> toolkit::Principal {
    toolkit::Principal::local(name).expect("a principal")
}

use toolkit_test_support::postgres as cluster;

/// One store in memory, shared by every "open" (memory does not survive a restart).
struct Memory(std::sync::OnceLock<Arc<dyn ApprovalStore>>);

impl Backend for Memory {
    fn open<'a>(&'a self, clock: &'a Clock) -> suite::Opening<'a> {
        let store = self
            .0
            .get_or_init(|| Arc::new(MemoryApprovalStore::new().clock(clock.reader())))
            .clone();
        Box::pin(std::future::ready(store))
    }

    fn survives_restart(&self) -> bool {
        false
    }
}

/// A `SQLite` file; every open is a new connection (a restart, or another process).
struct Sqlite(std::path::PathBuf);

impl Sqlite {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!(
            "toolkit-approval-store-{name}-{}.sqlite3",
            std::process::id()
        ));
        let sqlite = Sqlite(path);
        sqlite.remove();
        sqlite
    }

    /// The file and its `-wal` and `-shm` companions.
    fn remove(&self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.0.display()));
        }
    }
}

/// Each test's database is removed when its test ends, passed or failed (some
/// hold 95 MB).
impl Drop for Sqlite {
    fn drop(&mut self) {
        self.remove();
    }
}

impl Backend for Sqlite {
    fn open<'a>(&'a self, clock: &'a Clock) -> suite::Opening<'a> {
        let store: Arc<dyn ApprovalStore> = Arc::new(
            SqliteApprovalStore::open(&self.0)
                .expect("opens")
                .clock(clock.reader()),
        );
        Box::pin(std::future::ready(store))
    }

    fn survives_restart(&self) -> bool {
        true
    }

    fn forget_outcomes(&self) -> bool {
        rusqlite::Connection::open(&self.0)
            .expect("opens")
            .execute_batch(
                "UPDATE toolkit_used_approvals SET outcome = NULL, ended_at = NULL;
                 UPDATE toolkit_pending_approvals SET principal = substr(principal, 16);
                 UPDATE toolkit_approval_decisions SET principal = substr(principal, 16);
                 UPDATE toolkit_approval_refusals SET principal = substr(principal, 16);
                 UPDATE toolkit_approval_decisions SET decided_by = substr(decided_by, 7)
                     WHERE decided_by LIKE 'local|%';
                 UPDATE toolkit_approval_refusals SET decided_by = substr(decided_by, 16)
                     WHERE decided_by LIKE 'toolkit:legacy|%';
                 PRAGMA user_version = 6;",
            )
            .expect("the old shape");
        true
    }
}

macro_rules! contract {
    ($store:ident, $backend:expr) => {
        mod $store {
            use super::*;

            fn run(test: suite::Test) {
                futures_executor::block_on(test(Arc::new($backend)));
            }

            suite::contract_tests!(run);
        }
    };
}

/// The driver's error a store error was caused by.
fn driver_error<E: std::error::Error + 'static>(error: &StoreError) -> &E {
    std::error::Error::source(error)
        .and_then(|cause| cause.downcast_ref::<E>())
        .unwrap_or_else(|| {
            panic!(
                "no {} as the cause of {error:?}",
                std::any::type_name::<E>()
            )
        })
}

/// A `SQLite` failure says what kind it is and keeps rusqlite's error as its cause,
/// its message unchanged: a file that cannot be opened, a record this build cannot
/// read back.
#[test]
fn sqlite_errors_keep_the_drivers_error() {
    let nowhere = std::env::temp_dir()
        .join(format!("toolkit-no-such-directory-{}", std::process::id()))
        .join("approvals.sqlite3");
    let error = SqliteApprovalStore::open(&nowhere).expect_err("no such directory");
    assert_eq!(error.kind(), StoreErrorKind::Unavailable);
    let cause = driver_error::<rusqlite::Error>(&error);
    assert_eq!(
        cause.sqlite_error_code(),
        Some(rusqlite::ErrorCode::CannotOpen)
    );
    assert_eq!(error.to_string(), cause.to_string());

    let sqlite = Sqlite::new("corrupt");
    let path = sqlite.0.clone();
    let store = SqliteApprovalStore::open(&path).expect("opens");
    rusqlite::Connection::open(&path)
        .expect("opens")
        .execute(
            "INSERT INTO toolkit_approval_decisions (principal, call_id, tool, verdict, digest,
                 decided_by, decided_at, keep_until)
             VALUES ('local|user:1', 'call_1', 'delete_projects', 'maybe', 'digest', 'local|admin:1', 1,
                 9999999999)",
            [],
        )
        .expect("a record no build wrote");
    let error = futures_executor::block_on(store.decision(&p("user:1"), "call_1"))
        .expect_err("an unknown verdict");
    assert_eq!(error.kind(), StoreErrorKind::Corrupt);
    assert!(
        matches!(
            driver_error::<rusqlite::Error>(&error),
            rusqlite::Error::FromSqlConversionFailure(..)
        ),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("unknown verdict `maybe`"),
        "{error}"
    );

    // A principal column, or a decider, that holds no principal's key (a free
    // string written by hand after the migration): a corrupt record naming why,
    // never a panic, and never read as some principal.
    for (principal, decided_by) in [("user:2", "local|admin:1"), ("local|user:3", "admin:1")] {
        let connection = rusqlite::Connection::open(&path).expect("opens");
        connection
            .execute(
                "INSERT INTO toolkit_approval_decisions (principal, call_id, tool, verdict,
                     digest, decided_by, decided_at, keep_until)
                 VALUES (?1, 'call_2', 'delete_projects', 'approved', 'digest', ?2, 1,
                     9999999999)",
                [principal, decided_by],
            )
            .expect("a record no build wrote");
        let error = futures_executor::block_on(store.decisions(&DecisionQuery::new()))
            .expect_err("a principal that is no key");
        assert_eq!(error.kind(), StoreErrorKind::Corrupt);
        assert!(
            error.to_string().contains(
                "not a principal's key: a key is `issuer|subject` or `issuer|subject|tenant`"
            ),
            "{principal} {decided_by}: {error}"
        );
        connection
            .execute("DELETE FROM toolkit_approval_decisions", [])
            .expect("cleared");
    }

    // A run's outcome that is not one this build wrote: a corrupt record, not a
    // run whose outcome is unknown.
    rusqlite::Connection::open(&path)
        .expect("opens")
        .execute(
            "INSERT INTO toolkit_used_approvals (key, expires_at, done, lease_until, attempt,
                 outcome, ended_at)
             VALUES ('altered', 9999999999, 1, 0, 1, '{\"ran\": \"maybe\"}', 1)",
            [],
        )
        .expect("an outcome no build wrote");
    let error = futures_executor::block_on(store.run("altered")).expect_err("an altered outcome");
    assert_eq!(error.kind(), StoreErrorKind::Corrupt);
    assert!(
        matches!(
            driver_error::<rusqlite::Error>(&error),
            rusqlite::Error::FromSqlConversionFailure(3, ..)
        ),
        "{error:?}"
    );
}

/// A corrupt record of a call that ran says so: reading the call's state fails as
/// a corrupt record, and whoever reads it (an MCP `tasks/get`, the inbox) is told
/// that what became of the call is not known and that it may have run, never that
/// nothing ran.
#[test]
fn a_corrupt_record_of_a_call_that_ran_says_it_may_have_run() {
    use toolkit::approval::{ApprovalKey, Approvals, ApprovedRun, Decision};
    use toolkit::{Context, Scope, call::CallId};

    let sqlite = Sqlite::new("corrupt-ran");
    let path = sqlite.0.clone();
    let approvals = Approvals::new(
        ApprovalKey::new(*b"0123456789abcdef0123456789abcdef").expect("32 bytes"),
        SqliteApprovalStore::open(&path).expect("opens"),
    );
    let view = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .approvals(&approvals, p("user:7"))
        .build()
        .expect("view");
    let ctx = Context::new()
        .with(suite::Released::default())
        .with(CallId::new("call_ran"));
    futures_executor::block_on(async {
        let toolkit::Response::Pending(pending) =
            view.call("delete_projects", r#"{"id": 3}"#, &ctx).await
        else {
            panic!("waits for approval");
        };
        approvals
            .decide_as(
                toolkit::registry(),
                &pending,
                Decision::Approve,
                &p("admin:1"),
            )
            .await
            .expect("approved");
        assert!(
            approvals
                .run_approved(&view, &ctx, &pending)
                .await
                .is_success()
        );
    });
    rusqlite::Connection::open(&path)
        .expect("opens")
        .execute(
            "UPDATE toolkit_used_approvals SET outcome = '{\"ran\": \"maybe\"}' WHERE key = ?1",
            [ApprovedRun::key_of(&p("user:7"), "call_ran")],
        )
        .expect("a record no build wrote");
    let error = futures_executor::block_on(approvals.status(&p("user:7"), "call_ran"))
        .expect_err("a corrupt record");
    assert!(
        error
            .to_string()
            .starts_with("a record in the approval store is corrupt: "),
        "{error}"
    );
    assert_eq!(
        error.state_unknown().as_deref(),
        Some(
            "a record in the approval store is corrupt, so what became of the call is not \
             known: it may have run; an operator must repair the record"
        )
    );
    assert_eq!(
        toolkit::ToolError::from(error).to_string(),
        "the approval was refused: a record in the approval store is corrupt; an operator \
         must repair it before the call can run; nothing ran"
    );
}

contract!(memory, Memory(std::sync::OnceLock::new()));
contract!(
    sqlite,
    Sqlite::new(&format!("{:?}", std::thread::current().id()))
);

/// A database of its own per test, in one throwaway cluster per test binary
/// (`scripts/postgres.sh`); every open is a new pool (a restart, or another replica).
struct Postgres(String);

impl Backend for Postgres {
    fn open<'a>(&'a self, clock: &'a Clock) -> suite::Opening<'a> {
        Box::pin(async move {
            let store: Arc<dyn ApprovalStore> = Arc::new(
                toolkit::approval::PostgresApprovalStore::connect(&self.0)
                    .await
                    .expect("connects")
                    .clock_shift(clock.shift()),
            );
            store
        })
    }

    fn survives_restart(&self) -> bool {
        true
    }

    fn forget_outcomes(&self) -> bool {
        let cluster = cluster::cluster().expect("a cluster, since this store opened");
        cluster.psql_on(
            &self.0,
            "UPDATE toolkit_approval_claims SET outcome = NULL, ended_at = NULL;
             UPDATE toolkit_pending_approvals SET principal = substr(principal, 16);
             UPDATE toolkit_approval_decisions SET principal = substr(principal, 16);
             UPDATE toolkit_approval_refusals SET principal = substr(principal, 16);
             UPDATE toolkit_approval_decisions SET decided_by = substr(decided_by, 7)
                 WHERE decided_by LIKE 'local|%';
             UPDATE toolkit_approval_refusals SET decided_by = substr(decided_by, 16)
                 WHERE decided_by LIKE 'toolkit:legacy|%';
             UPDATE toolkit_approval_schema SET version = 5;",
        );
        true
    }
}

mod postgres {
    use super::*;

    fn run(test: suite::Test) {
        cluster::on_new_database(|url| test(Arc::new(Postgres(url))));
    }

    suite::contract_tests!(run);

    /// A `PostgreSQL` failure says what kind it is and keeps tokio-postgres's error
    /// as its cause, its message (the database's own words) unchanged: a table gone,
    /// a record this build cannot read back, a server that refuses connections.
    #[test]
    fn errors_keep_the_drivers_error() {
        let Some(cluster) = cluster::cluster() else {
            return;
        };
        let url = cluster.database();
        cluster::runtime().block_on(async {
            let store = toolkit::approval::PostgresApprovalStore::connect(&url)
                .await
                .expect("connects");
            cluster.psql_on(
                &url,
                "INSERT INTO toolkit_approval_decisions (principal, call_id, tool, verdict,
                     digest, decided_by, decided_at, keep_until)
                 VALUES ('local|user:1', 'call_1', 'delete_projects', 'maybe', 'digest', 'local|admin:1',
                     1, 9999999999)",
            );
            let error = store
                .decision(&p("user:1"), "call_1")
                .await
                .expect_err("an unknown verdict");
            assert_eq!(error.kind(), StoreErrorKind::Corrupt);
            assert_eq!(error.to_string(), "PostgreSQL: unknown verdict `maybe`");

            // A stored record is hostile input too: NULL where a value belongs, or a
            // column of another type, is a corrupt record, not a panic.
            cluster.psql_on(
                &url,
                "ALTER TABLE toolkit_approval_decisions ALTER COLUMN digest DROP NOT NULL;
                 INSERT INTO toolkit_approval_decisions (principal, call_id, tool, verdict,
                     digest, decided_by, decided_at, keep_until)
                 VALUES ('local|user:1', 'call_2', 'delete_projects', 'approved', NULL, 'local|admin:1',
                     1, 9999999999)",
            );
            let error = store
                .decision(&p("user:1"), "call_2")
                .await
                .expect_err("a NULL digest");
            assert_eq!(error.kind(), StoreErrorKind::Corrupt, "{error}");
            assert!(
                driver_error::<tokio_postgres::Error>(&error)
                    .to_string()
                    .contains("error deserializing column 4"),
                "{error:?}"
            );
            // A decider that is neither a principal's key nor one of the two
            // words (a free string written by hand after the migration).
            cluster.psql_on(
                &url,
                "INSERT INTO toolkit_approval_decisions (principal, call_id, tool, verdict,
                     digest, decided_by, decided_at, keep_until)
                 VALUES ('local|user:1', 'call_3', 'delete_projects', 'approved', 'digest',
                     'admin:1', 1, 9999999999)",
            );
            let error = store
                .decision(&p("user:1"), "call_3")
                .await
                .expect_err("a decider that is no key");
            assert_eq!(error.kind(), StoreErrorKind::Corrupt, "{error}");
            assert_eq!(
                error.to_string(),
                "PostgreSQL: error deserializing column 6"
            );
            let why = std::error::Error::source(driver_error::<tokio_postgres::Error>(&error))
                .map(ToString::to_string);
            assert_eq!(
                why.as_deref(),
                Some("not a principal's key: a key is `issuer|subject` or `issuer|subject|tenant`")
            );
            // A run's outcome that is not one this build wrote: a corrupt record,
            // not a run whose outcome is unknown.
            cluster.psql_on(
                &url,
                "INSERT INTO toolkit_approval_claims (key, keep_until, done, lease_until, attempt,
                     outcome, ended_at)
                 VALUES ('altered', 9999999999, TRUE, 0, 1, '{\"ran\": \"maybe\"}', 1)",
            );
            let error = store.run("altered").await.expect_err("an altered outcome");
            assert_eq!(error.kind(), StoreErrorKind::Corrupt, "{error}");
            driver_error::<serde_json::Error>(&error);

            cluster.psql_on(
                &url,
                "ALTER TABLE toolkit_approval_claims ALTER COLUMN attempt TYPE BIGINT;
                 INSERT INTO toolkit_approval_claims (key, keep_until, done, lease_until, attempt)
                 VALUES ('stored', 9999999999, TRUE, 0, 1)",
            );
            let error = store.run("stored").await.expect_err("a BIGINT attempt");
            assert_eq!(error.kind(), StoreErrorKind::Corrupt, "{error}");
            assert!(
                error
                    .to_string()
                    .starts_with("PostgreSQL: error deserializing column 0"),
                "{error}"
            );
            driver_error::<tokio_postgres::Error>(&error);

            cluster.psql_on(&url, "ALTER TABLE toolkit_approval_claims RENAME TO moved");
            let error = store
                .claim("call", u64::MAX / 2, u64::MAX / 2)
                .await
                .expect_err("no such table");
            assert_eq!(error.kind(), StoreErrorKind::Misconfigured);
            let cause = driver_error::<tokio_postgres::Error>(&error);
            assert_eq!(
                cause.code(),
                Some(&tokio_postgres::error::SqlState::UNDEFINED_TABLE)
            );
            assert!(
                error
                    .to_string()
                    .contains("\"toolkit_approval_claims\" does not exist"),
                "{error}"
            );

            // Nothing listens on the port a closed socket had.
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|listener| listener.local_addr())
                .expect("a free port")
                .port();
            let error = toolkit::approval::PostgresApprovalStore::connect(&format!(
                "postgres://nobody@127.0.0.1:{port}/nothing"
            ))
            .await
            .expect_err("refused");
            assert_eq!(error.kind(), StoreErrorKind::Unavailable, "{error}");
            assert!(std::error::Error::source(&error).is_some(), "{error:?}");
        });
    }

    /// Replicas starting together against an empty database migrate it once: the
    /// advisory lock serializes them, and every one comes up.
    #[test]
    fn replicas_starting_at_once_migrate_once() {
        let Some(cluster) = cluster::cluster() else {
            return;
        };
        let url = cluster.database();
        let runtime = cluster::runtime();
        let started = runtime.block_on(futures_util::future::join_all((0..8).map(|_| {
            let url = url.clone();
            runtime.spawn(async move {
                toolkit::approval::PostgresApprovalStore::connect(&url)
                    .await
                    .map(|_| ())
            })
        })));
        for outcome in started {
            assert_eq!(outcome.expect("no panic"), Ok(()));
        }
        assert_eq!(
            cluster.psql_on(&url, "SELECT version FROM toolkit_approval_schema"),
            "10"
        );
    }
}

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

use toolkit::approval::{ApprovalStore, MemoryApprovalStore, SqliteApprovalStore};

use suite::{Backend, Clock};

#[path = "approval_store/cluster.rs"]
mod cluster;

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
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        Sqlite(path)
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
}

mod postgres {
    use super::*;

    fn run(test: suite::Test) {
        let Some(cluster) = cluster::cluster() else {
            return;
        };
        let url = cluster.database();
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
            .block_on(test(Arc::new(Postgres(url))));
    }

    suite::contract_tests!(run);

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
            "5"
        );
    }
}

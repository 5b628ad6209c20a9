//! The contract every approval store keeps, one suite run against each store (the
//! memory and `SQLite` stores; `PostgreSQL` with the feature `postgres`): a decided
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

/// One store in memory, shared by every "open" (memory does not survive a restart).
struct Memory(std::sync::OnceLock<Arc<dyn ApprovalStore>>);

impl Backend for Memory {
    fn open(&self, clock: &Clock) -> Arc<dyn ApprovalStore> {
        self.0
            .get_or_init(|| Arc::new(MemoryApprovalStore::new().clock(clock.reader())))
            .clone()
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
    fn open(&self, clock: &Clock) -> Arc<dyn ApprovalStore> {
        Arc::new(
            SqliteApprovalStore::open(&self.0)
                .expect("opens")
                .clock(clock.reader()),
        )
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

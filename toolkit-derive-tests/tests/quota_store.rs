//! The quota-store contract, one suite run against each store: memory, `SQLite`
//! and `PostgreSQL` (the stores a fleet shares). A principal gets exactly its
//! quota and then a refusal with the wait, a refusal spends nothing, principals
//! and tools count apart, checks at once on several replicas never admit more
//! than the quota, the extremes of a quota count exactly, a clock that goes back
//! admits nothing more and locks nobody out for longer than a period, a corrupt
//! row is a clear error, and a store that does not answer in time fails closed
//! (open only for the `auto` tools declared so).

// The tools are `async`, as most real tools are, though these never await.
#![allow(clippy::unused_async)]

use toolkit_test_support::postgres as cluster;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::future::join_all;
use serde_json::json;
use toolkit::approval::{PostgresApprovalStore, SqliteApprovalStore};
use toolkit::quota::{
    Admission, MemoryQuotaStore, Quota, QuotaKey, QuotaStore, QuotaStoreError, Quotas,
};
use toolkit::{Context, Scope, View, tool};

/// The test's time, pinned: nanoseconds since the Unix epoch, moved by hand.
#[derive(Clone)]
struct Clock(Arc<AtomicU64>);

impl Default for Clock {
    fn default() -> Self {
        // 2030-03-17, a time no real clock reads here yet.
        Clock(Arc::new(AtomicU64::new(1_900_000_000_000_000_000)))
    }
}

impl Clock {
    fn advance(&self, by: Duration) {
        self.0
            .fetch_add(u64::try_from(by.as_nanos()).unwrap(), Ordering::SeqCst);
    }

    fn go_back(&self, by: Duration) {
        self.0
            .fetch_sub(u64::try_from(by.as_nanos()).unwrap(), Ordering::SeqCst);
    }

    fn reader(&self) -> impl Fn() -> Duration + Send + Sync + 'static {
        let nanos = Arc::clone(&self.0);
        move || Duration::from_nanos(nanos.load(Ordering::SeqCst))
    }
}

type Opening<'a> = Pin<Box<dyn Future<Output = Arc<dyn QuotaStore>> + 'a>>;

/// Opens the store under test.
trait Backend: Send + Sync {
    /// A store (a new connection where the store has them: another replica) on
    /// the pinned clock.
    fn open<'a>(&'a self, clock: &'a Clock) -> Opening<'a>;
    /// Whether the store's clock can go back (a wall clock); the memory store's
    /// is monotonic.
    fn clock_can_go_back(&self) -> bool {
        true
    }
}

type Test = fn(Arc<dyn Backend>) -> Pin<Box<dyn Future<Output = ()>>>;

/// One store in memory, shared by every open.
struct Memory(std::sync::OnceLock<Arc<dyn QuotaStore>>);

impl Backend for Memory {
    fn open<'a>(&'a self, clock: &'a Clock) -> Opening<'a> {
        let store = self
            .0
            .get_or_init(|| Arc::new(MemoryQuotaStore::new().clock(clock.reader())))
            .clone();
        Box::pin(std::future::ready(store))
    }

    fn clock_can_go_back(&self) -> bool {
        false
    }
}

/// A `SQLite` file; every open is a new connection (another process).
struct Sqlite(std::path::PathBuf);

impl Sqlite {
    fn new() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "toolkit-quota-store-{}-{}.sqlite3",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        Sqlite(path)
    }
}

impl Backend for Sqlite {
    fn open<'a>(&'a self, clock: &'a Clock) -> Opening<'a> {
        let store = SqliteApprovalStore::open(&self.0).expect("opens");
        let quotas: Arc<dyn QuotaStore> = Arc::new(store.quota_store().clock(clock.reader()));
        Box::pin(std::future::ready(quotas))
    }
}

/// A database of its own per test, in one throwaway cluster per test binary;
/// every open is a new pool (another replica).
struct Postgres(String);

impl Backend for Postgres {
    fn open<'a>(&'a self, clock: &'a Clock) -> Opening<'a> {
        Box::pin(async move {
            let store = PostgresApprovalStore::connect(&self.0)
                .await
                .expect("connects");
            let quotas: Arc<dyn QuotaStore> = Arc::new(store.quota_store().clock(clock.reader()));
            quotas
        })
    }
}

fn key(principal: &str) -> QuotaKey<'_> {
    QuotaKey {
        principal,
        tool: "create_transfers",
    }
}

fn quota(text: &str) -> Quota {
    text.parse().expect("a quota")
}

async fn check(store: &dyn QuotaStore, principal: &str, limit: &str) -> Admission {
    store
        .check(key(principal), quota(limit))
        .await
        .expect("the store answers")
}

fn refused(seconds: f64) -> Admission {
    Admission::Refused {
        retry_after: Duration::from_secs_f64(seconds),
    }
}

/// A principal gets its burst, then one call per interval; a refusal spends
/// nothing and says how long to wait.
async fn a_full_burst_then_one_call_per_interval_and_refusals_spend_nothing(
    backend: Arc<dyn Backend>,
) {
    let clock = Clock::default();
    let store = backend.open(&clock).await;
    for _ in 0..3 {
        assert_eq!(check(&*store, "ann", "3/min").await, Admission::Admitted);
    }
    // Refused again and again, the wait stays: nothing was spent.
    assert_eq!(check(&*store, "ann", "3/min").await, refused(20.0));
    assert_eq!(check(&*store, "ann", "3/min").await, refused(20.0));
    clock.advance(Duration::from_secs(19));
    assert_eq!(check(&*store, "ann", "3/min").await, refused(1.0));
    clock.advance(Duration::from_secs(1));
    assert_eq!(check(&*store, "ann", "3/min").await, Admission::Admitted);
    assert_eq!(check(&*store, "ann", "3/min").await, refused(20.0));
    // Another replica (a new connection) reads the same count.
    let replica = backend.open(&clock).await;
    assert_eq!(check(&*replica, "ann", "3/min").await, refused(20.0));
    // A minute later, the whole burst is back.
    clock.advance(Duration::from_mins(1));
    for _ in 0..3 {
        assert_eq!(check(&*replica, "ann", "3/min").await, Admission::Admitted);
    }
    assert_eq!(check(&*store, "ann", "3/min").await, refused(20.0));
}

/// Each principal and each tool has its own count.
async fn principals_and_tools_are_counted_apart(backend: Arc<dyn Backend>) {
    let clock = Clock::default();
    let store = backend.open(&clock).await;
    assert_eq!(check(&*store, "ann", "1/h").await, Admission::Admitted);
    assert_eq!(check(&*store, "ann", "1/h").await, refused(3600.0));
    assert_eq!(check(&*store, "bob", "1/h").await, Admission::Admitted);
    let other_tool = QuotaKey {
        principal: "ann",
        tool: "delete_transfers",
    };
    assert_eq!(
        store
            .check(other_tool, quota("1/h"))
            .await
            .expect("answers"),
        Admission::Admitted
    );
    assert_eq!(check(&*store, "bob", "1/h").await, refused(3600.0));
}

/// Checks at once, on four replicas, never admit more than the quota.
async fn checks_at_once_on_every_replica_admit_exactly_the_quota(backend: Arc<dyn Backend>) {
    let clock = Clock::default();
    let stores: Vec<_> = join_all((0..4).map(|_| backend.open(&clock))).await;
    let answers = join_all((0..40).map(|i| {
        let store = stores[i % stores.len()].clone();
        async move { store.check(key("ann"), quota("10/h")).await }
    }))
    .await;
    let admitted = answers
        .iter()
        .filter(|answer| matches!(answer, Ok(Admission::Admitted)))
        .count();
    assert_eq!(admitted, 10, "{answers:?}");
    assert!(
        answers
            .iter()
            .all(|answer| matches!(answer, Ok(Admission::Admitted | Admission::Refused { .. }))),
        "{answers:?}"
    );
    assert_eq!(check(&*stores[0], "ann", "10/h").await, refused(360.0));
}

/// The smallest and the largest quotas count exactly: once a day waits a day;
/// 4,294,967,295 a second is one a nanosecond, never a free pass.
async fn the_extremes_of_a_quota_count_exactly(backend: Arc<dyn Backend>) {
    let clock = Clock::default();
    let store = backend.open(&clock).await;
    assert_eq!(check(&*store, "ann", "1/d").await, Admission::Admitted);
    assert_eq!(check(&*store, "ann", "1/d").await, refused(86_400.0));
    clock.advance(Duration::from_hours(24) - Duration::from_nanos(1));
    assert_eq!(
        check(&*store, "ann", "1/d").await,
        Admission::Refused {
            retry_after: Duration::from_nanos(1)
        }
    );
    clock.advance(Duration::from_nanos(1));
    assert_eq!(check(&*store, "ann", "1/d").await, Admission::Admitted);
    for _ in 0..100 {
        assert_eq!(
            check(&*store, "bob", "4294967295/s").await,
            Admission::Admitted
        );
    }
}

/// A clock that goes back (a wall clock corrected) admits nothing beyond the
/// quota, and locks the caller out for one period, not for the size of the jump.
async fn a_clock_that_goes_back_admits_nothing_more_and_locks_out_one_period(
    backend: Arc<dyn Backend>,
) {
    if !backend.clock_can_go_back() {
        return;
    }
    let clock = Clock::default();
    let store = backend.open(&clock).await;
    for _ in 0..3 {
        assert_eq!(check(&*store, "ann", "3/min").await, Admission::Admitted);
    }
    clock.go_back(Duration::from_hours(1));
    assert_eq!(check(&*store, "ann", "3/min").await, refused(60.0));
    clock.advance(Duration::from_secs(59));
    assert_eq!(check(&*store, "ann", "3/min").await, refused(1.0));
    clock.advance(Duration::from_secs(1));
    assert_eq!(check(&*store, "ann", "3/min").await, Admission::Admitted);
    assert_eq!(check(&*store, "ann", "3/min").await, refused(20.0));
    // A small step back (two replicas' statements a moment apart) is no jump.
    clock.go_back(Duration::from_millis(500));
    assert_eq!(check(&*store, "ann", "3/min").await, refused(20.5));
}

/// Limits of this binary's tools.
///
/// Create a transfer between two accounts.
#[tool(scope = shared, tier = auto, quota = "2/min")]
async fn create_transfers(
    /// Cents to move.
    amount: u64,
) -> u64 {
    amount
}

/// Get the balance of the account.
#[tool(scope = shared, tier = auto, quota = "2/min")]
async fn get_balance() -> u64 {
    7
}

/// Close an account.
#[tool(scope = shared, tier = confirm, quota = "2/min")]
async fn delete_accounts(
    /// The account.
    id: u32,
) -> u32 {
    id
}

fn view<'q>(quotas: &'q Quotas, principal: &str) -> View<'q> {
    toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .principal(toolkit::Principal::local(principal).expect("a principal"))
        .quotas(quotas)
        .build()
        .expect("view")
}

/// A view counted in the store refuses its principal's third call a minute, on
/// any replica, with the wait in words.
async fn a_view_counted_in_the_store_refuses_over_the_quota(backend: Arc<dyn Backend>) {
    let clock = Clock::default();
    let replicas: Vec<Quotas> = join_all((0..2).map(|_| backend.open(&clock)))
        .await
        .into_iter()
        .map(|store| {
            Quotas::builder(toolkit::registry(), store)
                .build()
                .expect("quotas")
        })
        .collect();
    let ctx = Context::new();
    for quotas in &replicas {
        let ann = view(quotas, "user:ann");
        assert_eq!(
            ann.call("create_transfers", r#"{"amount": 5}"#, &ctx)
                .await
                .result(),
            Some(&json!(5))
        );
    }
    let ann = view(&replicas[0], "user:ann");
    let refused = ann.call("create_transfers", r#"{"amount": 5}"#, &ctx).await;
    assert_eq!(
        refused.error().map(ToString::to_string).as_deref(),
        Some("`create_transfers` may be called twice a minute by each caller; try again in 30 s")
    );
}

macro_rules! quota_contract {
    ($run:ident) => {
        #[test]
        fn a_full_burst_then_one_call_per_interval_and_refusals_spend_nothing() {
            $run(|backend| {
                Box::pin(
                    super::a_full_burst_then_one_call_per_interval_and_refusals_spend_nothing(
                        backend,
                    ),
                )
            });
        }

        #[test]
        fn principals_and_tools_are_counted_apart() {
            $run(|backend| Box::pin(super::principals_and_tools_are_counted_apart(backend)));
        }

        #[test]
        fn checks_at_once_on_every_replica_admit_exactly_the_quota() {
            $run(|backend| {
                Box::pin(super::checks_at_once_on_every_replica_admit_exactly_the_quota(backend))
            });
        }

        #[test]
        fn the_extremes_of_a_quota_count_exactly() {
            $run(|backend| Box::pin(super::the_extremes_of_a_quota_count_exactly(backend)));
        }

        #[test]
        fn a_clock_that_goes_back_admits_nothing_more_and_locks_out_one_period() {
            $run(|backend| {
                Box::pin(
                    super::a_clock_that_goes_back_admits_nothing_more_and_locks_out_one_period(
                        backend,
                    ),
                )
            });
        }

        #[test]
        fn a_view_counted_in_the_store_refuses_over_the_quota() {
            $run(|backend| {
                Box::pin(super::a_view_counted_in_the_store_refuses_over_the_quota(
                    backend,
                ))
            });
        }
    };
}

mod memory {
    use super::{Arc, Memory, Test};

    fn run(test: Test) {
        futures_executor::block_on(test(Arc::new(Memory(std::sync::OnceLock::new()))));
    }

    quota_contract!(run);
}

mod sqlite {
    use super::{Arc, Sqlite, Test};

    fn run(test: Test) {
        futures_executor::block_on(test(Arc::new(Sqlite::new())));
    }

    quota_contract!(run);
}

mod postgres {
    use super::{Arc, Postgres, Test, cluster};

    fn run(test: Test) {
        cluster::on_new_database(|url| test(Arc::new(Postgres(url))));
    }

    quota_contract!(run);
}

/// What a call over a store that cannot answer gets: a `confirm` tool and an
/// `auto` tool not declared to fail open are refused and run nothing; the
/// `auto` tool declared to fail open runs.
async fn only_declared_auto_tools_pass_a_store_that_does_not_answer(
    store: impl QuotaStore + 'static,
) {
    let quotas = Quotas::builder(toolkit::registry(), store)
        .fail_open(get_balance::NAME)
        .build()
        .expect("quotas");
    let ann = view(&quotas, "user:ann");
    let ctx = Context::new();
    assert_eq!(
        ann.call("get_balance", "{}", &ctx).await.result(),
        Some(&json!(7))
    );
    for (tool, arguments) in [
        ("create_transfers", r#"{"amount": 5}"#),
        ("delete_accounts", r#"{"id": 5}"#),
    ] {
        let answer = ann.call(tool, arguments, &ctx).await;
        assert_eq!(
            answer.error().map(ToString::to_string),
            Some(format!(
                "`{tool}` could not be counted against its quota, so it did not run; try again later"
            )),
            "{answer:?}"
        );
    }
}

/// A `SQLite` file another process holds past the check's wait is a store that
/// is down: the check fails within its wait, and the call fails closed.
#[test]
fn sqlite_a_held_file_is_a_store_that_is_down() {
    let file = Sqlite::new();
    let store = SqliteApprovalStore::open(&file.0).expect("opens");
    let quotas = store.quota_store().wait_at_most(Duration::from_millis(200));
    let holder = rusqlite::Connection::open(&file.0).expect("opens");
    holder
        .execute_batch("BEGIN IMMEDIATE")
        .expect("holds the file");
    let error = futures_executor::block_on(quotas.check(key("ann"), quota("3/min")))
        .expect_err("the file is held");
    assert_eq!(
        error.to_string(),
        "the quota store failed: database is locked"
    );
    futures_executor::block_on(only_declared_auto_tools_pass_a_store_that_does_not_answer(
        quotas,
    ));
    holder.execute_batch("ROLLBACK").expect("lets go");
}

/// A row whose time is not a time is a clear error, never a free call; the row
/// is reset to a quota spent in full, which counts on as usual.
#[test]
fn sqlite_a_corrupt_row_is_an_error_and_admits_nothing() {
    let file = Sqlite::new();
    let clock = Clock::default();
    let store = SqliteApprovalStore::open(&file.0).expect("opens");
    let quotas = store.quota_store().clock(clock.reader());
    let checked = |quotas: &dyn QuotaStore| {
        futures_executor::block_on(quotas.check(key("ann"), quota("3/min")))
    };
    assert_eq!(checked(&quotas).expect("answers"), Admission::Admitted);
    rusqlite::Connection::open(&file.0)
        .expect("opens")
        .execute("UPDATE toolkit_quota_state SET tat = 'soon'", [])
        .expect("corrupts");
    let error: QuotaStoreError = checked(&quotas).expect_err("corrupt");
    assert_eq!(
        error.to_string(),
        "the quota state of `ann` for `create_transfers` was corrupt (not a time); it was reset to a quota spent in full, and this call was not counted"
    );
    assert_eq!(checked(&quotas).expect("answers"), refused(60.0));
    clock.advance(Duration::from_mins(1));
    assert_eq!(checked(&quotas).expect("answers"), Admission::Admitted);
}

/// A `PostgreSQL` store whose every connection is taken past its wait is down:
/// the check fails within the wait, and the call fails closed.
#[test]
fn postgres_a_database_that_does_not_answer_in_time_is_down() {
    cluster::on_new_database(|url| async move {
        let store = PostgresApprovalStore::connect(&url)
            .await
            .expect("opens")
            .wait_at_most(Duration::from_millis(200));
        let quotas = store.quota_store();
        // Every connection of the pool (16) taken, and held.
        let mut taken = Vec::new();
        for _ in 0..16 {
            taken.push(store.pool().get().await.expect("a connection"));
        }
        let error = quotas
            .check(key("ann"), quota("3/min"))
            .await
            .expect_err("no connection in time");
        assert_eq!(
            error.to_string(),
            "the quota store did not answer within 200 ms; the database may be stalled"
        );
        only_declared_auto_tools_pass_a_store_that_does_not_answer(quotas).await;
        drop(taken);
    });
}

/// A stored time far ahead of the database's clock (the clock went back, or the
/// row was written wrongly) admits nothing and locks out for one period.
#[test]
fn postgres_a_time_far_ahead_is_a_spent_quota_for_one_period() {
    cluster::on_new_database(|url| async move {
        let cluster = cluster::cluster().expect("a cluster, since it made the database");
        let clock = Clock::default();
        let store = PostgresApprovalStore::connect(&url).await.expect("opens");
        let quotas = store.quota_store().clock(clock.reader());
        assert_eq!(check(&quotas, "ann", "3/min").await, Admission::Admitted);
        cluster.psql_on(
            &url,
            "UPDATE toolkit_quota_state SET tat = 9223372036854775807",
        );
        assert_eq!(check(&quotas, "ann", "3/min").await, refused(60.0));
        clock.advance(Duration::from_mins(1));
        assert_eq!(check(&quotas, "ann", "3/min").await, Admission::Admitted);
    });
}

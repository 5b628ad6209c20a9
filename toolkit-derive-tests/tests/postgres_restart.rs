//! The `PostgreSQL` approval store through a restart of the database. A test binary
//! of its own, so its cluster is its own: the restart would cut every other test's
//! connections.
//!
//! A tool that has done its work must be recorded as done even when the database
//! is down at that moment: otherwise its claim stays open, the next presentation
//! after the lease runs the call again, and two callers are told it ran. The end of
//! a run is retried until the database is back; a statement the database refuses
//! is not retried.

use toolkit_test_support::postgres as cluster;

use std::future::Future;
use std::time::Duration;

use cluster::Cluster;

use toolkit::approval::{ApprovalStore, Claim, PostgresApprovalStore, RunOutcome};
use toolkit::{Response, ToolError};

/// Runs `test` on a database of its own in this binary's cluster, on a runtime of
/// its own, while no other test here runs: they stop or freeze the cluster.
fn alone_on_the_cluster<F: Future<Output = ()>>(test: impl FnOnce(&'static Cluster, String) -> F) {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let Some(cluster) = cluster::cluster() else {
        return;
    };
    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let url = cluster.database();
    cluster::runtime().block_on(test(cluster, url));
}

#[test]
fn the_end_of_a_run_is_recorded_through_a_database_restart() {
    alone_on_the_cluster(|cluster, url| async move {
        let store = PostgresApprovalStore::connect(&url)
            .await
            .expect("connects");
        let once = PostgresApprovalStore::connect(&url)
            .await
            .expect("connects")
            .retry_run_ends_for(Duration::ZERO);
        let now = store.now().await.expect("the clock");
        let ran = RunOutcome::of(&Response::Result(serde_json::json!({"moved": 1})));
        let failed = RunOutcome::of(&Response::Error(ToolError::failed("the ledger is down")));
        let (lease, keep) = (now + 300, now + 3600);
        for key in ["ran", "failed", "tried once"] {
            assert_eq!(
                store.claim(key, lease, keep).await,
                Ok(Claim::Won { attempt: 1 })
            );
        }

        // The database goes away for two seconds; the runs end while it is away.
        let restart = std::thread::spawn(|| cluster.restart(Duration::from_secs(2)));
        while store.now().await.is_ok() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let error = once
            .complete("tried once", 1, &ran)
            .await
            .expect_err("the database is away");
        assert!(error.to_string().starts_with("PostgreSQL: "), "{error}");
        assert_eq!(store.complete("ran", 1, &ran).await, Ok(true));
        assert_eq!(store.release("failed", 1, &failed).await, Ok(true));
        restart.join().expect("restarted");

        assert_eq!(store.claim("ran", lease, keep).await, Ok(Claim::Done));
        assert_eq!(
            store.claim("failed", lease, keep).await,
            Ok(Claim::Won { attempt: 2 })
        );
        assert_eq!(
            store.claim("tried once", lease, keep).await,
            Ok(Claim::Held { lease_until: lease })
        );

        // A statement the database refuses is not retried, whatever the retry time:
        // the table is back a second later, and a retry would have succeeded.
        let patient = PostgresApprovalStore::connect(&url)
            .await
            .expect("connects")
            .retry_run_ends_for(Duration::from_mins(10));
        cluster.psql_on(&url, "ALTER TABLE toolkit_approval_claims RENAME TO moved");
        let ending = tokio::spawn(async move { patient.complete("ran", 1, &ran).await });
        tokio::time::sleep(Duration::from_secs(1)).await;
        cluster.psql_on(&url, "ALTER TABLE moved RENAME TO toolkit_approval_claims");
        let error = ending
            .await
            .expect("no panic")
            .expect_err("refused, not retried");
        assert!(
            error
                .to_string()
                .contains("\"toolkit_approval_claims\" does not exist"),
            "{error}"
        );
    });
}

/// A database that stalls (frozen, its connections open) never hangs a caller:
/// every operation answers a store error within the store's wait, the end of a run
/// gives up within its retry time, and once the database is back the same store
/// works, with nothing lost or doubled.
#[test]
fn a_stalled_database_answers_within_the_wait() {
    alone_on_the_cluster(|cluster, url| async move {
        let store = PostgresApprovalStore::connect(&url)
            .await
            .expect("connects")
            .wait_at_most(Duration::from_secs(1))
            .retry_run_ends_for(Duration::from_secs(2));
        let now = store.now().await.expect("the clock");
        let (lease, keep) = (now + 300, now + 3600);
        assert_eq!(
            store.claim("stalled", lease, keep).await,
            Ok(Claim::Won { attempt: 1 })
        );
        let ran = RunOutcome::of(&Response::Result(serde_json::json!({"moved": 1})));

        let freeze = std::thread::spawn(|| cluster.freeze(Duration::from_secs(8)));
        // Frozen once a statement gets no answer.
        let started = std::time::Instant::now();
        let error = loop {
            match store.now().await {
                Ok(_) => tokio::time::sleep(Duration::from_millis(10)).await,
                Err(error) => break error,
            }
            assert!(started.elapsed() < Duration::from_secs(5), "never froze");
        };
        assert_eq!(
            error.to_string(),
            "PostgreSQL: no answer within 1000 ms; the database may be stalled"
        );
        let asked = std::time::Instant::now();
        let claim = store.claim("another", lease, keep).await;
        assert!(claim.is_err(), "{claim:?}");
        assert!(
            asked.elapsed() < Duration::from_secs(3),
            "{:?}",
            asked.elapsed()
        );
        let asked = std::time::Instant::now();
        let ended = store.complete("stalled", 1, &ran).await;
        assert!(ended.is_err(), "{ended:?}");
        assert!(
            asked.elapsed() < Duration::from_secs(5),
            "{:?}",
            asked.elapsed()
        );
        freeze.join().expect("thawed");

        // Back: the same store works, the run ends once, and nothing else moved.
        let mut back = store.now().await;
        for _ in 0..50 {
            if back.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            back = store.now().await;
        }
        back.expect("the database answers again");
        assert_eq!(store.complete("stalled", 1, &ran).await, Ok(true));
        assert_eq!(store.claim("stalled", lease, keep).await, Ok(Claim::Done));
        assert_eq!(
            store.claim("another", lease, keep).await,
            Ok(Claim::Won { attempt: 1 }),
            "the claim that got no answer was never made"
        );
    });
}

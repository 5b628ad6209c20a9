//! The `PostgreSQL` approval store through a restart of the database. A test binary
//! of its own, so its cluster is its own: the restart would cut every other test's
//! connections.
//!
//! A tool that has done its work must be recorded as done even when the database
//! is down at that moment: otherwise its claim stays open, the next presentation
//! after the lease runs the call again, and two callers are told it ran. The end of
//! a run is retried until the database is back; a statement the database refuses
//! is not retried.

#[path = "approval_store/cluster.rs"]
mod cluster;

use std::time::Duration;

use toolkit::approval::{ApprovalStore, Claim, PostgresApprovalStore};

#[test]
fn the_end_of_a_run_is_recorded_through_a_database_restart() {
    let Some(cluster) = cluster::cluster() else {
        return;
    };
    let url = cluster.database();
    let runtime = cluster::runtime();
    runtime.block_on(async {
        let store = PostgresApprovalStore::connect(&url)
            .await
            .expect("connects");
        let once = PostgresApprovalStore::connect(&url)
            .await
            .expect("connects")
            .retry_run_ends_for(Duration::ZERO);
        let now = store.now().await.expect("the clock");
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
            .complete("tried once")
            .await
            .expect_err("the database is away");
        assert!(error.to_string().starts_with("PostgreSQL: "), "{error}");
        assert_eq!(store.complete("ran").await, Ok(true));
        assert_eq!(store.release("failed", 1).await, Ok(true));
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
        let ending = tokio::spawn(async move { patient.complete("ran").await });
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

//! Approvals through one `PostgreSQL`: approvals per second (request, decide, resume),
//! median and p99 resume latency, the cost of reading the store's clock, and the
//! cost of key rotation per resume.
//!
//! `cargo bench -p toolkit-derive-tests --bench approvals` (starts a throwaway
//! cluster with `scripts/postgres.sh`).

#![allow(clippy::unused_async, clippy::cast_precision_loss, missing_docs)]

use toolkit_test_support::postgres as cluster;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolkit::approval::{
    ApprovalKey, Approvals, Decision, MemoryApprovalStore, PostgresApprovalStore,
};
use toolkit::{Context, Response, Scope, call::CallId, tool};

/// A principal the test application names.
fn p(name: &str) -> toolkit::Principal {
    toolkit::Principal::local(name).expect("a principal")
}

/// Release a phone number the organization owns.
#[tool(scope = shared, tier = approve)]
async fn delete_phone_numbers(
    /// The number, in E.164 form.
    number: String,
) -> Value {
    json!({ "released": number })
}

const APPROVALS: usize = 4000;
const CLIENTS: usize = 16;
const ROUNDS: u32 = 20_000;

fn key(byte: u8) -> ApprovalKey {
    ApprovalKey::new(vec![byte; 32]).expect("32 bytes")
}

/// The `per_mille`/1000 quantile of `sorted`.
fn percentile(sorted: &[Duration], per_mille: usize) -> Duration {
    sorted[(sorted.len() - 1) * per_mille / 1000]
}

/// One approval's life; the resume's latency.
async fn life(approvals: &Approvals, n: usize) -> Duration {
    let view = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .approvals(approvals, p("user:7"))
        .build()
        .expect("view");
    let ctx = Context::new().with(CallId::new(format!("call_{n}")));
    let Response::Pending(pending) = view
        .call("delete_phone_numbers", r#"{"number": "+15550100"}"#, &ctx)
        .await
    else {
        panic!("pending");
    };
    let approval = approvals
        .decide_as(
            toolkit::registry(),
            &pending,
            Decision::Approve,
            &p("admin:1"),
        )
        .await
        .expect("approved");
    let start = Instant::now();
    let response = view.resume(&approval, &ctx).await;
    let took = start.elapsed();
    assert!(response.is_success(), "{response:?}");
    took
}

fn main() {
    let Some(cluster) = cluster::cluster() else {
        return;
    };
    let url = cluster.database();
    let runtime = cluster::runtime();
    runtime.block_on(async {
        let store = PostgresApprovalStore::connect(&url).await.expect("connects");
        let approvals: &'static Approvals = Box::leak(Box::new(Approvals::new(key(1), store)));
        let start = Instant::now();
        let handles: Vec<_> = (0..CLIENTS)
            .map(|client| {
                tokio::spawn(async move {
                    let mut latencies = Vec::new();
                    for n in (client..APPROVALS).step_by(CLIENTS) {
                        latencies.push(life(approvals, n).await);
                    }
                    latencies
                })
            })
            .collect();
        let mut latencies = Vec::new();
        for handle in handles {
            latencies.extend(handle.await.expect("no panic"));
        }
        let elapsed = start.elapsed();
        latencies.sort();
        println!(
            "one PostgreSQL, {CLIENTS} clients: {APPROVALS} approvals (request, decide, resume) in {:.2} s = {:.0} approvals/s; resume median {:.2} ms, p99 {:.2} ms",
            elapsed.as_secs_f64(),
            APPROVALS as f64 / elapsed.as_secs_f64(),
            percentile(&latencies, 500).as_secs_f64() * 1e3,
            percentile(&latencies, 990).as_secs_f64() * 1e3,
        );

        let store = approvals.store().clone();
        let mut clock = Vec::new();
        for _ in 0..2000 {
            let start = Instant::now();
            store.now().await.expect("now");
            clock.push(start.elapsed());
        }
        clock.sort();
        println!(
            "the store's clock (SELECT now()), one per request, decision and resume: median {:.3} ms, p99 {:.3} ms",
            percentile(&clock, 500).as_secs_f64() * 1e3,
            percentile(&clock, 990).as_secs_f64() * 1e3,
        );
    });

    // Key rotation: an approval signed with the oldest of three previous keys costs
    // three more HMAC checks than one signed with the current key (memory store, so
    // only the signature work differs).
    let per_resume = |previous: Vec<ApprovalKey>, signer: ApprovalKey| {
        let signer = Approvals::new(signer, MemoryApprovalStore::new());
        let verifier = Approvals::new(key(1), MemoryApprovalStore::new()).previous_keys(previous);
        let view = toolkit::registry()
            .view()
            .scopes([Scope::Shared])
            .approvals(&verifier, p("user:7"))
            .build()
            .expect("view");
        let signer_view = toolkit::registry()
            .view()
            .scopes([Scope::Shared])
            .approvals(&signer, p("user:7"))
            .build()
            .expect("view");
        let approvals: Vec<_> = (0..ROUNDS)
            .map(|n| {
                let ctx = Context::new().with(CallId::new(format!("call_{n}")));
                let Response::Pending(pending) = futures_executor::block_on(signer_view.call(
                    "delete_phone_numbers",
                    r#"{"number": "+15550100"}"#,
                    &ctx,
                )) else {
                    panic!("pending");
                };
                signer
                    .decide(toolkit::registry(), &pending, Decision::Approve)
                    .expect("approved")
            })
            .collect();
        let start = Instant::now();
        for approval in &approvals {
            let response = futures_executor::block_on(view.resume(approval, &Context::new()));
            assert!(response.is_success());
        }
        start.elapsed() / ROUNDS
    };
    let current = per_resume(vec![key(2), key(3), key(4)], key(1));
    let oldest = per_resume(vec![key(2), key(3), key(4)], key(4));
    println!(
        "key rotation: resume (memory store) signed with the current key {:.2} us, with the third previous key {:.2} us: {:.2} us per extra key",
        current.as_secs_f64() * 1e6,
        oldest.as_secs_f64() * 1e6,
        (oldest.as_secs_f64() - current.as_secs_f64()) * 1e6 / 3.0,
    );
}

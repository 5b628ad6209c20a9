//! What counting a call against its quota adds: one `View::call` of a small
//! `async` tool through a view without quotas, and through a view whose quotas
//! count it in a `MemoryQuotaStore` (a limit never reached, so every call is
//! admitted and runs: the cost of the check, not of a refusal). One principal,
//! so the store holds one key, as a busy caller's does.
//!
//! Then the same on a local `PostgreSQL` (a throwaway cluster that
//! `scripts/postgres.sh` starts, as the store tests do): the view's quotas count
//! in a `PostgresQuotaStore`, one statement per call, against the same call
//! without quotas.
//!
//! Run: `cargo bench -p toolkit-derive-tests --bench quota -- --measurement-time 5`;
//! criterion's estimates come first, then a line per path with the median and
//! p99 of 200,000 calls (5,000 on `PostgreSQL`) timed one by one, interleaved.
//! The results are in BENCHMARKS.md.

#![allow(clippy::unused_async)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use futures_executor::block_on;
use toolkit::approval::PostgresApprovalStore;
use toolkit::quota::{MemoryQuotaStore, Quotas};

use toolkit::{Context, Scope, View, tool};
use toolkit_test_support::postgres as cluster;

/// A principal the test application names.
fn p(name: &str) -> toolkit::Principal {
    toolkit::Principal::local(name).expect("a principal")
}

/// Get the weather of a city.
#[tool(scope = shared, tier = auto, quota = "4294967295/s")]
async fn get_weather(
    /// The city.
    city: String,
) -> usize {
    city.len()
}

const ARGUMENTS: &str = r#"{"city": "Lyon"}"#;

/// Calls of each path timed one by one for the percentiles.
const CALLS: usize = 200_000;

/// The same on `PostgreSQL`, where each counted call is a round trip.
const DATABASE_CALLS: usize = 5_000;

fn views(quotas: &Quotas) -> (View<'_>, View<'_>) {
    let plain = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .principal(p("user:7"))
        .build()
        .expect("view");
    let counted = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .principal(p("user:7"))
        .quotas(quotas)
        .build()
        .expect("view");
    (plain, counted)
}

fn call(view: &View<'_>, ctx: &Context) {
    let response = block_on(view.call("get_weather", black_box(ARGUMENTS), ctx));
    assert!(response.result().is_some(), "{response:?}");
}

/// The `per_mille`/1000 quantile of `sorted`.
fn percentile(sorted: &[Duration], per_mille: usize) -> Duration {
    sorted[(sorted.len() - 1) * per_mille / 1000]
}

fn quota_check(c: &mut Criterion) {
    let quotas = Quotas::builder(toolkit::registry(), MemoryQuotaStore::new())
        .build()
        .expect("quotas");
    let (plain, counted) = views(&quotas);
    let ctx = Context::new();
    let mut group = c.benchmark_group("view_call_get_weather");
    group.bench_function("without_quota", |b| b.iter(|| call(&plain, &ctx)));
    group.bench_function("with_quota", |b| b.iter(|| call(&counted, &ctx)));
    group.finish();

    // Criterion gives a middle estimate; the tail needs each call timed.
    let mut without = Vec::with_capacity(CALLS);
    let mut with = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let start = Instant::now();
        call(&plain, &ctx);
        without.push(start.elapsed());
        let start = Instant::now();
        call(&counted, &ctx);
        with.push(start.elapsed());
    }
    without.sort_unstable();
    with.sort_unstable();
    for (path, times) in [("without quota", &without), ("with quota", &with)] {
        println!(
            "{path}: p50 {} ns, p99 {} ns ({CALLS} calls, interleaved)",
            percentile(times, 500).as_nanos(),
            percentile(times, 990).as_nanos()
        );
    }
}

/// The quota check on a local `PostgreSQL`: what a fleet's replica pays per call.
fn quota_check_on_postgres(c: &mut Criterion) {
    let Some(cluster) = cluster::cluster() else {
        return;
    };
    let url = cluster.database();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let store = runtime
        .block_on(PostgresApprovalStore::connect(&url))
        .expect("connects");
    let quotas = Quotas::builder(toolkit::registry(), store.quota_store())
        .build()
        .expect("quotas");
    let (plain, counted) = views(&quotas);
    let ctx = Context::new();
    let call = |view: &View<'_>| {
        let response = runtime.block_on(view.call("get_weather", black_box(ARGUMENTS), &ctx));
        assert!(response.result().is_some(), "{response:?}");
    };
    let mut group = c.benchmark_group("view_call_get_weather_postgres");
    group.bench_function("without_quota", |b| b.iter(|| call(&plain)));
    group.bench_function("with_quota", |b| b.iter(|| call(&counted)));
    group.finish();

    let mut without = Vec::with_capacity(DATABASE_CALLS);
    let mut with = Vec::with_capacity(DATABASE_CALLS);
    for _ in 0..DATABASE_CALLS {
        let start = Instant::now();
        call(&plain);
        without.push(start.elapsed());
        let start = Instant::now();
        call(&counted);
        with.push(start.elapsed());
    }
    without.sort_unstable();
    with.sort_unstable();
    for (path, times) in [
        ("without quota (PostgreSQL run)", &without),
        ("with quota in PostgreSQL", &with),
    ] {
        println!(
            "{path}: p50 {} µs, p99 {} µs ({DATABASE_CALLS} calls, interleaved)",
            percentile(times, 500).as_micros(),
            percentile(times, 990).as_micros()
        );
    }
}

criterion_group!(benches, quota_check, quota_check_on_postgres);
criterion_main!(benches);

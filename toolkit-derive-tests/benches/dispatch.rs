//! What dispatching through the registry costs over calling the function by hand.
//!
//! `registry` is `toolkit::registry().call(name, json_text, &ctx)`; `direct` is what
//! a hand-written handler does for the same tool: `serde_json::from_str` into an
//! equivalent argument struct, call the function, `serde_json::to_value` of the
//! result. Both run on `futures_executor::block_on`. The other rows take the
//! registry path apart: `definition_call` skips the name lookup (`Tool::call`, still
//! with `catch_unwind`), `dispatch_fn` calls the generated dispatcher directly (no
//! lookup, no `catch_unwind`), `lookup` is the name lookup alone.
//!
//! Run: `cargo bench -p toolkit-derive-tests --bench dispatch -- --measurement-time 5`;
//! the results are in BENCHMARKS.md.

// The tools are `async`, as most real tools are, so both paths pay for a future.
#![allow(clippy::unused_async)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use futures_executor::block_on;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolkit::{Context, Response, tool};

/// A note as created.
#[derive(Serialize)]
struct Note {
    title: String,
    pinned: bool,
    words: usize,
}

/// Create a note.
#[tool(scope = shared, tier = auto)]
async fn create_notes(
    /// What the note says.
    title: String,
    /// Keep it on top.
    #[tool(default = false)]
    pinned: bool,
) -> Note {
    let words = title.split_whitespace().count();
    Note {
        title,
        pinned,
        words,
    }
}

/// The arguments a hand-written handler would parse for `create_notes`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoteArguments {
    title: String,
    #[serde(default)]
    pinned: bool,
}

/// Get the sum of two numbers: the smallest useful tool, so dispatch dominates.
#[tool(scope = shared, tier = auto)]
async fn get_sum(
    /// The first number.
    a: i64,
    /// The second number.
    b: i64,
) -> i64 {
    a.wrapping_add(b)
}

/// The arguments a hand-written handler would parse for `get_sum`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SumArguments {
    a: i64,
    b: i64,
}

const NOTE: &str = r#"{"title": "Buy oat milk and coffee beans", "pinned": true}"#;
const SUM: &str = r#"{"a": 40, "b": 2}"#;

fn direct_note(arguments: &str) -> Value {
    block_on(async {
        let parsed: NoteArguments = serde_json::from_str(arguments).expect("valid arguments");
        let note = create_notes(parsed.title, parsed.pinned).await;
        serde_json::to_value(&note).expect("serializable")
    })
}

fn direct_sum(arguments: &str) -> Value {
    block_on(async {
        let parsed: SumArguments = serde_json::from_str(arguments).expect("valid arguments");
        let sum = get_sum(parsed.a, parsed.b).await;
        serde_json::to_value(sum).expect("serializable")
    })
}

fn dispatch(c: &mut Criterion) {
    let registry = toolkit::registry();
    let ctx = Context::new();
    // Both paths give the same JSON.
    assert_eq!(
        block_on(registry.call("create_notes", NOTE, &ctx)),
        Response::Result(direct_note(NOTE))
    );
    assert_eq!(
        block_on(registry.call("get_sum", SUM, &ctx)),
        Response::Result(direct_sum(SUM))
    );

    for (name, arguments, direct) in [
        ("create_notes", NOTE, direct_note as fn(&str) -> Value),
        ("get_sum", SUM, direct_sum),
    ] {
        let tool = registry.get(name).expect("registered").tool();
        let mut group = c.benchmark_group(name);
        group.bench_function("direct", |b| b.iter(|| direct(black_box(arguments))));
        group.bench_function("registry", |b| {
            b.iter(|| block_on(registry.call(black_box(name), black_box(arguments), &ctx)));
        });
        group.bench_function("definition_call", |b| {
            b.iter(|| block_on(tool.call(black_box(arguments), &ctx)));
        });
        group.bench_function("dispatch_fn", |b| {
            b.iter(|| block_on((tool.dispatch)(black_box(arguments), &ctx)));
        });
        group.bench_function("lookup", |b| {
            b.iter(|| registry.get(black_box(name)).map(|tool| tool.name));
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    // A shared two-core machine: short runs, repeated, say more than long ones.
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    targets = dispatch
}
criterion_main!(benches);

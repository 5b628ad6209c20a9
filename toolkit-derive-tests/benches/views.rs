//! What a view costs per request: building one from a stored 20-entry allowlist
//! over a 60-tool registry, rendering a 23-tool view (OpenAI Chat and MCP), and
//! dispatching through it against the direct call and the registry.
//!
//! Run: `cargo bench -p toolkit-derive-tests --bench views -- --measurement-time 5`;
//! the results are in BENCHMARKS.md.

// The tools are `async`, as most real tools are, so both paths pay for a future.
#![allow(clippy::unused_async)]

mod support;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use futures_executor::block_on;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolkit::{Context, Dialect, Response, Scope, Tool, binding::Binding, tool};

/// A note as created.
#[derive(Serialize)]
struct Note {
    title: String,
    pinned: bool,
    words: usize,
}

/// Create a note.
#[tool(scope = shared, tier = auto, group = "notes")]
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

const NOTE: &str = r#"{"title": "Buy oat milk and coffee beans", "pinned": true}"#;

fn direct_note(arguments: &str) -> Value {
    block_on(async {
        let parsed: NoteArguments = serde_json::from_str(arguments).expect("valid arguments");
        let note = create_notes(parsed.title, parsed.pinned).await;
        serde_json::to_value(&note).expect("serializable")
    })
}

/// A permission check as an application writes one: owners bypass, others may not
/// delete.
fn permitted(owner: bool) -> impl FnMut(&Tool) -> bool {
    move |tool| owner || tool.verb() != "delete"
}

fn views(c: &mut Criterion) {
    let registry = toolkit::registry();
    assert_eq!(registry.len(), 60);
    let ctx = Context::new();

    let per_request = || {
        registry
            .view()
            .scopes([Scope::Shared, Scope::Agent])
            .provides([Binding::CallerThread])
            .allow(black_box(support::ALLOWLIST_20))
            .flags(["linking"])
            .permit(permitted(false))
            .build()
            .expect("view")
    };
    assert_eq!(per_request().len(), 28);
    let mut group = c.benchmark_group("view_build");
    group.bench_function("allowlist_20_of_60", |b| b.iter(per_request));
    group.bench_function("allowlist_20_of_60_only", |b| {
        b.iter(|| {
            registry
                .view()
                .allow(black_box(support::ALLOWLIST_20))
                .build()
                .expect("view")
        });
    });
    group.bench_function("everything_60", |b| {
        b.iter(|| registry.view().build().expect("view"));
    });
    group.finish();

    let view = registry
        .view()
        .scopes([Scope::Shared])
        .allow(support::ALLOWLIST_23)
        .build()
        .expect("view");
    assert_eq!(view.len(), 23);
    let mut group = c.benchmark_group("view_render_23");
    for dialect in [Dialect::OpenAiChat, Dialect::Mcp] {
        // Warm the per-tool cache, as a running server has it.
        let rendered = view.render(dialect);
        assert!(rendered.skipped.is_empty());
        assert!(rendered.json.starts_with('['));
        // The request body: each tool's cached text copied into one buffer.
        group.bench_function(format!("{dialect}_text"), |b| {
            b.iter(|| view.render(black_box(dialect)).json);
        });
        // A `Value` for callers that edit the list before sending it.
        group.bench_function(format!("{dialect}_value"), |b| {
            b.iter(|| view.render(black_box(dialect)).to_value());
        });
    }
    group.finish();

    assert_eq!(
        block_on(view.call("create_notes", NOTE, &ctx)),
        Response::Result(direct_note(NOTE))
    );
    let mut group = c.benchmark_group("view_dispatch_create_notes");
    group.bench_function("direct", |b| b.iter(|| direct_note(black_box(NOTE))));
    group.bench_function("registry", |b| {
        b.iter(|| block_on(registry.call(black_box("create_notes"), black_box(NOTE), &ctx)));
    });
    group.bench_function("view", |b| {
        b.iter(|| block_on(view.call(black_box("create_notes"), black_box(NOTE), &ctx)));
    });
    group.bench_function("view_lookup", |b| {
        b.iter(|| view.get(black_box("create_notes")).map(|tool| tool.name));
    });
    group.finish();
}

criterion_group! {
    name = benches;
    // A shared two-core machine: short runs, repeated, say more than long ones.
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    targets = views
}
criterion_main!(benches);

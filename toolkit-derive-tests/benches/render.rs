//! What rendering a set of tools for a request costs.
//!
//! The sets are the assistant's 23 tools (`examples/assistant`, use case A) and 50-
//! and 200-tool sets made of copies of them under new names (so each copy has its
//! own cache, as distinct tools would). Rows per set and dialect:
//!
//! - `render_set`: `toolkit::render::render_set(tools, dialect)`, what a registry or view
//!   renders per request: each tool's cached JSON text copied into one buffer.
//! - `value_clone`: the previous way, kept as the baseline: clone each tool's
//!   cached `serde_json::Value` into an array and serialize the tree.
//! - `rmcp_tools` (MCP only): the reference, rmcp's own `Tool` models (built once
//!   from the same MCP rendering, as a server that stores its tool list holds them)
//!   serialized with `serde_json::to_string`, what rmcp does per `tools/list`.
//! - `raw_value` (23 tools): `render_set(..).into_raw_value()`, which checks the text
//!   once more.
//!
//! Run: `cargo bench -p toolkit-derive-tests --bench render -- --measurement-time 3`;
//! the results are in BENCHMARKS.md.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::Value;
use toolkit::{Dialect, Registry, Tool, render::render_set};

// Nothing else in this benchmark names the crate, and the linker would drop its tools.
toolkit::link_tools!(example_assistant);

/// The assistant's tools, then copies of them under new names up to `count`.
fn tools(count: usize) -> Registry {
    let assistant: Vec<&'static Tool> = toolkit::registry()
        .iter()
        .map(toolkit::registry::RegisteredTool::tool)
        .filter(|tool| tool.location.module_path.starts_with("example_assistant"))
        .collect();
    assert_eq!(assistant.len(), 23, "the assistant's tools");
    let copies = (0..count).map(|position| {
        let original = assistant[position % assistant.len()];
        if position < assistant.len() {
            return original;
        }
        let name: &'static str =
            Box::leak(format!("{}_{}", original.name, position / assistant.len()).into_boxed_str());
        let copy: &'static Tool = Box::leak(Box::new(Tool {
            name,
            aliases: &[],
            ..*original
        }));
        copy
    });
    Registry::new(copies).expect("unique names")
}

fn render(c: &mut Criterion) {
    let mut group = c.benchmark_group("render");
    for count in [23, 50, 200] {
        let registry = tools(count);
        for dialect in [Dialect::OpenAiChat, Dialect::Mcp] {
            // Fill the caches: a long-running server renders each tool once.
            assert!(render_set(&registry, dialect).is_complete());
            let values: Vec<Value> = registry
                .iter()
                .map(|tool| tool.render(dialect).expect("renders"))
                .collect();
            let label = format!("{dialect}/{count}");
            group.bench_function(BenchmarkId::new("render_set", &label), |b| {
                b.iter(|| render_set(black_box(&registry), dialect).json);
            });
            group.bench_function(BenchmarkId::new("value_clone", &label), |b| {
                b.iter(|| {
                    let array = Value::Array(black_box(&values).clone());
                    serde_json::to_string(&array).expect("serializes")
                });
            });
            if dialect == Dialect::Mcp {
                let models: Vec<rmcp::model::Tool> = values
                    .iter()
                    .map(|value| serde_json::from_value(value.clone()).expect("an rmcp Tool"))
                    .collect();
                group.bench_function(BenchmarkId::new("rmcp_tools", &label), |b| {
                    b.iter(|| serde_json::to_string(black_box(&models)).expect("serializes"));
                });
            }
            if count == 23 {
                group.bench_function(BenchmarkId::new("raw_value", &label), |b| {
                    b.iter(|| render_set(black_box(&registry), dialect).into_raw_value());
                });
            }
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1));
    targets = render
}
criterion_main!(benches);

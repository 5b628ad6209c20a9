//! The cost of first use, in fresh processes (BENCHMARKS.md, "First use").
//!
//! The binary links 1,000 generated `#[tool]`s (see `build.rs`). Run without
//! arguments (or with a count), it starts itself that many times (default 21) in
//! `once` mode and prints the median, minimum and maximum of each figure; in `once`
//! mode it measures, in this order and in one fresh process:
//!
//! - `registry`: the first `toolkit::registry()` (names, aliases, the index);
//! - `view_render`: building a view of 5 tools and its first OpenAI render (those 5
//!   schemas generated, cleaned and rendered, nothing else);
//! - `all_schemas`: then the first `schema()` of every tool: what building the
//!   registry cost when it built every schema eagerly;
//! - `registry_eager`: `registry` + `all_schemas`, the eager equivalent.
//!
//! Run: `cargo run --release -p first-use-bench` (see BENCHMARKS.md, "First use").

use std::process::Command;
use std::time::Instant;

use toolkit::{Dialect, tool};

include!(concat!(env!("OUT_DIR"), "/tools.rs"));

/// The tools the small view holds.
const VIEW: [&str; 5] = [
    "get_record_0007",
    "get_record_0123",
    "get_record_0456",
    "get_record_0789",
    "get_record_0998",
];

fn once() {
    let started = Instant::now();
    let registry = toolkit::registry();
    let registry_ns = started.elapsed().as_nanos();

    let started = Instant::now();
    let view = registry
        .view()
        .allow(VIEW)
        .build()
        .expect("the view's tools exist");
    let rendered = view.render(Dialect::OpenAiChat);
    let view_render_ns = started.elapsed().as_nanos();
    assert!(rendered.skipped.is_empty());
    assert!(rendered.json.contains("get_record_0456"));

    let started = Instant::now();
    let properties = registry
        .iter()
        .filter(|tool| tool.schema().get("properties").is_some())
        .count();
    let all_schemas_ns = started.elapsed().as_nanos();
    assert_eq!(registry.len(), 1_000);
    assert_eq!(properties, 1_000);
    println!(
        "{registry_ns} {view_render_ns} {all_schemas_ns} {}",
        registry_ns + all_schemas_ns
    );
}

fn median(values: &mut [u128]) -> u128 {
    values.sort_unstable();
    values[values.len() / 2]
}

fn drive(runs: usize) {
    let me = std::env::current_exe().expect("the binary's path");
    let mut columns: [Vec<u128>; 4] = Default::default();
    for _ in 0..runs {
        let output = Command::new(&me)
            .arg("once")
            .output()
            .expect("the child runs");
        assert!(output.status.success(), "{output:?}");
        let text = String::from_utf8_lossy(&output.stdout);
        for (column, figure) in columns.iter_mut().zip(text.split_whitespace()) {
            column.push(figure.parse().expect("a number of nanoseconds"));
        }
    }
    println!("{runs} fresh processes, 1,000 tools; median [min, max]");
    for (name, column) in ["registry", "view_render", "all_schemas", "registry_eager"]
        .iter()
        .zip(columns.iter_mut())
    {
        let middle = median(column);
        #[allow(clippy::cast_precision_loss)]
        let micros = |ns: u128| ns as f64 / 1_000.0;
        println!(
            "{name:>15}: {:>9.1} µs [{:.1}, {:.1}]",
            micros(middle),
            micros(column[0]),
            micros(column[column.len() - 1])
        );
    }
}

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("once") => once(),
        Some(count) => drive(count.parse().expect("a number of runs")),
        None => drive(21),
    }
}

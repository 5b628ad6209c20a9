//! What dispatching through the registry costs over calling the function by hand.
//!
//! `registry` is `toolkit::registry().call(name, json_text, &ctx)`; `direct` is what
//! a hand-written handler does for the same tool: `serde_json::from_str` into an
//! equivalent argument struct, call the function, `serde_json::to_value` of the
//! result. Both run on `futures_executor::block_on`. The other rows take the
//! registry path apart: `definition_call` skips the name lookup (`Tool::call`, still
//! with `catch_unwind`), `dispatch_fn` calls the generated dispatcher directly (no
//! lookup, no `catch_unwind`; an `async` tool's boxed future, a plain `fn` tool's
//! function), `lookup` is the name lookup alone. `get_total` is `get_sum` as a
//! plain `fn`: no future to box.
//!
//! `set_pages` is a constrained tool (`#[schemars(range(min = 1, max = 100))]`): its
//! registry row pays for the schema check (a `Value` parse and the compiled
//! validator) on top of the typed parse. `get_sum` and `create_notes` have no
//! constraint keywords: their registry rows are the unchanged fast path.
//!
//! Before the timings, the bench prints the peak heap memory of one large valid
//! call (a million small list items) per input byte, counted by a global allocator.
//!
//! Run: `cargo bench -p toolkit-derive-tests --bench dispatch -- --measurement-time 5`;
//! the results are in BENCHMARKS.md.

// The tools are `async`, as most real tools are, so both paths pay for a future.
#![allow(clippy::unused_async)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use futures_executor::block_on;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolkit::{Context, Response, definition::Dispatch, tool};

/// The system allocator, counting the bytes live and the peak since the last reset
/// while [`COUNTING`] is on (only around the peak-memory call: three atomic
/// read-modify-writes per allocation would weigh on the timings, unevenly, since
/// the two paths allocate differently).
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
// Signed: memory allocated before counting started may be freed during it.
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() && COUNTING.load(Ordering::Relaxed) {
            let size = isize::try_from(layout.size()).unwrap_or(isize::MAX);
            let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        if COUNTING.load(Ordering::Relaxed) {
            LIVE.fetch_sub(
                isize::try_from(layout.size()).unwrap_or(isize::MAX),
                Ordering::Relaxed,
            );
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(pointer, layout) };
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One small list item.
#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Item {
    /// Its id.
    id: u32,
}

/// Create items; returns how many.
#[tool(scope = shared, tier = auto)]
async fn create_items(
    /// The items.
    items: Vec<Item>,
) -> usize {
    items.len()
}

/// Set pages; the count is constrained by the schema.
#[tool(scope = shared, tier = auto)]
async fn set_pages(
    /// How many pages, 1 to 100.
    #[schemars(range(min = 1, max = 100))]
    count: u32,
    /// Keep it on top.
    #[tool(default = false)]
    pinned: bool,
) -> u32 {
    if pinned { count } else { count + 1 }
}

/// The arguments a hand-written handler would parse for `set_pages`, with the
/// range checked by hand.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PagesArguments {
    count: u32,
    #[serde(default)]
    pinned: bool,
}

const PAGES: &str = r#"{"count": 40, "pinned": true}"#;

fn direct_pages(arguments: &str) -> Value {
    block_on(async {
        let parsed: PagesArguments = serde_json::from_str(arguments).expect("valid arguments");
        assert!((1..=100).contains(&parsed.count), "in range");
        let pages = set_pages(parsed.count, parsed.pinned).await;
        serde_json::to_value(pages).expect("serializable")
    })
}

/// Peak heap bytes of one call with a million small items, per input byte.
fn peak_memory() {
    let registry = toolkit::registry();
    let defaults = registry.limits();
    registry.set_limits(toolkit::call::Limits {
        max_argument_bytes: 64 * 1024 * 1024,
        ..defaults
    });
    let mut arguments = String::from(r#"{"items": ["#);
    for id in 0..1_000_000 {
        if id > 0 {
            arguments.push(',');
        }
        let _ = write!(arguments, r#"{{"id":{id}}}"#);
    }
    arguments.push_str("]}");
    let ctx = Context::new();
    LIVE.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    let started = Instant::now();
    let response = block_on(registry.call("create_items", &arguments, &ctx));
    let text = serde_json::to_string(&response).expect("serializable");
    let elapsed = started.elapsed();
    COUNTING.store(false, Ordering::Relaxed);
    assert_eq!(text, r#"{"result":1000000}"#);
    let peak = usize::try_from(PEAK.load(Ordering::Relaxed)).unwrap_or(0);
    #[allow(clippy::cast_precision_loss)]
    let per_byte = peak as f64 / arguments.len() as f64;
    println!(
        "peak_memory/create_items: {} input bytes, peak {} heap bytes above the input, {per_byte:.2} bytes per input byte, {elapsed:?}",
        arguments.len(),
        peak
    );
    registry.set_limits(defaults);
}

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

/// `get_sum` as a plain `fn`: a tool that does not await runs to completion in
/// its first poll, with no boxed future.
#[tool(scope = shared, tier = auto)]
fn get_total(
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

fn direct_total(arguments: &str) -> Value {
    block_on(async {
        let parsed: SumArguments = serde_json::from_str(arguments).expect("valid arguments");
        serde_json::to_value(get_total(parsed.a, parsed.b)).expect("serializable")
    })
}

fn dispatch(c: &mut Criterion) {
    peak_memory();
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
    assert_eq!(
        block_on(registry.call("get_total", SUM, &ctx)),
        Response::Result(direct_total(SUM))
    );
    assert_eq!(
        block_on(registry.call("set_pages", PAGES, &ctx)),
        Response::Result(direct_pages(PAGES))
    );
    assert!(!block_on(registry.call("set_pages", r#"{"count": 0}"#, &ctx)).is_success());

    for (name, arguments, direct) in [
        ("create_notes", NOTE, direct_note as fn(&str) -> Value),
        ("get_sum", SUM, direct_sum),
        ("get_total", SUM, direct_total),
        ("set_pages", PAGES, direct_pages),
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
        group.bench_function("dispatch_fn", |b| match tool.dispatch {
            Dispatch::Sync(run) => b.iter(|| run(black_box(arguments), &ctx)),
            Dispatch::Async(start) => b.iter(|| block_on(start(black_box(arguments), &ctx))),
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

//! Dispatch over the assistant example's 23 tools against the direct typed path
//! (the geometric mean of the ratios is the figure BENCHMARKS.md, "Dispatch", holds
//! to its goal).
//!
//! For each tool, `registry` is `toolkit::registry().call(name, json_text, &ctx)`
//! (the one `approve` tool, `delete_memories`, runs through
//! `RegisteredTool::call`, which skips the tier, since the registry refuses it);
//! `direct` is what a hand-written handler does: `serde_json::from_str` into a
//! `#[serde(deny_unknown_fields)]` struct with the same fields, the function with
//! the state at hand, `serde_json::to_value` of the result. Both run on
//! `futures_executor::block_on`.
//!
//! Tools that write would grow their store over millions of iterations, so each
//! timing runs batches of 100 calls on a fresh, seeded state (built outside the
//! timed part); reads and writes then see the same store sizes on both paths.
//!
//! Before criterion's measurements of a tool, the bench times both paths
//! interleaved: 201 rounds, each one batch of direct calls then one through the
//! registry, each on a fresh seeded state; the median per call of each path
//! (both see the same moments of a shared machine's load).
//!
//! After criterion's rows the bench prints each tool's ratio of the middle
//! estimates, the interleaved ratio, and their geometric means, from this one
//! run, beside the heap
//! allocations one call makes on each path (counted by a global allocator, on a
//! fresh seeded state, before any timing; the counter is off while timing, so
//! both timed paths pay the same one relaxed load per allocation).
//!
//! Run: `cargo bench -p toolkit-derive-tests --bench assistant`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::Criterion;
use example_assistant::AssistantState;
use example_assistant::tools::context::InstructionsMode;
use example_assistant::tools::entities::EntityKind;
use example_assistant::tools::memories::{MemoryUpdate, NewMemory, Relation};
use example_assistant::tools::reminders::NewReminder;
use example_assistant::tools::schedules::NewSchedule;
use example_assistant::tools::tasks::{NewTask, TaskUpdate};
use example_assistant::tools::{self as t};
use futures_executor::block_on;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use toolkit::{Context, State, ToolError};

/// The system allocator, counting allocations (and reallocations) while
/// [`COUNTING`] is on.
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(pointer, layout, new_size) }
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(pointer, layout) };
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Heap allocations (and reallocations) per call of `call`, over [`BATCH`] calls
/// on one fresh seeded state.
#[allow(clippy::cast_precision_loss)] // a few hundred allocations
fn allocations(mut call: impl FnMut(&AssistantState, &Context)) -> f64 {
    let s = seeded();
    let ctx = Context::new().with(s.clone());
    ALLOCATIONS.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    for _ in 0..BATCH {
        call(&s, &ctx);
    }
    COUNTING.store(false, Ordering::Relaxed);
    ALLOCATIONS.load(Ordering::Relaxed) as f64 / BATCH as f64
}

/// Rounds of the interleaved measure: each times one batch of each path.
const ROUNDS: usize = 201;

/// The interleaved measure: [`ROUNDS`] rounds, each timing one batch of
/// [`BATCH`] direct calls and then one batch through the registry, each on a
/// fresh seeded state; the median per call of each path, and the median of the
/// rounds' own ratios (registry / direct within one round: the paired ratio).
/// Both paths see the same moments of a shared machine's load, which
/// criterion's two separate measurements (seconds apart) do not.
#[allow(clippy::cast_precision_loss)] // batch sizes
fn interleaved(
    mut direct: impl FnMut(&AssistantState, &Context),
    mut registry: impl FnMut(&AssistantState, &Context),
) -> [f64; 3] {
    let mut samples = [
        Vec::with_capacity(ROUNDS),
        Vec::with_capacity(ROUNDS),
        Vec::with_capacity(ROUNDS),
    ];
    for _ in 0..ROUNDS {
        let direct_time = timed(BATCH, &mut direct).as_nanos() as f64 / BATCH as f64;
        let registry_time = timed(BATCH, &mut registry).as_nanos() as f64 / BATCH as f64;
        samples[0].push(direct_time);
        samples[1].push(registry_time);
        samples[2].push(registry_time / direct_time);
    }
    samples.map(|mut times| {
        times.sort_by(f64::total_cmp);
        times[ROUNDS / 2]
    })
}

/// Calls in one timed batch on one fresh state.
const BATCH: u64 = 100;

/// A tool's result as a hand-written handler returns it.
fn finish<T: serde::Serialize>(result: Result<T, ToolError>) -> Value {
    match result {
        Ok(value) => serde_json::to_value(value).expect("serializable"),
        Err(error) => Value::String(error.to_string()),
    }
}

fn parse<T: DeserializeOwned>(arguments: &str) -> T {
    serde_json::from_str(arguments).expect("valid arguments")
}

fn state(s: &AssistantState) -> State<AssistantState> {
    State(s.clone())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Nothing {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Project {
    name: Option<String>,
    #[serde(default)]
    confirmed: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InstructionsArgs {
    instructions: String,
    mode: Option<InstructionsMode>,
    #[serde(default)]
    confirmed: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntitiesArgs {
    id: Option<u32>,
    kind: Option<EntityKind>,
    limit: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchEntitiesArgs {
    query: String,
    kind: Option<EntityKind>,
    limit: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct QueryLimit {
    query: String,
    limit: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GmailArgs {
    id: Option<String>,
    limit: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IdLimit {
    id: Option<u32>,
    limit: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchMemoriesArgs {
    query: String,
    all_projects: Option<bool>,
    limit: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewMemories {
    memories: Vec<NewMemory>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MemoryUpdates {
    memories: Vec<MemoryUpdate>,
    #[serde(default)]
    confirmed: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Ids {
    ids: Vec<u32>,
    #[serde(default)]
    confirmed: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkArgs {
    from: u32,
    to: u32,
    relation: Option<Relation>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewReminders {
    reminders: Vec<NewReminder>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewSchedules {
    schedules: Vec<NewSchedule>,
    #[serde(default)]
    confirmed: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TasksArgs {
    id: Option<u32>,
    include_done: Option<bool>,
    limit: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewTasks {
    tasks: Vec<NewTask>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskUpdates {
    tasks: Vec<TaskUpdate>,
}

/// A `confirm` tool's handler acts only when confirmed.
fn confirmed(confirmed: bool) {
    assert!(confirmed, "the bench confirms every confirm tool");
}

type Direct = fn(&str, &AssistantState) -> Value;

/// Each tool: its name, the arguments, the hand-written handler.
fn cases() -> Vec<(&'static str, &'static str, Direct)> {
    vec![
        ("get_context", "{}", |a, s| {
            let Nothing {} = parse(a);
            serde_json::to_value(t::get_context(state(s), None)).expect("serializable")
        }),
        (
            "set_project",
            r#"{"name": "garden", "confirmed": true}"#,
            |a, s| {
                let p: Project = parse(a);
                confirmed(p.confirmed);
                finish(t::set_project(state(s), p.name))
            },
        ),
        (
            "update_instructions",
            r#"{"instructions": "Answer briefly, in English.", "confirmed": true}"#,
            |a, s| {
                let p: InstructionsArgs = parse(a);
                confirmed(p.confirmed);
                let mode = p.mode.unwrap_or(InstructionsMode::Replace);
                serde_json::to_value(t::update_instructions(state(s), p.instructions, mode))
                    .expect("serializable")
            },
        ),
        ("get_entities", r#"{"limit": 5}"#, |a, s| {
            let p: EntitiesArgs = parse(a);
            finish(t::get_entities(
                state(s),
                p.id,
                p.kind,
                p.limit.unwrap_or(20),
            ))
        }),
        ("search_entities", r#"{"query": "Ana"}"#, |a, s| {
            let p: SearchEntitiesArgs = parse(a);
            finish(t::search_entities(
                state(s),
                p.query,
                p.kind,
                p.limit.unwrap_or(10),
            ))
        }),
        (
            "search_gmail",
            r#"{"query": "invoice", "limit": 3}"#,
            |a, s| {
                let p: QueryLimit = parse(a);
                finish(t::search_gmail(state(s), p.query, p.limit.unwrap_or(10)))
            },
        ),
        ("get_gmail", r#"{"limit": 2}"#, |a, s| {
            let p: GmailArgs = parse(a);
            finish(t::get_gmail(state(s), p.id, p.limit.unwrap_or(5)))
        }),
        (
            "create_memories",
            r#"{"memories": [{"content": "Ana prefers green tea.", "tags": ["food"]}]}"#,
            |a, s| {
                let p: NewMemories = parse(a);
                finish(t::create_memories(state(s), p.memories))
            },
        ),
        ("search_memories", r#"{"query": "tea"}"#, |a, s| {
            let p: SearchMemoriesArgs = parse(a);
            finish(t::search_memories(
                state(s),
                p.query,
                p.all_projects.unwrap_or(false),
                p.limit.unwrap_or(10),
            ))
        }),
        ("get_memories", r#"{"id": 1}"#, |a, s| {
            let p: IdLimit = parse(a);
            finish(t::get_memories(state(s), p.id, p.limit.unwrap_or(20)))
        }),
        (
            "update_memories",
            r#"{"memories": [{"id": 1, "content": "Ana prefers black tea."}], "confirmed": true}"#,
            |a, s| {
                let p: MemoryUpdates = parse(a);
                confirmed(p.confirmed);
                finish(t::update_memories(state(s), p.memories))
            },
        ),
        ("delete_memories", r#"{"ids": [2]}"#, |a, s| {
            let p: Ids = parse(a);
            finish(t::delete_memories(state(s), p.ids))
        }),
        ("link_memories", r#"{"from": 1, "to": 3}"#, |a, s| {
            let p: LinkArgs = parse(a);
            finish(t::link_memories(
                state(s),
                p.from,
                p.to,
                p.relation.unwrap_or(Relation::Related),
            ))
        }),
        ("get_reminders", "{}", |a, s| {
            let p: IdLimit = parse(a);
            finish(t::get_reminders(state(s), p.id, p.limit.unwrap_or(20)))
        }),
        (
            "create_reminders",
            r#"{"reminders": [{"text": "Call Ana", "at": "2026-11-24T09:00:00+01:00"}]}"#,
            |a, s| {
                let p: NewReminders = parse(a);
                finish(t::create_reminders(state(s), p.reminders))
            },
        ),
        (
            "delete_reminders",
            r#"{"ids": [1], "confirmed": true}"#,
            |a, s| {
                let p: Ids = parse(a);
                confirmed(p.confirmed);
                finish(t::delete_reminders(state(s), p.ids))
            },
        ),
        ("get_schedules", "{}", |a, s| {
            let p: IdLimit = parse(a);
            finish(t::get_schedules(state(s), p.id, p.limit.unwrap_or(20)))
        }),
        (
            "create_schedules",
            r#"{"schedules": [{"prompt": "Summarise my inbox.", "recurrence": {"kind": "daily", "time": "08:00"}}], "confirmed": true}"#,
            |a, s| {
                let p: NewSchedules = parse(a);
                confirmed(p.confirmed);
                finish(t::create_schedules(state(s), p.schedules))
            },
        ),
        (
            "delete_schedules",
            r#"{"ids": [1], "confirmed": true}"#,
            |a, s| {
                let p: Ids = parse(a);
                confirmed(p.confirmed);
                finish(t::delete_schedules(state(s), p.ids))
            },
        ),
        (
            "get_tasks",
            r#"{"include_done": true, "limit": 5}"#,
            |a, s| {
                let p: TasksArgs = parse(a);
                finish(t::get_tasks(
                    state(s),
                    p.id,
                    p.include_done.unwrap_or(false),
                    p.limit.unwrap_or(20),
                ))
            },
        ),
        (
            "create_tasks",
            r#"{"tasks": [{"title": "Water the plants", "priority": "high"}]}"#,
            |a, s| {
                let p: NewTasks = parse(a);
                finish(t::create_tasks(state(s), p.tasks))
            },
        ),
        (
            "update_tasks",
            r#"{"tasks": [{"id": 1, "done": true}]}"#,
            |a, s| {
                let p: TaskUpdates = parse(a);
                finish(t::update_tasks(state(s), p.tasks))
            },
        ),
        (
            "delete_tasks",
            r#"{"ids": [2], "confirmed": true}"#,
            |a, s| {
                let p: Ids = parse(a);
                confirmed(p.confirmed);
                finish(t::delete_tasks(state(s), p.ids))
            },
        ),
    ]
}

/// A state with a few records of every kind, as after some conversation.
fn seeded() -> AssistantState {
    let s = AssistantState::new();
    let ctx = Context::new().with(s.clone());
    let registry = toolkit::registry();
    for (name, arguments) in [
        (
            "create_tasks",
            r#"{"tasks": [{"title": "Buy oat milk"}, {"title": "Book the dentist"}, {"title": "Water the plants"}]}"#,
        ),
        (
            "create_memories",
            r#"{"memories": [{"content": "Ana likes tea.", "entities": [{"name": "Ana", "kind": "person"}]}, {"content": "The garden needs compost."}, {"content": "Tea with Ana on Fridays."}]}"#,
        ),
        (
            "create_reminders",
            r#"{"reminders": [{"text": "Call the dentist", "at": "2026-11-24T10:00:00+01:00"}]}"#,
        ),
        (
            "create_schedules",
            r#"{"schedules": [{"prompt": "Plan the week.", "recurrence": {"kind": "weekly", "day": "monday", "time": "08:00"}}], "confirmed": true}"#,
        ),
    ] {
        let response = block_on(registry.call(name, arguments, &ctx));
        assert!(response.is_success(), "{name}: {response:?}");
    }
    s
}

/// Times `iters` calls in batches of [`BATCH`], each batch on a fresh state.
fn timed(iters: u64, mut call: impl FnMut(&AssistantState, &Context)) -> Duration {
    let mut total = Duration::ZERO;
    let mut left = iters;
    while left > 0 {
        let s = seeded();
        let ctx = Context::new().with(s.clone());
        let batch = left.min(BATCH);
        let started = Instant::now();
        for _ in 0..batch {
            call(&s, &ctx);
        }
        total += started.elapsed();
        left -= batch;
    }
    total
}

fn main() {
    let registry = toolkit::registry();
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let profiling = std::env::args().any(|argument| argument == "--profile-time");
    let mut ratios = Vec::new();
    for (name, arguments, direct) in cases() {
        let tool = registry.get(name).expect("an assistant tool");
        let call = |ctx: &Context| {
            if tool.tier == toolkit::Tier::Approve {
                block_on(tool.call_with_limits(arguments, ctx, registry.limits()))
            } else {
                block_on(registry.call(black_box(name), black_box(arguments), ctx))
            }
        };
        // Both paths give the same JSON on the same state.
        let (one, other) = (seeded(), seeded());
        let through_registry = call(&Context::new().with(one.clone()));
        let by_hand = block_on(async { direct(arguments, &other) });
        match &through_registry {
            toolkit::Response::Result(value) => assert_eq!(value, &by_hand, "{name}"),
            toolkit::Response::Error(error) => {
                assert_eq!(Value::String(error.to_string()), by_hand, "{name}");
            }
            other => panic!("{name}: {other:?}"),
        }
        // Under criterion's profile mode (scripts/dispatch_instructions.sh runs
        // one path of one tool under callgrind) only that path runs.
        let (counts, medians) = if profiling {
            ([f64::NAN; 2], [f64::NAN; 3])
        } else {
            let counts = [
                allocations(|s, _| {
                    black_box(block_on(async { direct(black_box(arguments), s) }));
                }),
                allocations(|_, ctx| {
                    black_box(call(ctx));
                }),
            ];
            let medians = interleaved(
                |s, _| {
                    black_box(block_on(async { direct(black_box(arguments), s) }));
                },
                |_, ctx| {
                    black_box(call(ctx));
                },
            );
            (counts, medians)
        };
        let mut group = criterion.benchmark_group(format!("assistant/{name}"));
        let mut estimates = [0.0_f64; 2];
        group.bench_function("direct", |b| {
            b.iter_custom(|iters| {
                timed(iters, |s, _| {
                    black_box(block_on(async { direct(black_box(arguments), s) }));
                })
            });
        });
        group.bench_function("registry", |b| {
            b.iter_custom(|iters| {
                timed(iters, |_, ctx| {
                    black_box(call(ctx));
                })
            });
        });
        group.finish();
        for (slot, path) in estimates.iter_mut().zip(["direct", "registry"]) {
            *slot = estimate(&format!("assistant_{name}"), path).unwrap_or(f64::NAN);
        }
        ratios.push((name, estimates, medians, counts));
    }
    criterion.final_summary();
    println!(
        "\n| tool | direct | registry | ratio | interleaved direct | registry | ratio | paired ratio | allocations direct | registry |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    let (mut log_sum, mut log_sum_interleaved, mut log_sum_paired) = (0.0, 0.0, 0.0);
    for (
        name,
        [direct, registry],
        [direct_median, registry_median, paired],
        [allocs_direct, allocs_registry],
    ) in &ratios
    {
        let ratio = registry / direct;
        let interleaved_ratio = registry_median / direct_median;
        log_sum += ratio.ln();
        log_sum_interleaved += interleaved_ratio.ln();
        log_sum_paired += paired.ln();
        println!(
            "| `{name}` | {direct:.0} ns | {registry:.0} ns | {ratio:.3}x | {direct_median:.0} ns | {registry_median:.0} ns | {interleaved_ratio:.3}x | {paired:.3}x | {allocs_direct:.2} | {allocs_registry:.2} |"
        );
    }
    #[allow(clippy::cast_precision_loss)]
    let count = ratios.len() as f64;
    println!(
        "\ngeometric mean of {} ratios: {:.3}x (criterion), {:.3}x (interleaved medians), {:.3}x (paired, median of each round's ratio)",
        ratios.len(),
        (log_sum / count).exp(),
        (log_sum_interleaved / count).exp(),
        (log_sum_paired / count).exp()
    );
}

/// Criterion's middle estimate of the mean (ns), from the files it just wrote.
fn estimate(group: &str, function: &str) -> Option<f64> {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("target")
        },
        std::path::PathBuf::from,
    );
    let path = target
        .join("criterion")
        .join(group)
        .join(function)
        .join("new")
        .join("estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let value: Value = serde_json::from_str(&text).ok()?;
    value["mean"]["point_estimate"].as_f64()
}

//! toolkit's dispatch against rmcp's stored tool router, in one process, over a
//! representative subset of the assistant example's tools (BENCHMARKS.md,
//! "Against rmcp's stored router, in process").
//!
//! Three paths per tool, each on a fresh seeded state per batch of [`BATCH`]
//! calls (built outside the timed part):
//!
//! - `call`: `toolkit::registry().call(name, arguments_text, &ctx)`;
//! - `call_value`: `toolkit::registry().call_value(name, &arguments, &ctx)` on the
//!   arguments already parsed (what the MCP path holds after rmcp parsed the
//!   request);
//! - `call_value + text`: the same, then the result's JSON text, which every MCP
//!   result carries beside its structured content (rmcp's
//!   `CallToolResult::structured` writes it inside the rmcp path too);
//! - `rmcp`: the same tools written on rmcp the usual way (`#[tool_router]`,
//!   `#[tool]` methods taking `Parameters<T>` of a `deny_unknown_fields` struct,
//!   the result as `CallToolResult::structured`), the `ToolRouter` built once, and
//!   called as rmcp's server calls it once the request is parsed:
//!   `ToolRouter::call(ToolCallContext::new(&service, params, context))` with a
//!   `CallToolRequestParams` owning the arguments `Map` (built before the timed
//!   batch, as the request's parse hands it over) and a fresh `RequestContext`
//!   per call. A `RequestContext` needs a `Peer`, which rmcp only builds for a
//!   running service: the bench serves one with `rmcp::service::serve_directly`
//!   over an in-memory `tokio::io::duplex` pipe nobody writes to, and clones its
//!   peer.
//!
//! The tools are the subset [`cases`] lists (one per argument shape of the
//! assistant: none, an optional string, optional enums and numbers, a string and
//! a number, a list of nested objects, a list of objects with a tagged enum, a
//! list of ids, plus a confirm tool), not all 23: rmcp's tools are methods written
//! out by hand for each tool, and eight cover every shape the 23 have.
//!
//! Each of [`ROUNDS`] rounds times one batch of each path, in turn; the figures
//! are the median per call of each path, and the paired ratio, the median of the
//! rounds' own ratios (the batches of one round see the same moment of a shared
//! machine's load). The bench prints them per tool and their geometric means.
//!
//! Run: `cargo bench -p toolkit-derive-tests --bench rmcp_router`.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use example_assistant::AssistantState;
use example_assistant::tools::entities::EntityKind;
use example_assistant::tools::memories::NewMemory;
use example_assistant::tools::schedules::NewSchedule;
use example_assistant::tools::{self as t};
use futures_executor::block_on;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, JsonObject, RequestId,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolkit::{Context, Response, State, ToolError};

/// Calls in one timed batch on one fresh state.
const BATCH: usize = 100;

/// Rounds: each times one batch of each path.
const ROUNDS: usize = 201;

/// The assistant's tools on rmcp alone, over one state.
#[derive(Clone)]
struct Assistant {
    state: AssistantState,
}

impl Assistant {
    fn state(&self) -> State<AssistantState> {
        State(self.state.clone())
    }
}

/// A tool's result as an rmcp tool returns it: the value as structured content
/// (and its text), a tool error as an error result the model reads.
fn finish<T: Serialize>(result: Result<T, ToolError>) -> Result<CallToolResult, ErrorData> {
    match result {
        Ok(value) => serde_json::to_value(value)
            .map(CallToolResult::structured)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None)),
        Err(error) => Ok(CallToolResult::error(vec![ContentBlock::text(
            error.to_string(),
        )])),
    }
}

/// A confirm tool acts only when confirmed (the `Result` is the tools' own
/// return type).
#[allow(clippy::unnecessary_wraps)]
fn unconfirmed() -> Result<CallToolResult, ErrorData> {
    Ok(CallToolResult::error(vec![ContentBlock::text(
        "call again with `confirmed: true` to act",
    )]))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Nothing {}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Project {
    /// The project's name; leave it out to clear the active project.
    name: Option<String>,
    /// Act: `true` once the user agreed.
    #[serde(default)]
    confirmed: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EntitiesArgs {
    /// Return only this entity.
    id: Option<u32>,
    /// Only entities of this kind.
    kind: Option<EntityKind>,
    /// At most this many entities.
    limit: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct QueryLimit {
    /// Words that must all appear.
    query: String,
    /// At most this many messages.
    limit: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NewMemories {
    /// The memories to create.
    memories: Vec<NewMemory>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TasksArgs {
    /// Return only this task (even if it is done).
    id: Option<u32>,
    /// Also list tasks that are done.
    include_done: Option<bool>,
    /// At most this many tasks.
    limit: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NewSchedules {
    /// The schedules to create.
    schedules: Vec<NewSchedule>,
    /// Act: `true` once the user agreed.
    #[serde(default)]
    confirmed: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Ids {
    /// The ids of the tasks to delete.
    ids: Vec<u32>,
    /// Act: `true` once the user agreed.
    #[serde(default)]
    confirmed: bool,
}

// rmcp's `#[tool]` methods take `&self` and return its result types; the
// arguments struct is moved in, as rmcp's own examples write them.
#[allow(clippy::unnecessary_wraps, clippy::needless_pass_by_value)]
#[tool_router]
impl Assistant {
    /// Get the current context: time, channel, project, instructions.
    #[rmcp::tool]
    fn get_context(
        &self,
        Parameters(Nothing {}): Parameters<Nothing>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(Ok(t::get_context(self.state(), None)))
    }

    /// Set the active project.
    #[rmcp::tool]
    fn set_project(&self, Parameters(p): Parameters<Project>) -> Result<CallToolResult, ErrorData> {
        if !p.confirmed {
            return unconfirmed();
        }
        finish(t::set_project(self.state(), p.name))
    }

    /// Get entities (people, places, organisations).
    #[rmcp::tool]
    fn get_entities(
        &self,
        Parameters(p): Parameters<EntitiesArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(t::get_entities(
            self.state(),
            p.id,
            p.kind,
            p.limit.unwrap_or(20),
        ))
    }

    /// Search the user's mail.
    #[rmcp::tool]
    fn search_gmail(
        &self,
        Parameters(p): Parameters<QueryLimit>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(t::search_gmail(
            self.state(),
            p.query,
            p.limit.unwrap_or(10),
        ))
    }

    /// Create memories.
    #[rmcp::tool]
    fn create_memories(
        &self,
        Parameters(p): Parameters<NewMemories>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(t::create_memories(self.state(), p.memories))
    }

    /// Get tasks.
    #[rmcp::tool]
    fn get_tasks(&self, Parameters(p): Parameters<TasksArgs>) -> Result<CallToolResult, ErrorData> {
        finish(t::get_tasks(
            self.state(),
            p.id,
            p.include_done.unwrap_or(false),
            p.limit.unwrap_or(20),
        ))
    }

    /// Create schedules.
    #[rmcp::tool]
    fn create_schedules(
        &self,
        Parameters(p): Parameters<NewSchedules>,
    ) -> Result<CallToolResult, ErrorData> {
        if !p.confirmed {
            return unconfirmed();
        }
        finish(t::create_schedules(self.state(), p.schedules))
    }

    /// Delete tasks.
    #[rmcp::tool]
    fn delete_tasks(&self, Parameters(p): Parameters<Ids>) -> Result<CallToolResult, ErrorData> {
        if !p.confirmed {
            return unconfirmed();
        }
        finish(t::delete_tasks(self.state(), p.ids))
    }
}

// Only needed to start a service whose peer the request contexts carry.
impl ServerHandler for Assistant {}

/// Each tool of the subset and its arguments (those of the assistant bench).
fn cases() -> [(&'static str, &'static str); 8] {
    [
        ("get_context", "{}"),
        ("set_project", r#"{"name": "garden", "confirmed": true}"#),
        ("get_entities", r#"{"limit": 5}"#),
        ("search_gmail", r#"{"query": "invoice", "limit": 3}"#),
        (
            "create_memories",
            r#"{"memories": [{"content": "Ana prefers green tea.", "tags": ["food"]}]}"#,
        ),
        ("get_tasks", r#"{"include_done": true, "limit": 5}"#),
        (
            "create_schedules",
            r#"{"schedules": [{"prompt": "Summarise my inbox.", "recurrence": {"kind": "daily", "time": "08:00"}}], "confirmed": true}"#,
        ),
        ("delete_tasks", r#"{"ids": [2], "confirmed": true}"#),
    ]
}

/// A state with a few records of every kind, as the assistant bench seeds it.
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

/// One call through rmcp's router, as its server makes it after parsing.
fn rmcp_call(
    router: &ToolRouter<Assistant>,
    service: &Assistant,
    peer: &Peer<RoleServer>,
    params: CallToolRequestParams,
) -> Result<CallToolResponse, ErrorData> {
    let context = RequestContext::new(RequestId::Number(1), peer.clone());
    block_on(router.call(ToolCallContext::new(service, params, context)))
}

/// The paths of one tool, each timing one batch on a fresh seeded state.
struct Paths<'a> {
    name: &'static str,
    text: &'static str,
    value: &'a Value,
    params: &'a CallToolRequestParams,
    router: &'a ToolRouter<Assistant>,
    peer: &'a Peer<RoleServer>,
}

impl Paths<'_> {
    /// Nanoseconds per call of one batch of `path` (0 `call`, 1 `call_value`,
    /// 2 `call_value` and the result's text, 3 `rmcp`).
    #[allow(clippy::cast_precision_loss)] // batch times
    fn batch(&self, path: usize) -> f64 {
        let registry = toolkit::registry();
        let state = seeded();
        let ctx = Context::new().with(state.clone());
        let service = Assistant { state };
        // The request's arguments are the parse's own: each call owns a copy,
        // made before the clock starts.
        let requests: Vec<CallToolRequestParams> = if path == 3 {
            (0..BATCH).map(|_| self.params.clone()).collect()
        } else {
            Vec::new()
        };
        let started = Instant::now();
        match path {
            0 => {
                for _ in 0..BATCH {
                    black_box(block_on(registry.call(
                        black_box(self.name),
                        black_box(self.text),
                        &ctx,
                    )));
                }
            }
            1 => {
                for _ in 0..BATCH {
                    black_box(block_on(registry.call_value(
                        black_box(self.name),
                        self.value,
                        &ctx,
                    )));
                }
            }
            2 => {
                for _ in 0..BATCH {
                    let response =
                        block_on(registry.call_value(black_box(self.name), self.value, &ctx));
                    if let Response::Result(value) = &response {
                        black_box(value.to_string());
                    }
                    black_box(response);
                }
            }
            _ => {
                for params in requests {
                    black_box(rmcp_call(self.router, &service, self.peer, params)).ok();
                }
            }
        }
        started.elapsed().as_nanos() as f64 / BATCH as f64
    }
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() {
    // rmcp builds a `Peer` only for a running service: one served over an
    // in-memory pipe that stays silent, on a runtime that is entered but never
    // driven (nothing here sends to the peer).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a tokio runtime");
    let _entered = runtime.enter();
    let (pipe, _other_end) = tokio::io::duplex(4096);
    let running = rmcp::service::serve_directly(
        Assistant {
            state: AssistantState::new(),
        },
        pipe,
        None,
    );
    let peer = running.peer().clone();
    let router = Arc::new(Assistant::tool_router());

    // `--only TOOL PATH` runs that one path of that tool for a few seconds and
    // prints nothing (for callgrind: scripts/dispatch_instructions.sh's way).
    let arguments: Vec<String> = std::env::args().collect();
    let only = arguments
        .iter()
        .position(|argument| argument == "--only")
        .and_then(|at| {
            Some((
                arguments.get(at + 1)?.clone(),
                arguments.get(at + 2)?.parse::<usize>().ok()?,
            ))
        });
    println!(
        "| tool | call | call_value | call_value + text | rmcp | rmcp / call | rmcp / call_value + text | paired rmcp / call | paired rmcp / call_value + text |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    let mut logs = [0.0_f64; 4];
    for (name, text) in cases() {
        let value: Value = serde_json::from_str(text).expect("valid arguments");
        let Value::Object(map) = value.clone() else {
            panic!("{name}: arguments are an object");
        };
        let params = CallToolRequestParams::new(name).with_arguments(JsonObject::clone(&map));
        // All paths give the same result on the same state.
        let through_toolkit =
            block_on(toolkit::registry().call(name, text, &Context::new().with(seeded())));
        let through_rmcp = rmcp_call(
            &router,
            &Assistant { state: seeded() },
            &peer,
            params.clone(),
        );
        match (&through_toolkit, &through_rmcp) {
            (Response::Result(value), Ok(CallToolResponse::Complete(result))) => {
                assert_eq!(result.structured_content.as_ref(), Some(value), "{name}");
            }
            other => panic!("{name}: {other:?}"),
        }
        let paths = Paths {
            name,
            text,
            value: &value,
            params: &params,
            router: &router,
            peer: &peer,
        };
        if let Some((tool, path)) = &only {
            if tool == name {
                for _ in 0..ROUNDS {
                    black_box(paths.batch(*path));
                }
            }
            continue;
        }
        let mut samples: [Vec<f64>; 6] = Default::default();
        for _ in 0..ROUNDS {
            let times = [
                paths.batch(0),
                paths.batch(1),
                paths.batch(2),
                paths.batch(3),
            ];
            for (slot, time) in samples.iter_mut().zip(times) {
                slot.push(time);
            }
            samples[4].push(times[3] / times[0]);
            samples[5].push(times[3] / times[2]);
        }
        let [call, call_value, with_text, rmcp, paired_call, paired_text] = samples.map(median);
        let ratios = [rmcp / call, rmcp / with_text, paired_call, paired_text];
        for (log, ratio) in logs.iter_mut().zip(ratios) {
            *log += ratio.ln();
        }
        println!(
            "| `{name}` | {call:.0} ns | {call_value:.0} ns | {with_text:.0} ns | {rmcp:.0} ns | {:.3}x | {:.3}x | {:.3}x | {:.3}x |",
            ratios[0], ratios[1], ratios[2], ratios[3]
        );
    }
    #[allow(clippy::cast_precision_loss)]
    let count = cases().len() as f64;
    let [a, b, c, d] = logs.map(|log| (log / count).exp());
    println!(
        "\ngeometric means over {count} tools: rmcp / call {a:.3}x, rmcp / (call_value + text) {b:.3}x (medians); paired: {c:.3}x, {d:.3}x"
    );
    drop(running);
}

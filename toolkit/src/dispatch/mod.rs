//! Turning the model's argument text into a call, or into a precise, bounded error.
//!
//! Every call through a [`Registry`](crate::Registry) (or a view) passes one place,
//! [`RegisteredTool::call`](crate::registry::RegisteredTool::call), in this order:
//!
//! 1. [`limits`]: the text's size and nesting depth, checked on the raw bytes
//!    before anything parses it;
//! 2. [`validate`]: for a tool whose schema carries keywords serde does not enforce
//!    (bounds, lengths, patterns, formats), the arguments are checked against the
//!    schema the model saw, and every problem is reported with its path; for a tool
//!    with nested objects called with an array in its arguments, [`shape`] first
//!    streams over the text looking for an array where only an object goes (serde
//!    would read it positionally), and only then is the schema checked;
//! 3. [`parse`]: the generated dispatcher parses the text straight into the typed
//!    arguments (one `serde_json::from_str`; only a failure takes the slow path);
//! 4. the `#[ctx]` values are extracted and the function runs, with every panic
//!    caught ([`panics`]).
//!
//! [`messages`] holds the wording: JSON terms, paths, bounded and cleaned echoes.
//! [`layout`] serves only the slow path: it re-lays a refused text one member per
//! line, so the line of serde's own error names its path without a second,
//! path-tracking instantiation of every argument type's `Deserialize` (what
//! `serde_path_to_error` would cost in build time per tool crate); a call that
//! parses never reaches it.
//!
//! # What the kept crates do here, and what is left to this module
//!
//! - `serde_json` parses (the fast path is its `from_str::<T>`, nothing around
//!   it) and gives every error's line and column; `layout` turns that position
//!   into a path, and that is all `layout` does.
//! - `jsonschema` checks the constraints and names each problem's place
//!   (`instance_path`, written as `tasks[2].due` in `validate`); `validate` adds
//!   only the words (JSON terms, the accepted values, the closest property name)
//!   and which `null`s mean "absent".
//! - `serde_path_to_error` names the place of a malformed text, over
//!   `serde_json::Value` only: one instantiation in toolkit, none per tool.
//!   Wrapping each argument type's `Deserialize` in it instead would compile every
//!   tool's argument parser twice in the tool crates; `layout` exists to avoid
//!   that, and costs a linear copy of a refused text, on refused calls only.
//! - What no crate offers: bounds checked before parsing ([`limits`]: `serde_json`'s
//!   own recursion limit is a fixed 128, without a path), serde's words rewritten
//!   for a model ([`messages`]), an array refused where serde would read a struct
//!   positionally without building a `Value` ([`shape`]), and panics caught in the
//!   tool, its drop and its hook with an id ([`panics`]; `futures_util`'s
//!   `CatchUnwind` does not catch a panic in the future's drop).

pub(crate) mod layout;
pub(crate) mod limits;
pub(crate) mod messages;
pub(crate) mod panics;
pub(crate) mod parse;
pub(crate) mod shape;
pub(crate) mod validate;

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

pub use limits::Limits;
pub use panics::{PANIC_MESSAGE, PanicReport, expose_panic_messages, on_panic};
pub(crate) use validate::Plan;

use crate::context::Context;
use crate::error::ToolError;
use crate::response::Response;
use crate::tool::{Dispatch, Tool};

/// The checks that come before the dispatcher: limits, then the schema where the
/// plan asks for it. `Ok` means "dispatch the text as it is".
#[inline]
pub(crate) fn precheck(plan: &Plan, arguments: &str, limits: &Limits) -> Result<(), ToolError> {
    limits::check_text(arguments, limits)?;
    if plan.constrained
        || (plan.nested_objects
            && !plan.arrays_in_place(arguments)
            && shape::has_array_for_object(plan.schema(), arguments))
    {
        check_schema(plan, arguments)?;
    }
    Ok(())
}

/// The arguments against the schema the model saw; every problem reported.
pub(crate) fn check_schema(plan: &Plan, arguments: &str) -> Result<(), ToolError> {
    let trimmed = arguments.trim();
    let mut value = if trimmed.is_empty() || trimmed == "null" {
        serde_json::Value::Object(serde_json::Map::new())
    } else {
        parse::parse_value(arguments)?
    };
    if !value.is_object() {
        return Err(parse::not_an_object());
    }
    plan.strip_optional_nulls(&mut value);
    if plan.is_valid(&value) {
        return Ok(());
    }
    let problems = plan.problems(&value);
    if problems.is_empty() {
        return Ok(());
    }
    Err(messages::into_error(problems))
}

/// Runs `tool` after the checks: the future of [`crate::registry::RegisteredTool::call`].
#[inline]
pub(crate) fn call<'a>(
    tool: &'a Tool,
    plan: &Plan,
    limits: &Limits,
    arguments: &'a str,
    ctx: &'a Context,
) -> Call<'a> {
    match precheck(plan, arguments, limits) {
        Ok(()) => Call::start(tool, arguments, ctx),
        Err(error) => Call::ready(Response::Error(error)),
    }
}

// `Tool::call` lives beside what it runs: the definition (`tool.rs`) stands below
// dispatch and does not name it.
impl Tool {
    /// Runs the tool with the model's JSON `arguments`, whatever its tier: the raw
    /// per-tool runner. [`View::call`](crate::View::call) and
    /// [`Registry::call`](crate::Registry::call) apply the tier (an `approve` tool
    /// never runs without a valid approval there); this does not.
    ///
    /// It parses them straight into the
    /// typed arguments, extracts `#[ctx]` values, awaits the function and serializes
    /// its result.
    ///
    /// This is the raw per-tool runner: it does not apply [`Limits`](crate::call::Limits),
    /// the schema's constraint keywords (`minimum`, `pattern`, ...) or a tier.
    /// Applications call tools through [`Registry::call`](crate::Registry::call) (or
    /// a view), which go through
    /// [`RegisteredTool::call`](crate::registry::RegisteredTool::call) and do all of that.
    ///
    /// Empty or whitespace-only `arguments`, and `null`, count as `{}` (providers
    /// send those for tools without parameters).
    ///
    /// # Panics
    ///
    /// Never, under the default `panic = "unwind"`: a panic inside the tool, while
    /// its future is dropped (cancelled, or after it finished), or in the `Drop` of
    /// a panic's payload, is caught and becomes
    /// [`ToolError::Panicked`](crate::ToolError::Panicked) with a stable message and
    /// an id; the full text goes to [`on_panic`](crate::panics::on_panic) and a `tracing`
    /// event. Two things cannot be caught: under `panic = "abort"` (in
    /// `[profile.*]`) every panic ends the process before any code of toolkit runs,
    /// so keep `unwind` in binaries that serve tools (or run tools in a child
    /// process); and a panic during unwinding (a `Drop` that panics while another
    /// panic is in flight) aborts, as Rust does everywhere.
    pub fn call<'a>(
        &'a self,
        arguments: &'a str,
        ctx: &'a Context,
    ) -> impl Future<Output = Response> + Send + 'a {
        Call::start(self, arguments, ctx)
    }
}

/// The one future of every call, whatever layer made it ([`Tool::call`],
/// [`crate::registry::RegisteredTool::call`], [`crate::Registry::call`]): nothing runs
/// before its first poll; a plain `fn` tool then runs to completion in that poll,
/// with no allocation, and an `async` tool's boxed future is polled with every
/// panic caught ([`panics::CatchPanics`]). An error found before the tool (an
/// unknown name, the limits, the schema) is a ready response.
#[must_use = "futures do nothing unless polled"]
pub(crate) struct Call<'a> {
    state: State<'a>,
}

enum State<'a> {
    Start {
        tool: &'a Tool,
        arguments: &'a str,
        ctx: &'a Context,
    },
    Running(panics::CatchPanics<'a>),
    Ready(Response),
    Done,
}

impl<'a> Call<'a> {
    #[inline]
    pub(crate) fn start(tool: &'a Tool, arguments: &'a str, ctx: &'a Context) -> Self {
        Call {
            state: State::Start {
                tool,
                arguments,
                ctx,
            },
        }
    }

    /// A future already started elsewhere (a runtime tool's forwarder), polled
    /// with every panic caught.
    pub(crate) fn running(tool: &'static str, future: crate::tool::CallFuture<'a>) -> Self {
        Call {
            state: State::Running(panics::CatchPanics::new(tool, future)),
        }
    }

    pub(crate) fn ready(response: Response) -> Self {
        Call {
            state: State::Ready(response),
        }
    }
}

impl Future for Call<'_> {
    type Output = Response;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Response> {
        // `Call` is `Unpin`: an async tool's future is behind its own box.
        let this = &mut *self;
        // The common first poll reads three references and leaves `Done`, without
        // moving the whole state (a `Response` wide) out and back.
        if let State::Start {
            tool,
            arguments,
            ctx,
        } = this.state
        {
            this.state = State::Done;
            return match tool.dispatch {
                // The whole tool, its locals' drops included, runs inside one
                // `catch_unwind`.
                Dispatch::Sync(run) => Poll::Ready(
                    match catch_unwind(AssertUnwindSafe(|| run(arguments, ctx))) {
                        Ok(response) => response,
                        Err(payload) => Response::Error(panics::caught(tool.name, payload)),
                    },
                ),
                Dispatch::Async(start) => {
                    match catch_unwind(AssertUnwindSafe(|| start(arguments, ctx))) {
                        Ok(future) => {
                            let mut running = panics::CatchPanics::new(tool.name, future);
                            let poll = Pin::new(&mut running).poll(cx);
                            if poll.is_pending() {
                                this.state = State::Running(running);
                            }
                            poll
                        }
                        Err(payload) => {
                            Poll::Ready(Response::Error(panics::caught(tool.name, payload)))
                        }
                    }
                }
            };
        }
        match std::mem::replace(&mut this.state, State::Done) {
            State::Start { .. } | State::Done => Poll::Ready(Response::Error(ToolError::failed(
                "the call was polled again after it finished",
            ))),
            State::Running(mut running) => {
                let poll = Pin::new(&mut running).poll(cx);
                if poll.is_pending() {
                    this.state = State::Running(running);
                }
                poll
            }
            State::Ready(response) => Poll::Ready(response),
        }
    }
}

//! The static definition of one tool, as `#[tool]` writes it.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use crate::binding::Binding;
use crate::context::Context;
use crate::declaration::{Location, Param, Scope, Tier};
use crate::response::Response;

/// The future an `async` tool's dispatcher returns.
pub type CallFuture<'a> = Pin<Box<dyn Future<Output = Response> + Send + 'a>>;

/// A tool's generated dispatcher: it parses the JSON arguments, extracts the
/// context and runs the function. Call it through [`Tool::call`], which also
/// catches panics and runs nothing until first polled.
#[derive(Clone, Copy)]
pub enum Dispatch {
    /// A plain `fn` tool: runs to completion in one call, so nothing is boxed (the
    /// dispatch benchmark's fixed cost).
    Sync(for<'a> fn(&'a str, &'a Context) -> Response),
    /// An `async fn` tool, or a `confirm` tool whose preview is awaited: its
    /// boxed future.
    Async(for<'a> fn(&'a str, &'a Context) -> CallFuture<'a>),
}

impl Dispatch {
    /// The dispatcher as one boxed future, catching no panic: for tests that hold
    /// only the function. Applications call [`Tool::call`].
    #[must_use]
    pub fn future<'a>(self, arguments: &'a str, ctx: &'a Context) -> CallFuture<'a> {
        match self {
            Dispatch::Sync(run) => Box::pin(async move { run(arguments, ctx) }),
            Dispatch::Async(start) => start(arguments, ctx),
        }
    }
}

impl fmt::Debug for Dispatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dispatch::Sync(_) => "Sync",
            Dispatch::Async(_) => "Async",
        })
    }
}

/// The static definition of one tool.
///
/// `#[tool]` writes one of these per function and places it in the registry's
/// distributed slice; read it through [`Registry`](crate::Registry) or a tool's
/// handle (`get_tasks::definition()`). The fields are public so tests and renderers
/// can read them; build one only through the macro.
#[derive(Clone, Copy)]
pub struct Tool {
    /// The name the model calls.
    pub name: &'static str,
    /// What the tool does, from the doc comment or `description = "..."`.
    pub description: &'static str,
    /// Who may use it.
    pub scope: Scope,
    /// Whether a call needs confirmation or approval.
    pub tier: Tier,
    /// Whether a call may run as a task (`task = optional` / `required`).
    pub task: crate::declaration::TaskSupport,
    /// The call asks its client first and becomes a task once every question
    /// is answered (`#[tool(task = required, asks_first)]`): see
    /// `toolkit::mcp::Ask::ready` (feature `mcp`).
    pub asks_first: bool,
    /// Sent on every request (`true`) or routed, sent only when selected (`false`).
    pub always: bool,
    /// The family of tools it belongs to (`group = "tasks"`).
    pub group: Option<&'static str>,
    /// Old names that still resolve to this tool.
    pub aliases: &'static [&'static str],
    /// The one gotcha a schema can't say, for the system prompt.
    pub guidance: Option<&'static str>,
    /// A human-readable title.
    pub title: Option<&'static str>,
    /// A feature flag that must be on for the tool to be advertised.
    pub gate: Option<&'static str>,
    /// Free-form labels (channels, surfaces, ...).
    pub tags: &'static [&'static str],
    /// Example arguments (`examples = [r#"{"id": 3}"#]`), each a JSON object the
    /// registry has checked against the arguments: rendered where a provider takes
    /// them (Anthropic's `input_examples`).
    pub examples: &'static [&'static str],
    /// What a user says when this tool is the right one (`asked_as = [..]`): read by
    /// routers and selection evals, never sent to the model.
    pub asked_as: &'static [&'static str],
    /// The model-visible parameters, in declaration order.
    pub params: &'static [Param],
    /// Where the tool was defined.
    pub location: Location,
    /// Builds the raw JSON schema of the arguments (cleaned by the registry).
    pub schema: fn() -> schemars::Schema,
    /// Builds the JSON schema of the tool's result, when its type has one.
    pub output_schema: fn() -> Option<schemars::Schema>,
    /// Parses the JSON arguments, extracts the context and runs the function; use
    /// [`Tool::call`], which also catches panics.
    pub dispatch: Dispatch,
    /// The bindings the tool requires: those of its `#[ctx]` parameters that are not
    /// `Option`, without [`Binding::Unbound`], deduplicated and sorted. A consumer
    /// that cannot provide one of them must never be offered the tool.
    pub bindings: &'static [Binding],
    /// The default limit on calls per principal (`quota = "30/min"`), which
    /// [`Quotas`](crate::quota::Quotas) may override per view or principal class;
    /// `None`: no limit unless the application sets one.
    pub quota: Option<crate::quota::Quota>,
    /// Parses the JSON arguments into the typed arguments exactly as dispatch does,
    /// without running anything (to check a call before a human approves it).
    pub validate: for<'a> fn(&'a str) -> Result<(), crate::error::ToolError>,
}

impl Tool {
    /// The verb of the tool's name (`get` in `get_tasks`, `browse` in `browseImages`).
    #[must_use]
    pub fn verb(&self) -> &'static str {
        leading_word(self.name)
    }

    /// The first paragraph of the description: a one-line summary for catalogs.
    #[must_use]
    pub fn summary(&self) -> &'static str {
        self.description
            .split("\n\n")
            .next()
            .unwrap_or(self.description)
            .trim()
    }
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("scope", &self.scope)
            .field("tier", &self.tier)
            .field("always", &self.always)
            .field("group", &self.group)
            .field("aliases", &self.aliases)
            .field("bindings", &self.bindings)
            .field("quota", &self.quota)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// A type that stands for one tool, so code can refer to it without a string.
///
/// `#[tool]` implements it for a unit-like struct named like the function
/// (`get_tasks`), which lives in the type namespace beside the function.
///
/// ```ignore
/// use toolkit::definition::ToolHandle;
/// assert_eq!(get_tasks::NAME, "get_tasks");
/// let tool = get_tasks::definition();
/// ```
pub trait ToolHandle {
    /// The name the model calls.
    const NAME: &'static str;
    /// Who may use the tool.
    const SCOPE: Scope;
    /// Whether a call needs confirmation or approval.
    const TIER: Tier;
    /// The tool's static definition.
    fn definition() -> &'static Tool;
}

/// The first word of a tool's name, which [`Tool::verb`] reads as its verb: up to
/// the first `_`, `-` or capital after the first letter.
pub(crate) fn leading_word(name: &str) -> &str {
    let end = name
        .char_indices()
        .find(|&(i, c)| c == '_' || c == '-' || (i > 0 && c.is_ascii_uppercase()))
        .map_or(name.len(), |(i, _)| i);
    &name[..end]
}

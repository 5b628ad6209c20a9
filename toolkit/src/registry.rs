//! The process-wide collection of tools, built once from the distributed slice:
//! [`registry()`] (or [`try_registry`], which returns the [`RegistryError`] instead
//! of panicking), each tool a [`RegisteredTool`].

use std::future::Future;
use std::ops::Deref;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use crate::context::Context;
use crate::dispatch::{Call, Limits, Plan};
pub use crate::error::RegistryError;
use crate::error::{NameKind, ToolError};
use crate::render::{Dialect, RenderError, Rendered};
use crate::response::Response;
use crate::tool::Tool;

/// One tool in a [`Registry`]: its static definition plus its cleaned schema, built
/// once, on first use. Dereferences to [`Tool`], so `entry.name`, `entry.scope` work.
#[derive(Debug)]
pub struct RegisteredTool {
    tool: &'static Tool,
    /// The cleaned schema, built on the first [`schema`](Self::schema), render or
    /// validation, so that first use stays cheap: building a registry of 1,000 tools
    /// costs their names and an index, and a request pays only for the tools it
    /// renders.
    schema: OnceLock<Value>,
    /// Each dialect's rendering as compact JSON text, built on first request.
    rendered: [OnceLock<Result<Box<str>, RenderError>>; Dialect::ALL.len()],
    /// What dispatch checks before the tool runs, built on the first call.
    plan: OnceLock<Plan>,
    /// The forwarder of a tool defined at run time ([`crate::runtime`]); `None` for
    /// a `#[tool]`.
    pub(crate) runtime: Option<crate::runtime::Source>,
    /// A runtime tool's schema as its author wrote it, served so to MCP and
    /// checked against on every call
    /// ([`RuntimeToolBuilder::mcp_schema_as_written`](crate::runtime::RuntimeToolBuilder::mcp_schema_as_written)).
    as_written: Option<Value>,
}

impl RegisteredTool {
    /// The static definition.
    #[must_use]
    pub fn tool(&self) -> &'static Tool {
        self.tool
    }

    /// The cleaned JSON schema of the tool's arguments (see [`crate::schema`]).
    /// Generated and cleaned on the first call (or the first render or validation),
    /// once, whichever thread gets there first; then borrowed.
    #[must_use]
    pub fn schema(&self) -> &Value {
        self.schema
            .get_or_init(|| crate::schema::clean((self.tool.schema)()))
    }

    /// The arguments schema as its author wrote it, for a runtime tool that serves
    /// it so to MCP
    /// ([`RuntimeToolBuilder::mcp_schema_as_written`](crate::runtime::RuntimeToolBuilder::mcp_schema_as_written));
    /// calls are checked against it. `None` for every other tool.
    #[must_use]
    pub fn schema_as_written(&self) -> Option<&Value> {
        self.as_written.as_ref()
    }

    /// The tool as `dialect` expects it, as compact JSON text, or why `dialect`
    /// cannot express it. Built once per tool and dialect (thread-safely, on first
    /// use), then borrowed: this is what [`render_set`](crate::render::render_set) copies.
    pub fn render_json(&self, dialect: Dialect) -> Result<&str, &RenderError> {
        self.rendered[dialect.index()]
            .get_or_init(|| {
                crate::render::build_json(
                    self.tool,
                    self.schema(),
                    self.as_written.as_ref(),
                    dialect,
                )
            })
            .as_deref()
    }

    /// The tool as `dialect` expects it, parsed into a [`Value`] (a new tree on
    /// every call: for tests and callers that edit it; requests want
    /// [`render_json`](Self::render_json)), or why `dialect` cannot express it.
    pub fn render(&self, dialect: Dialect) -> Result<Value, RenderError> {
        self.render_json(dialect)
            .map(crate::render::to_value)
            .map_err(Clone::clone)
    }
}

impl RegisteredTool {
    fn plan(&self) -> &Plan {
        self.plan.get_or_init(|| match &self.as_written {
            Some(written) => Plan::as_written(written),
            None => {
                let raw = (self.tool.schema)();
                Plan::new(raw.as_value(), self.schema().clone())
            }
        })
    }

    /// Calls the tool with the model's JSON `arguments`: the one place every call
    /// passes. In order: the [`Limits`] on the raw text (size, nesting); for a tool
    /// whose schema has keywords serde does not enforce (`minimum`, `maxLength`,
    /// `pattern`, `format`, ...), or nested objects and an array in the text, the
    /// arguments against the schema the model saw, every problem reported; then
    /// [`Tool::call`]: the typed parse, the `#[ctx]` values, the function, with
    /// every panic caught. A tool without such keywords pays one
    /// `serde_json::from_str` for its arguments.
    ///
    /// This uses [`Limits::DEFAULT`]; [`Registry::call`] passes the registry's own
    /// limits through [`RegisteredTool::call_with_limits`], and so should anything
    /// else that holds a registry (a view).
    ///
    /// Never panics and never lets a tool's panic through under `panic = "unwind"`;
    /// under `panic = "abort"` nothing can be caught (see [`Tool::call`]).
    pub fn call<'a>(
        &'a self,
        arguments: &'a str,
        ctx: &'a Context,
    ) -> impl Future<Output = Response> + Send + 'a {
        self.call_with_limits(arguments, ctx, Limits::DEFAULT)
    }

    /// [`RegisteredTool::call`] with the application's limits (a registry or view
    /// passes its own).
    pub fn call_with_limits<'a>(
        &'a self,
        arguments: &'a str,
        ctx: &'a Context,
        limits: Limits,
    ) -> impl Future<Output = Response> + Send + 'a {
        self.start(arguments, ctx, &limits)
    }

    /// The call's future, of the one type every layer returns: a `#[tool]`'s
    /// dispatch, or a runtime tool's forwarder (boxed, its panics caught).
    #[inline]
    pub(crate) fn start<'a>(
        &'a self,
        arguments: &'a str,
        ctx: &'a Context,
        limits: &Limits,
    ) -> Call<'a> {
        match &self.runtime {
            None => crate::dispatch::call(self.tool, self.plan(), limits, arguments, ctx),
            Some(source) => Call::running(
                self.tool.name,
                Box::pin(call_runtime(self, source, *limits, arguments, ctx)),
            ),
        }
    }

    /// Checks `arguments` without running anything: the limits, the schema the
    /// model saw (every problem reported, whether or not the schema has constraint
    /// keywords) and the typed parse. Used before a human approves a call, so nobody approves one that
    /// would fail.
    pub fn check_arguments(&self, arguments: &str) -> Result<(), ToolError> {
        self.check_arguments_with_limits(arguments, &Limits::DEFAULT)
    }

    /// [`RegisteredTool::check_arguments`] with the application's limits.
    pub fn check_arguments_with_limits(
        &self,
        arguments: &str,
        limits: &Limits,
    ) -> Result<(), ToolError> {
        crate::dispatch::limits::check_text(arguments, limits)?;
        crate::dispatch::check_schema(self.plan(), arguments)?;
        // The typed parse the dispatcher would do, so what serde alone refuses
        // (an unknown variant, a wrong tuple length) is caught before approval too.
        (self.tool.validate)(arguments)
    }
}

impl RegisteredTool {
    /// Whether this tool was defined at run time ([`RuntimeTool`](crate::runtime::RuntimeTool)) rather than by
    /// `#[tool]`.
    #[must_use]
    pub fn is_runtime(&self) -> bool {
        self.runtime.is_some()
    }

    /// Whether the tool may be offered now: always for a `#[tool]`; a runtime tool
    /// asks its [`Forward::available`](crate::runtime::Forward::available).
    #[must_use]
    pub fn is_available(&self) -> bool {
        self.runtime
            .as_ref()
            .is_none_or(|source| source.0.available())
    }
}

/// A runtime tool's call after the view's rules: the limits and the schema the
/// model saw (every call: there is no typed parse behind it), then the forwarder,
/// its panics caught.
async fn call_runtime(
    tool: &RegisteredTool,
    source: &crate::runtime::Source,
    limits: Limits,
    arguments: &str,
    ctx: &Context,
) -> Response {
    if !source.0.available() {
        return Response::Error(ToolError::no_tool_named(tool.name, None));
    }
    if let Err(error) = tool.check_arguments_with_limits(arguments, &limits) {
        return Response::Error(error);
    }
    let trimmed = arguments.trim();
    let arguments = if trimmed.is_empty() || trimmed == "null" {
        serde_json::Map::new()
    } else {
        match crate::dispatch::parse::parse_value(arguments) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return Response::Error(crate::dispatch::parse::not_an_object()),
            Err(error) => return Response::Error(error),
        }
    };
    crate::dispatch::panics::CatchPanics::new(tool.name, source.0.forward(arguments, ctx)).await
}

impl Deref for RegisteredTool {
    type Target = Tool;

    fn deref(&self) -> &Tool {
        self.tool
    }
}

/// A set of tools with unique names and aliases, sorted by name.
///
/// [`registry()`](crate::registry()) gives the process-wide one holding every
/// `#[tool]` linked into the binary; [`Registry::new`] builds one from any
/// definitions (tests, or a subset).
#[derive(Debug)]
pub struct Registry {
    tools: Vec<RegisteredTool>,
    /// Names and aliases with their index into `tools`, sorted by name (the
    /// suggestions for an unknown name walk it in this order).
    index: Vec<(&'static str, usize)>,
    /// An open-addressed hash table of the names and aliases with their index
    /// into `tools` (`EMPTY` for a free slot): one multiply and, nearly always,
    /// one string comparison, where a binary search compares strings at every step.
    table: Box<[(&'static str, u32)]>,
    /// [`Limits`], as atomics so the process-wide registry can be configured.
    max_argument_bytes: AtomicUsize,
    max_depth: AtomicUsize,
}

impl Registry {
    /// Builds a registry, checking that no name or alias is claimed twice. No
    /// schema is generated here: each tool's is built on its first use.
    // The error names two definitions in full; it happens once, at start-up.
    #[allow(clippy::result_large_err)]
    pub fn new<I>(tools: I) -> Result<Self, RegistryError>
    where
        I: IntoIterator<Item = &'static Tool>,
    {
        let mut tools: Vec<&'static Tool> = tools.into_iter().collect();
        tools.sort_by(|a, b| {
            (a.name, a.location.file, a.location.line).cmp(&(
                b.name,
                b.location.file,
                b.location.line,
            ))
        });
        // Every name and alias with the tool claiming it, in tool order (a name
        // before its aliases), then sorted by name, stably: a name claimed twice
        // shows as two neighbours. The collision reported is the first one met in
        // tool order.
        let mut claims: Vec<(&'static str, usize, NameKind)> = Vec::with_capacity(tools.len() * 2);
        for (position, tool) in tools.iter().enumerate() {
            claims.push((tool.name, position, NameKind::Name));
            claims.extend(
                tool.aliases
                    .iter()
                    .map(|&alias| (alias, position, NameKind::Alias(tool.name))),
            );
        }
        let mut order: Vec<usize> = (0..claims.len()).collect();
        order.sort_by_key(|&claim| claims[claim].0);
        let collision = order
            .windows(2)
            .filter(|pair| claims[pair[0]].0 == claims[pair[1]].0)
            .min_by_key(|pair| pair[1]);
        if let Some(pair) = collision {
            let (name, first, first_kind) = claims[pair[0]];
            let (_, second, second_kind) = claims[pair[1]];
            return Err(RegistryError::Duplicate {
                name: name.to_owned(),
                first: (first_kind, tools[first].location),
                second: (second_kind, tools[second].location),
            });
        }
        claims.sort_by_key(|&(name, _, _)| name);
        let index: Vec<(&'static str, usize)> = claims
            .into_iter()
            .map(|(name, position, _)| (name, position))
            .collect();
        let table = name_table(&index);
        let tools: Vec<RegisteredTool> = tools
            .into_iter()
            .map(|tool| RegisteredTool {
                tool,
                schema: OnceLock::new(),
                rendered: Default::default(),
                plan: OnceLock::new(),
                runtime: None,
                as_written: None,
            })
            .collect();
        check_examples(&tools)?;
        Ok(Registry {
            tools,
            index,
            table,
            max_argument_bytes: AtomicUsize::new(Limits::DEFAULT.max_argument_bytes),
            max_depth: AtomicUsize::new(Limits::DEFAULT.max_depth),
        })
    }

    /// Builds a registry of `tools` (as [`Registry::new`]) plus tools defined at run
    /// time ([`RuntimeTool`](crate::runtime::RuntimeTool): an external MCP server's,
    /// a configuration's). Views list, render, route and call them like the others.
    ///
    /// A local tool wins: a runtime tool whose name is a name or alias of one of
    /// `tools` is left out, with a `tracing` warning. Two runtime tools of one name
    /// are a [`RegistryError::Duplicate`] (located at `<runtime>`).
    #[allow(clippy::result_large_err)] // see `Registry::new`
    pub fn with_runtime<I, R>(tools: I, runtime: R) -> Result<Self, RegistryError>
    where
        I: IntoIterator<Item = &'static Tool>,
        R: IntoIterator<Item = crate::runtime::RuntimeTool>,
    {
        let tools: Vec<&'static Tool> = tools.into_iter().collect();
        let local: std::collections::HashSet<&str> = tools
            .iter()
            .flat_map(|tool| std::iter::once(tool.name).chain(tool.aliases.iter().copied()))
            .collect();
        let runtime: Vec<crate::runtime::RuntimeTool> = runtime
            .into_iter()
            .filter(|extra| {
                let shadowed = local.contains(extra.tool.name);
                if shadowed {
                    tracing::warn!(
                        tool = extra.tool.name,
                        "a local tool has the name of a runtime tool; the local one is kept"
                    );
                }
                !shadowed
            })
            .collect();
        let mut registry = Registry::new(
            tools
                .into_iter()
                .chain(runtime.iter().map(|extra| extra.tool)),
        )?;
        for extra in runtime {
            if let Some(entry) = registry
                .tools
                .iter_mut()
                .find(|entry| std::ptr::eq(entry.tool, extra.tool))
            {
                entry.schema = OnceLock::from(extra.schema);
                entry.as_written = extra.as_written;
                entry.runtime = Some(extra.source);
            }
        }
        Ok(registry)
    }

    /// [`Registry::with_runtime`] over every `#[tool]` linked into the binary (what
    /// [`registry()`] holds).
    #[allow(clippy::result_large_err)] // see `Registry::new`
    pub fn linked_with<R>(runtime: R) -> Result<Self, RegistryError>
    where
        R: IntoIterator<Item = crate::runtime::RuntimeTool>,
    {
        Self::with_runtime(crate::__private::TOOLS.iter(), runtime)
    }

    /// The tool with this name or alias.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&RegisteredTool> {
        self.position(name).map(|position| &self.tools[position])
    }

    /// The position in [`Registry::iter`] of the tool with this name or alias.
    #[inline]
    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        let mask = self.table.len() - 1;
        let mut slot = name_hash(name.as_bytes()) & mask;
        loop {
            let (known, position) = self.table[slot];
            if position == EMPTY {
                return None;
            }
            if known == name {
                return Some(position as usize);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The tool at `position` of [`Registry::iter`].
    pub(crate) fn at(&self, position: usize) -> &RegisteredTool {
        &self.tools[position]
    }

    /// Every tool, sorted by name.
    pub fn iter(&self) -> std::slice::Iter<'_, RegisteredTool> {
        self.tools.iter()
    }

    /// How many tools (not counting aliases).
    #[must_use]
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the registry has no tools.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Every tool rendered in `dialect`, in name order: the JSON array a request
    /// carries.
    ///
    /// Partial, like every set rendering ([`render_set`](crate::render::render_set)): a
    /// tool the dialect cannot express is left out and reported in
    /// [`Rendered::skipped`]; call [`Rendered::all_or_error`] to insist on all.
    pub fn render(&self, dialect: Dialect) -> Rendered {
        Rendered::join(self.iter().map(|tool| tool.render_json(dialect)))
    }

    /// The limits every call through this registry is held to.
    #[must_use]
    pub fn limits(&self) -> Limits {
        Limits {
            max_argument_bytes: self.max_argument_bytes.load(Ordering::Relaxed),
            max_depth: self.max_depth.load(Ordering::Relaxed),
        }
    }

    /// Sets the limits for every later call (the process-wide
    /// [`registry()`](crate::registry()) included): typically once, at start-up.
    pub fn set_limits(&self, limits: Limits) {
        self.max_argument_bytes
            .store(limits.max_argument_bytes, Ordering::Relaxed);
        self.max_depth.store(limits.max_depth, Ordering::Relaxed);
    }

    /// Calls the tool named `name` (or one of its aliases) with the JSON text the
    /// model produced, through [`RegisteredTool::call`] with this registry's
    /// [`Limits`]. An unknown name, bad JSON, wrong types, values outside the
    /// schema, a missing context value, the tool's own error or a panic inside it
    /// all come back as [`Response::Error`].
    ///
    /// The registry is the view of every tool with no approvals configured: an
    /// `approve` tool never runs from here and returns
    /// [`ToolError::ApprovalRequired`]; call it through a [`View`](crate::View) built
    /// with [`approvals`](crate::view::ViewBuilder::approvals). A `confirm` tool answers
    /// with its preview until called with `confirmed: true`.
    ///
    /// Under `panic = "abort"` a panicking tool ends the process: nothing can
    /// catch it (see [`Tool::call`]).
    #[inline]
    pub fn call<'a>(
        &'a self,
        name: &str,
        arguments: &'a str,
        ctx: &'a Context,
    ) -> impl Future<Output = Response> + Send + 'a {
        // Look the tool up before building any future: the call's future is the
        // tool's own, not one more layer around it (nor a span's, unless a
        // subscriber wants one: see `crate::observe`).
        let found = self.get(name);
        let call = match found {
            Some(tool) if tool.tier != crate::declaration::Tier::Approve => {
                tool.start(arguments, ctx, &self.limits())
            }
            Some(tool) => Call::ready(Response::Error(ToolError::ApprovalRequired {
                tool: tool.name.to_owned(),
            })),
            None => Call::ready(Response::Error(self.unknown_tool(name))),
        };
        let dispatch = crate::observe::Dispatch {
            tool: found.map(RegisteredTool::tool),
            runtime: found.is_some_and(RegisteredTool::is_runtime),
            name,
            view: Some("registry"),
            principal: None,
            arguments: None,
            resumed: false,
            ctx,
            approval: None,
        };
        crate::observe::observe_call(&dispatch, call)
    }

    /// [`Registry::call`] with arguments already parsed into a [`Value`]. A value
    /// nested past the limit is refused without recursing into it (a `Value` can be
    /// deeper than any stack).
    pub async fn call_value(&self, name: &str, arguments: &Value, ctx: &Context) -> Response {
        if let Err(error) = crate::dispatch::limits::check_value(arguments, &self.limits()) {
            if self.get(name).is_none() {
                return Response::Error(self.unknown_tool(name));
            }
            return Response::Error(error);
        }
        self.call(name, &crate::dispatch::limits::value_text(arguments), ctx)
            .await
    }

    /// The error for a name that isn't here, suggesting the tool whose name or
    /// alias is closest (always by its current name, never a retired alias). The
    /// name is echoed cut and cleaned of control and invisible characters; a name
    /// far longer than any tool's, or outside the name characters, gets no
    /// suggestion (the search stays microseconds whatever was sent).
    #[must_use]
    pub fn unknown_tool(&self, name: &str) -> ToolError {
        let suggestion = crate::suggest::closest(name, self.index.iter().map(|&(known, _)| known))
            .and_then(|closest| self.get(closest))
            .map(|tool| tool.name.to_owned());
        ToolError::no_tool_named(name, suggestion)
    }
}

impl<'a> IntoIterator for &'a Registry {
    type Item = &'a RegisteredTool;
    type IntoIter = std::slice::Iter<'a, RegisteredTool>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// A free slot of [`Registry::table`].
const EMPTY: u32 = u32::MAX;

/// The slots for `index`: a power of two at least twice its length, so probes
/// stay short and one slot is always free (the lookup's loop ends).
/// Checks every tool's `examples` as a call would be checked (the limits, the
/// schema the model sees, the typed parse), so a wrong example stops the registry
/// like a duplicate name does, instead of teaching the model a call the tool
/// refuses. Only tools with examples have their schema built here.
#[allow(clippy::result_large_err)] // see `Registry::new`
fn check_examples(tools: &[RegisteredTool]) -> Result<(), RegistryError> {
    for registered in tools {
        let tool = registered.tool;
        for (position, &example) in tool.examples.iter().enumerate() {
            if let Err(error) = registered.check_arguments(example) {
                return Err(RegistryError::InvalidExample {
                    tool: tool.name,
                    location: tool.location,
                    number: position + 1,
                    example,
                    error,
                });
            }
        }
    }
    Ok(())
}

fn name_table(index: &[(&'static str, usize)]) -> Box<[(&'static str, u32)]> {
    let size = (index.len() * 2).next_power_of_two().max(8);
    let mut table = vec![("", EMPTY); size].into_boxed_slice();
    for &(name, position) in index {
        let mut slot = name_hash(name.as_bytes()) & (size - 1);
        while table[slot].1 != EMPTY {
            slot = (slot + 1) & (size - 1);
        }
        // A registry of over four billion tools is not built.
        table[slot] = (name, u32::try_from(position).unwrap_or(EMPTY - 1));
    }
    table
}

/// The slot of a name: its first and last eight bytes (four, or three single
/// bytes, for short names) and its length, mixed by one 64x64-bit multiply whose
/// halves are folded (as wyhash and rapidhash do for short keys). A constant number
/// of instructions whatever the length, where a word-by-word hash walks the whole
/// name. Names that share both ends and the length only share a probe sequence:
/// the comparison of the whole name decides, and the longest probe is fixed when
/// the table is built, whatever the model sends (a lookup is on every call's path).
#[inline]
fn name_hash(bytes: &[u8]) -> usize {
    const SEED: u64 = 0x2d35_8dcc_aa6c_78a5;
    const OTHER: u64 = 0x8bb8_4b93_962e_acc9;
    let length = bytes.len() as u64;
    let (first, last) = match (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
        (Some(first), Some(last)) => (u64::from_le_bytes(*first), u64::from_le_bytes(*last)),
        _ => match (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
            (Some(first), Some(last)) => (
                u64::from(u32::from_le_bytes(*first)),
                u64::from(u32::from_le_bytes(*last)),
            ),
            _ => match (bytes.first(), bytes.last()) {
                (Some(&first), Some(&last)) => (
                    (u64::from(first) << 16) | (u64::from(bytes[bytes.len() / 2]) << 8),
                    u64::from(last),
                ),
                _ => (0, 0),
            },
        },
    };
    let product = u128::from(first ^ SEED) * u128::from(last ^ OTHER ^ length);
    // Truncations on purpose: the two halves are folded, and a 32-bit target keeps
    // the low bits, which the mask reads.
    #[allow(clippy::cast_possible_truncation)]
    let slot = (product as u64 ^ (product >> 64) as u64) as usize;
    slot
}

static GLOBAL: OnceLock<Result<Registry, RegistryError>> = OnceLock::new();

/// The process-wide registry of every `#[tool]` linked into this binary, built on
/// first use.
///
/// # Panics
///
/// If two tools claim one name or alias; the message names both definitions'
/// files, lines and modules. Use [`try_registry`] to handle that yourself.
#[must_use]
pub fn registry() -> &'static Registry {
    match try_registry() {
        Ok(registry) => registry,
        Err(error) => panic!("toolkit could not build the tool registry: {error}"),
    }
}

/// The process-wide registry, or why it could not be built.
#[allow(clippy::result_large_err)] // see `Registry::new`
pub fn try_registry() -> Result<&'static Registry, &'static RegistryError> {
    GLOBAL
        .get_or_init(|| Registry::new(crate::__private::TOOLS.iter()))
        .as_ref()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use serde_json::json;

    use super::*;
    use crate::declaration::Location;
    use crate::declaration::{Scope, Tier};
    use crate::tool::CallFuture;

    /// How many times each test tool's schema function ran.
    static LAZY_SCHEMAS: AtomicUsize = AtomicUsize::new(0);
    static OTHER_SCHEMAS: AtomicUsize = AtomicUsize::new(0);

    fn object_schema() -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "properties": {"id": {"type": "integer", "format": "uint32", "minimum": 0}},
            "required": ["id"]
        })
    }

    fn lazy_schema() -> schemars::Schema {
        LAZY_SCHEMAS.fetch_add(1, Ordering::SeqCst);
        object_schema()
    }

    fn other_schema() -> schemars::Schema {
        OTHER_SCHEMAS.fetch_add(1, Ordering::SeqCst);
        object_schema()
    }

    fn no_output() -> Option<schemars::Schema> {
        None
    }

    fn answer<'a>(_: &'a str, _: &'a Context) -> CallFuture<'a> {
        Box::pin(async { Response::Result(json!(1)) })
    }

    #[allow(clippy::unnecessary_wraps)] // the `Tool::validate` signature
    fn accept(_: &str) -> Result<(), ToolError> {
        Ok(())
    }

    const fn counted(name: &'static str, schema: fn() -> schemars::Schema) -> Tool {
        Tool {
            name,
            description: "A tool whose schema function counts its calls.",
            scope: Scope::Shared,
            tier: Tier::Auto,
            task: crate::declaration::TaskSupport::Forbidden,
            always: false,
            asks_first: false,
            group: None,
            aliases: &[],
            guidance: None,
            title: None,
            gate: None,
            tags: &[],
            examples: &[],
            asked_as: &[],
            params: &[],
            location: Location {
                file: file!(),
                line: line!(),
                module_path: module_path!(),
            },
            schema,
            output_schema: no_output,
            dispatch: crate::tool::Dispatch::Async(answer),
            bindings: &[],
            quota: None,
            validate: accept,
        }
    }

    static LAZY: Tool = counted("get_lazy", lazy_schema);
    static OTHER: Tool = counted("get_other", other_schema);

    /// Building a registry generates no schema; the first render generates the
    /// rendered tool's once, whichever of many threads asks first, and no other.
    #[test]
    fn schemas_are_built_on_first_use_once() {
        let registry = Registry::new([&LAZY, &OTHER]).expect("distinct names");
        assert_eq!(LAZY_SCHEMAS.load(Ordering::SeqCst), 0);
        assert_eq!(OTHER_SCHEMAS.load(Ordering::SeqCst), 0);
        let tool = registry.get("get_lazy").expect("registered");
        let texts: Vec<String> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    scope.spawn(|| {
                        tool.render_json(Dialect::OpenAiChat)
                            .expect("renders")
                            .to_owned()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| handle.join().expect("no panic"))
                .collect()
        });
        assert!(texts.windows(2).all(|pair| pair[0] == pair[1]));
        assert_eq!(LAZY_SCHEMAS.load(Ordering::SeqCst), 1);
        // Later uses borrow what was built: the schema, the other dialects, the
        // dispatch plan (which reads the raw schema once more, to tell an integer
        // type's implied bounds from a user's).
        assert_eq!(
            tool.schema(),
            &json!({
                "type": "object",
                "properties": {"id": {"type": "integer", "minimum": 0}},
                "required": ["id"],
                "additionalProperties": false
            })
        );
        tool.render_json(Dialect::Anthropic).expect("renders");
        assert_eq!(LAZY_SCHEMAS.load(Ordering::SeqCst), 1);
        assert_eq!(tool.check_arguments(r#"{"id": 3}"#), Ok(()));
        assert_eq!(LAZY_SCHEMAS.load(Ordering::SeqCst), 2);
        assert_eq!(tool.check_arguments(r#"{"id": 4}"#), Ok(()));
        assert_eq!(LAZY_SCHEMAS.load(Ordering::SeqCst), 2);
        // The other tool was never used.
        assert_eq!(OTHER_SCHEMAS.load(Ordering::SeqCst), 0);
    }
}

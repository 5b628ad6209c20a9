//! The process-wide collection of tools, built once from the distributed slice.

use std::future::Future;
use std::ops::Deref;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use crate::dispatch::Plan;
use crate::error::NameKind;
use crate::{
    Context, Dialect, Limits, RegistryError, RenderError, Rendered, Response, Tool, ToolError,
};

/// One tool in a [`Registry`]: its static definition plus its cleaned schema, built
/// once. Dereferences to [`Tool`], so `entry.name`, `entry.scope` work.
#[derive(Debug)]
pub struct RegisteredTool {
    tool: &'static Tool,
    schema: Value,
    /// Each dialect's rendering as compact JSON text, built on first request.
    rendered: [OnceLock<Result<Box<str>, RenderError>>; Dialect::ALL.len()],
    /// What dispatch checks before the tool runs, built on the first call.
    plan: OnceLock<Plan>,
    /// The forwarder of a tool defined at run time ([`crate::runtime`]); `None` for
    /// a `#[tool]`.
    pub(crate) runtime: Option<crate::runtime::Source>,
}

impl RegisteredTool {
    /// The static definition.
    #[must_use]
    pub fn tool(&self) -> &'static Tool {
        self.tool
    }

    /// The cleaned JSON schema of the tool's arguments (see [`crate::schema`]).
    #[must_use]
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The tool as `dialect` expects it, as compact JSON text, or why `dialect`
    /// cannot express it. Built once per tool and dialect (thread-safely, on first
    /// use), then borrowed: this is what [`render_set`](crate::render_set) copies.
    pub fn render_json(&self, dialect: Dialect) -> Result<&str, &RenderError> {
        self.rendered[dialect.index()]
            .get_or_init(|| crate::render::build_json(self.tool, &self.schema, dialect))
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
        self.plan.get_or_init(|| {
            let raw = (self.tool.schema)();
            Plan::new(raw.as_value(), self.schema.clone())
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
        use futures_util::future::Either;
        match &self.runtime {
            None => Either::Left(crate::dispatch::call(
                self.tool,
                self.plan(),
                &limits,
                arguments,
                ctx,
            )),
            Some(source) => {
                Either::Right(crate::runtime::call(self, source, limits, arguments, ctx))
            }
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

impl Deref for RegisteredTool {
    type Target = Tool;

    fn deref(&self) -> &Tool {
        self.tool
    }
}

/// A set of tools with unique names and aliases, sorted by name.
///
/// [`registry()`](crate::registry) gives the process-wide one holding every
/// `#[tool]` linked into the binary; [`Registry::new`] builds one from any
/// definitions (tests, or a subset).
#[derive(Debug)]
pub struct Registry {
    tools: Vec<RegisteredTool>,
    /// Names and aliases with their index into `tools`, sorted by name: a binary
    /// search over a few dozen names beats hashing them (see BENCHMARKS.md).
    index: Vec<(&'static str, usize)>,
    /// [`Limits`], as atomics so the process-wide registry can be configured.
    max_argument_bytes: AtomicUsize,
    max_depth: AtomicUsize,
}

impl Registry {
    /// Builds a registry, checking that no name or alias is claimed twice and
    /// cleaning every tool's schema once.
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
        let index = claims
            .into_iter()
            .map(|(name, position, _)| (name, position))
            .collect();
        let tools = tools
            .into_iter()
            .map(|tool| RegisteredTool {
                tool,
                schema: crate::schema::clean((tool.schema)()),
                rendered: Default::default(),
                plan: OnceLock::new(),
                runtime: None,
            })
            .collect();
        Ok(Registry {
            tools,
            index,
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
                entry.schema = extra.schema;
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
    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        self.index
            .binary_search_by(|&(known, _)| known.cmp(name))
            .ok()
            .map(|found| self.index[found].1)
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
    /// Partial, like every set rendering ([`render_set`](crate::render_set)): a
    /// tool the dialect cannot express is left out and reported in
    /// [`Rendered::skipped`]; call [`Rendered::all_or_error`] to insist on all.
    pub fn render(&self, dialect: Dialect) -> Rendered {
        crate::render_set(self.iter(), dialect)
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
    /// [`registry()`](crate::registry) included): typically once, at start-up.
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
    /// with [`approvals`](crate::ViewBuilder::approvals). A `confirm` tool answers
    /// with its preview until called with `confirmed: true`.
    ///
    /// Under `panic = "abort"` a panicking tool ends the process: nothing can
    /// catch it (see [`Tool::call`]).
    pub fn call<'a>(
        &'a self,
        name: &str,
        arguments: &'a str,
        ctx: &'a Context,
    ) -> impl Future<Output = Response> + Send + 'a {
        use futures_util::future::{Either, ready};
        // Look the tool up before building any future: the call's future is the
        // tool's own, not one more layer around it (nor a span's, unless a
        // subscriber wants one: see `crate::observe`).
        let found = self.get(name);
        let call = match found {
            Some(tool) if tool.tier != crate::Tier::Approve => {
                Either::Left(tool.call_with_limits(arguments, ctx, self.limits()))
            }
            Some(tool) => Either::Right(ready(Response::Error(ToolError::ApprovalRequired {
                tool: tool.name.to_owned(),
            }))),
            None => Either::Right(ready(Response::Error(self.unknown_tool(name)))),
        };
        let dispatch = crate::observe::Dispatch {
            tool: found,
            name,
            view: Some("registry"),
            arguments: None,
            resumed: false,
        };
        crate::observe::observe(&dispatch, call)
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
        self.call(name, &arguments.to_string(), ctx).await
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
        ToolError::UnknownTool {
            name: crate::dispatch::messages::echo(name),
            suggestion,
        }
    }
}

impl<'a> IntoIterator for &'a Registry {
    type Item = &'a RegisteredTool;
    type IntoIter = std::slice::Iter<'a, RegisteredTool>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
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

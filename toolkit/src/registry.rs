//! The process-wide collection of tools, built once from the distributed slice.

use std::future::Future;
use std::ops::Deref;
use std::sync::OnceLock;

use serde_json::Value;

use crate::error::NameKind;
use crate::{Context, Dialect, RegistryError, RenderError, Response, Tool, ToolError};

/// One tool in a [`Registry`]: its static definition plus its cleaned schema, built
/// once. Dereferences to [`Tool`], so `entry.name`, `entry.scope` work.
#[derive(Debug)]
pub struct RegisteredTool {
    tool: &'static Tool,
    schema: Value,
    /// Each dialect's rendering, built on first request.
    rendered: [OnceLock<Result<Value, RenderError>>; Dialect::ALL.len()],
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

    /// The tool as `dialect` expects it, or why `dialect` cannot express it.
    /// Built once per dialect, then copied.
    pub fn render(&self, dialect: Dialect) -> Result<Value, RenderError> {
        self.rendered[dialect.index()]
            .get_or_init(|| crate::render::build(self.tool, &self.schema, dialect))
            .clone()
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
            })
            .collect();
        Ok(Registry { tools, index })
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

    /// Every tool rendered in `dialect`: the JSON array a request carries.
    pub fn render(&self, dialect: Dialect) -> Result<Value, RenderError> {
        crate::render(self.iter(), dialect)
    }

    /// Calls the tool named `name` (or one of its aliases) with the JSON text the
    /// model produced. Never panics: an unknown name, bad JSON, wrong types, a
    /// missing context value, the tool's own error or a panic inside it all come
    /// back as [`Response::Error`].
    ///
    /// The registry is the view of every tool with no approvals configured: an
    /// `approve` tool never runs from here and returns
    /// [`ToolError::ApprovalRequired`]; call it through a [`View`](crate::View) built
    /// with [`approvals`](crate::ViewBuilder::approvals). A `confirm` tool answers
    /// with its preview until called with `confirmed: true`.
    pub fn call<'a>(
        &'a self,
        name: &str,
        arguments: &'a str,
        ctx: &'a Context,
    ) -> impl Future<Output = Response> + Send + 'a {
        use futures_util::future::{Either, ready};
        // Look the tool up before building any future: the call's future is the
        // tool's own, not one more layer around it.
        match self.get(name) {
            Some(tool) if tool.tier != crate::Tier::Approve => {
                Either::Left(tool.call(arguments, ctx))
            }
            Some(tool) => Either::Right(ready(Response::Error(ToolError::ApprovalRequired {
                tool: tool.name.to_owned(),
            }))),
            None => Either::Right(ready(Response::Error(self.unknown_tool(name)))),
        }
    }

    /// [`Registry::call`] with arguments already parsed into a [`Value`].
    pub async fn call_value(&self, name: &str, arguments: &Value, ctx: &Context) -> Response {
        self.call(name, &arguments.to_string(), ctx).await
    }

    /// The error for a name that isn't here, suggesting the tool whose name or
    /// alias is closest (always by its current name, never a retired alias).
    #[must_use]
    pub fn unknown_tool(&self, name: &str) -> ToolError {
        let suggestion = crate::suggest::closest(name, self.index.iter().map(|&(known, _)| known))
            .and_then(|closest| self.get(closest))
            .map(|tool| tool.name.to_owned());
        ToolError::UnknownTool {
            name: name.to_owned(),
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

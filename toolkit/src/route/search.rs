//! The built-in `search_tools` tool and its pieces: the model searches the routed
//! catalog of its view by keywords, and what it finds becomes active for the rest of
//! the conversation.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{LexicalRouter, RouteRequest};
use crate::context::Context;
use crate::declaration::{Location, Param, Scope, Tier};
use crate::error::ToolError;
use crate::registry::RegisteredTool;
use crate::response::Response;
use crate::tool::Tool;
use crate::view::View;

/// The routed tools one conversation has found through search: owned by the
/// caller (one per conversation, kept with its history), never global. Clones share
/// the set, so a copy can go into the tool [`Context`](crate::Context).
#[derive(Clone, Debug, Default)]
pub struct FoundTools(Arc<Mutex<BTreeSet<String>>>);

impl FoundTools {
    /// An empty set.
    #[must_use]
    pub fn new() -> Self {
        FoundTools::default()
    }

    /// Adds names (a restored conversation, say).
    pub fn insert<S: Into<String>>(&self, names: impl IntoIterator<Item = S>) {
        let mut set = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        set.extend(names.into_iter().map(Into::into));
    }

    /// Whether `name` was found.
    #[must_use]
    pub fn contains(&self, name: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(name)
    }

    /// The names found, in name order.
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect()
    }
}

/// One tool a search found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FoundTool {
    /// The tool's name.
    pub name: String,
    /// What it does, in one line.
    pub summary: String,
    /// Its group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// What a `search_tools` call answers the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SearchAnswer {
    /// The tools found, best first; they can be called from the next turn on.
    pub tools: Vec<FoundTool>,
    /// A sentence for the model: how many were found, or that none matched.
    pub message: String,
}

/// Searches `router`'s catalog for `request` (the model's keywords; restrict it to
/// a view with [`RouteRequest::within`]), adds what it finds to `found`, and says
/// what it found, or that nothing matched.
///
/// Declare the tool in your crate, so it has your scope, tier and naming:
///
/// ```
/// use std::sync::Arc;
/// use toolkit::route::{Catalog, CatalogEntry, FoundTools, LexicalRouter, RouteRequest, SearchAnswer, search};
/// use toolkit::{Context, State, tool};
///
/// /// Search the tools you don't have yet by keywords; the tools found can be called from the next turn on.
/// #[tool(scope = shared, tier = auto, always)]
/// async fn search_tools(
///     #[ctx] router: State<Arc<LexicalRouter>>,
///     #[ctx] found: State<FoundTools>,
///     /// Words for what you need to do.
///     query: String,
/// ) -> SearchAnswer {
///     search(&router, &RouteRequest::new(&query), &found)
/// }
///
/// let router = Arc::new(LexicalRouter::new(Catalog::new([
///     CatalogEntry::new("delete_notes", "Delete notes by id."),
/// ])));
/// let found = FoundTools::new(); // one per conversation
/// let ctx = Context::new().with(router).with(found.clone());
/// let registry = toolkit::Registry::new([search_tools::definition()]).unwrap();
/// # futures_executor::block_on(async {
/// let response = registry.call("search_tools", r#"{"query": "remove a note"}"#, &ctx).await;
/// assert_eq!(
///     response.result(),
///     Some(&serde_json::json!({
///         "tools": [{"name": "delete_notes", "summary": "Delete notes by id."}],
///         "message": "Found 1 tool; it can be called from your next turn on."
///     }))
/// );
/// assert!(found.contains("delete_notes"));
/// let response = registry.call("search_tools", r#"{"query": "juggle"}"#, &ctx).await;
/// assert_eq!(
///     response.result().map(|answer| answer["message"].clone()),
///     Some(serde_json::json!("No tool matches \"juggle\"; try other words, or do without."))
/// );
/// # });
/// ```
#[must_use]
pub fn search(
    router: &LexicalRouter,
    request: &RouteRequest<'_>,
    found: &FoundTools,
) -> SearchAnswer {
    let tools: Vec<FoundTool> = router
        .rank(request)
        .into_iter()
        .map(|scored| FoundTool {
            name: scored.entry.name.clone(),
            summary: scored.entry.summary.clone(),
            group: scored.entry.group.clone(),
        })
        .collect();
    found.insert(tools.iter().map(|tool| tool.name.clone()));
    let message = match tools.len() {
        0 => format!(
            "No tool matches {:?}; try other words, or do without.",
            request.message
        ),
        1 => "Found 1 tool; it can be called from your next turn on.".to_owned(),
        count => format!("Found {count} tools; they can be called from your next turn on."),
    };
    SearchAnswer { tools, message }
}

/// The longest query the search tool takes, in characters: a few keywords, not a
/// document (longer is an [`ToolError::InvalidArguments`], not a slow search).
pub const MAX_QUERY_CHARS: usize = 200;

/// The most tools one search answers.
pub const MAX_RESULTS: u8 = 10;

/// How many tools a search answers when the model does not say.
pub const DEFAULT_RESULTS: u8 = 5;

/// The tag that marks the built-in search tool (any name made by [`search_tool`]):
/// how [`View::render_routed`](crate::View::render_routed) checks that a view
/// delivering routed tools by search has one.
pub const SEARCH_TAG: &str = "toolkit:search_tools";

/// What the built-in search tool searches, for one conversation: the routed catalog
/// of the view it serves (indexed by a [`LexicalRouter`]) and the conversation's
/// [`FoundTools`]. Put one in the [`Context`] of every call through that view.
///
/// Cheap to clone. Build the router once per view shape and share it
/// ([`ToolSearch::new`]), or let [`ToolSearch::for_view`] index the view each time
/// (microseconds for a few dozen tools).
#[derive(Clone, Debug)]
pub struct ToolSearch {
    router: Arc<LexicalRouter>,
    found: FoundTools,
}

impl ToolSearch {
    /// Searches `router`'s catalog (the routed catalog of the view the tool serves:
    /// `LexicalRouter::new(view.catalog())`) and adds what it finds to `found`.
    #[must_use]
    pub fn new(router: Arc<LexicalRouter>, found: FoundTools) -> Self {
        ToolSearch { router, found }
    }

    /// Searches the routed catalog of `view` and adds what it finds to `found`.
    #[must_use]
    pub fn for_view(view: &View<'_>, found: FoundTools) -> Self {
        ToolSearch::new(Arc::new(LexicalRouter::new(view.catalog())), found)
    }

    /// The conversation's found tools.
    #[must_use]
    pub fn found(&self) -> &FoundTools {
        &self.found
    }

    /// The router over the catalog searched.
    #[must_use]
    pub fn router(&self) -> &LexicalRouter {
        &self.router
    }

    /// Searches for `query` (at most [`MAX_QUERY_CHARS`] characters), answering at
    /// most `limit` tools (clamped to 1..=[`MAX_RESULTS`]), and records them as
    /// found.
    pub fn search(&self, query: &str, limit: u8) -> Result<SearchAnswer, ToolError> {
        if query.chars().count() > MAX_QUERY_CHARS {
            return Err(ToolError::invalid_arguments(
                "query",
                format!("at most {MAX_QUERY_CHARS} characters: give a few keywords"),
            ));
        }
        let limit = usize::from(limit.clamp(1, MAX_RESULTS));
        Ok(search(
            &self.router,
            &RouteRequest::new(query).limit(limit),
            &self.found,
        ))
    }
}

// The arguments of the built-in search tool (no doc comment: it would become the
// schema's root description, which `#[tool]` argument structs never have).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchArguments {
    /// Keywords for what you need to do, like `delete page` or `publish post`.
    #[schemars(length(max = 200))]
    query: String,
    /// How many tools to return at most.
    #[serde(default = "default_results")]
    #[schemars(range(min = 1, max = 10))]
    limit: u8,
}

fn default_results() -> u8 {
    DEFAULT_RESULTS
}

fn search_schema() -> schemars::Schema {
    crate::schema::raw_schema_for::<SearchArguments>()
}

// The signature `Tool::output_schema` requires.
#[allow(clippy::unnecessary_wraps)]
fn search_output_schema() -> Option<schemars::Schema> {
    Some(crate::schema::raw_output_schema_for::<SearchAnswer>())
}

fn search_validate(arguments: &str) -> Result<(), ToolError> {
    crate::dispatch::parse::parse_arguments::<SearchArguments>(arguments).map(|_| ())
}

// Answers in one call: a plain `fn` dispatcher, nothing boxed.
fn search_dispatch(arguments: &str, ctx: &Context) -> Response {
    let response = crate::dispatch::parse::parse_arguments::<SearchArguments>(arguments).and_then(
        |arguments| {
            ctx.require::<ToolSearch>()?
                .search(&arguments.query, arguments.limit)
        },
    );
    match response {
        Ok(answer) => crate::__private::output(&answer),
        Err(error) => Response::Error(error),
    }
}

/// The built-in search tool under `name` (`search_tools`, `searchTools`: your
/// crate's naming): scope shared, tier auto, always, group `tools`, tagged
/// [`SEARCH_TAG`]. It needs a [`ToolSearch`] in the [`Context`].
///
/// A `const fn`, so a crate with another naming style declares its own static:
/// `static SEARCH: Tool = toolkit::route::search_tool("searchTools");`.
#[must_use]
pub const fn search_tool(name: &'static str) -> Tool {
    Tool {
        name,
        description: "Search the tools you don't have yet by keywords. The tools found can be called from your next turn on; if none matches, do without.",
        scope: Scope::Shared,
        tier: Tier::Auto,
        task: crate::declaration::TaskSupport::Forbidden,
        always: true,
        asks_first: false,
        group: Some("tools"),
        aliases: &[],
        guidance: None,
        title: Some("Search tools"),
        gate: None,
        tags: &[SEARCH_TAG],
        examples: &[],
        asked_as: &[],
        params: &[
            Param {
                name: "query",
                description: "Keywords for what you need to do, like `delete page` or `publish post`.",
                required: true,
            },
            Param {
                name: "limit",
                description: "How many tools to return at most.",
                required: false,
            },
        ],
        location: Location {
            file: file!(),
            line: line!(),
            module_path: module_path!(),
        },
        schema: search_schema,
        output_schema: search_output_schema,
        dispatch: crate::tool::Dispatch::Sync(search_dispatch),
        bindings: &[],
        quota: None,
        validate: search_validate,
    }
}

/// The built-in `search_tools` tool (see [`search_tool`]). Not in
/// [`registry()`](crate::registry()) unless you add it: applications that want it put
/// it in their registry, the tools of a view then reach the model through it.
///
/// ```
/// use toolkit::route::{FoundTools, SEARCH_TOOLS, ToolSearch};
/// use toolkit::{Context, Registry, Scope, tool};
///
/// /// Delete memos by id.
/// #[tool(scope = shared, tier = auto)]
/// async fn delete_memos(
///     /// The memos' ids.
///     ids: Vec<u32>,
/// ) -> usize { ids.len() }
///
/// // Your tools plus the search tool. For every `#[tool]` of the binary:
/// // `toolkit::registry().iter().map(|tool| tool.tool()).chain([&SEARCH_TOOLS])`.
/// let registry = Registry::new([delete_memos::definition(), &SEARCH_TOOLS])?;
/// let view = registry.view().scopes([Scope::Shared]).build()?;
/// let found = FoundTools::new(); // one per conversation, kept with its history
/// let ctx = Context::new().with(ToolSearch::for_view(&view, found.clone()));
/// # futures_executor::block_on(async {
/// let response = view.call("search_tools", r#"{"query": "remove a memo"}"#, &ctx).await;
/// assert_eq!(
///     response.result(),
///     Some(&serde_json::json!({
///         "tools": [{"name": "delete_memos", "summary": "Delete memos by id."}],
///         "message": "Found 1 tool; it can be called from your next turn on."
///     }))
/// );
/// assert_eq!(found.names(), ["delete_memos"]);
/// # });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub static SEARCH_TOOLS: Tool = search_tool("search_tools");

impl<'r> View<'r> {
    /// The tools to send when the model searches for routed tools itself: the
    /// view's `always` tools (the search tool among them) plus the routed tools this
    /// conversation has found, in name order.
    #[must_use]
    pub fn active_found(&self, found: &FoundTools) -> Vec<&'r RegisteredTool> {
        self.iter()
            .filter(|tool| tool.always || found.contains(tool.name))
            .collect()
    }
}

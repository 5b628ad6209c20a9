//! The pieces of a `search_tools` tool: the model searches the routed catalog by
//! keywords, and what it finds becomes active for the rest of the conversation.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};

use schemars::JsonSchema;
use serde::Serialize;

use super::{LexicalRouter, RouteRequest};
use crate::{RegisteredTool, View};

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

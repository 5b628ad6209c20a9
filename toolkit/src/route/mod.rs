//! Send only the tools that matter: routed catalogs and the routers that pick from
//! them.
//!
//! A tool is either `always` (sent on every request) or *routed* (sent when a router
//! picks it for the message). [`Catalog::routed`] takes the routed tools of a set of
//! tools (a view, a registry) as light [`CatalogEntry`]s: name, summary, group,
//! tags, parameter names, guidance, no schemas. A [`Router`] ranks a catalog for a
//! message:
//!
//! - [`LexicalRouter`]: built in, deterministic, no network. BM25F over the name's
//!   words, summary, description, group, tags, parameters and guidance, aware of
//!   verbs (`remove` finds `delete_*`, "get rid of" too) and of plurals.
//! - [`ModelRouter`]: asks a cheap model through a closure you supply, with a prompt
//!   built from the catalog, and keeps the names it answers that are in it.
//!
//! A router may *abstain* (nothing fits): that is an answer. A router *error* is
//! not swallowed: [`select`] falls back to every routed tool and hands the error to
//! the application in [`Outcome::FellBack`].
//!
//! Routed tools reach the model one of three ways, each rendered by
//! [`View::render_routed`](crate::View::render_routed) with a [`Delivery`]: the
//! tools a router picked; every routed tool deferred behind the provider's own
//! search ([`provider`]); or the built-in [`SEARCH_TOOLS`] tool, with which the
//! model finds tools itself, kept per conversation in a [`FoundTools`].
//!
//! ```
//! use toolkit::route::{Catalog, CatalogEntry, LexicalRouter, Outcome, RouteRequest, select};
//!
//! let catalog = Catalog::new([
//!     CatalogEntry::new("delete_tasks", "Delete tasks by id."),
//!     CatalogEntry::new("get_reminders", "Get reminders, soonest first."),
//! ]);
//! let router = LexicalRouter::new(catalog);
//! # futures_executor::block_on(async {
//! let request = RouteRequest::new("get rid of the groceries to-do");
//! let selection = select(&router, &request).await;
//! assert_eq!(selection.names(), ["delete_tasks"]);
//! assert!(matches!(selection.outcome, Outcome::Picked));
//! # });
//! ```

mod deliver;
mod entry;
mod lexical;
mod model;
pub mod provider;
mod search;
pub(crate) mod text;
mod view;

use std::fmt;
use std::future::Future;
use std::pin::Pin;

pub use deliver::Delivery;
pub use entry::{AsTool, Catalog, CatalogEntry, ParamEntry};
pub use lexical::{FieldWeights, LexicalRouter, PlainBm25, Scored};
pub use model::ModelRouter;
pub use search::{
    DEFAULT_RESULTS, FoundTool, FoundTools, MAX_QUERY_CHARS, MAX_RESULTS, SEARCH_TAG, SEARCH_TOOLS,
    SearchAnswer, ToolSearch, search, search_tool,
};

/// How many tools a router picks unless told otherwise.
pub const DEFAULT_LIMIT: usize = 5;

/// What a router is asked: the message, optionally the last few turns before it,
/// which tools it may pick from, and how many.
pub struct RouteRequest<'a> {
    /// The message to route.
    pub message: &'a str,
    /// Earlier turns, oldest first; routers weigh them less than the message.
    pub turns: Vec<&'a str>,
    /// At most this many tools.
    pub limit: usize,
    allowed: Option<&'a (dyn Fn(&str) -> bool + Send + Sync)>,
}

impl fmt::Debug for RouteRequest<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RouteRequest")
            .field("message", &self.message)
            .field("turns", &self.turns)
            .field("limit", &self.limit)
            .field("restricted", &self.allowed.is_some())
            .finish()
    }
}

impl<'a> RouteRequest<'a> {
    /// A request for `message`, picking at most [`DEFAULT_LIMIT`] tools from the
    /// whole catalog.
    #[must_use]
    pub fn new(message: &'a str) -> Self {
        RouteRequest {
            message,
            turns: Vec::new(),
            limit: DEFAULT_LIMIT,
            allowed: None,
        }
    }

    /// The turns before the message, oldest first (routers read the last three).
    #[must_use]
    pub fn turns(mut self, turns: impl IntoIterator<Item = &'a str>) -> Self {
        self.turns = turns.into_iter().collect();
        self
    }

    /// At most `limit` tools.
    #[must_use]
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Only tools whose name passes `allowed` (a view's `contains`, say): a router
    /// never picks, prompts with, or falls back to any other.
    #[must_use]
    pub fn within(mut self, allowed: &'a (dyn Fn(&str) -> bool + Send + Sync)) -> Self {
        self.allowed = Some(allowed);
        self
    }

    /// Whether the request lets a router pick `name`.
    #[must_use]
    pub fn allows(&self, name: &str) -> bool {
        self.allowed.is_none_or(|allowed| allowed(name))
    }

    /// The last three turns and the message, oldest first.
    pub(crate) fn recent_turns(&self) -> &[&'a str] {
        &self.turns[self.turns.len().saturating_sub(3)..]
    }
}

/// A router's answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Routing<'a> {
    /// These tools, best first.
    Picked(Vec<&'a CatalogEntry>),
    /// No tool fits the message: send only the always tools.
    Abstained,
}

/// Why a router could not answer. The caller falls back to every routed tool
/// ([`select`] does) and reports this to the application.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RouteError {
    /// The model behind a [`ModelRouter`] could not be reached or failed.
    Model {
        /// The model call's error, as text.
        message: String,
    },
    /// The model's answer was not a JSON array of tool names.
    Malformed {
        /// What the model answered.
        output: String,
    },
    /// The model named tools, none of which is in the catalog (or allowed).
    UnknownTools {
        /// The names it gave.
        names: Vec<String>,
    },
}

impl fmt::Display for RouteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RouteError::Model { message } => write!(f, "the routing model failed: {message}"),
            RouteError::Malformed { output } => write!(
                f,
                "the routing model did not answer with a JSON array of tool names: {output:?}"
            ),
            RouteError::UnknownTools { names } => write!(
                f,
                "the routing model named only tools that are not in the catalog: {}",
                names.join(", ")
            ),
        }
    }
}

impl std::error::Error for RouteError {}

/// The future a [`Router`] returns.
pub type RouteFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Routing<'a>, RouteError>> + Send + 'a>>;

/// Picks the routed tools that matter for a message.
///
/// Implement it for your own router (embeddings, a rules table); the router owns
/// the catalog it ranks, built once, and answers per request. Use it through
/// [`select`], which applies the fallback.
pub trait Router: Send + Sync {
    /// Every tool the router can pick: the fallback when it fails.
    fn catalog(&self) -> &Catalog;

    /// The tools for `request`, best first, only from [`Router::catalog`] and only
    /// those the request allows; or [`Routing::Abstained`]; or why it could not
    /// tell.
    fn route<'a>(&'a self, request: &'a RouteRequest<'a>) -> RouteFuture<'a>;
}

/// How a [`Selection`] was decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The router picked the tools.
    Picked,
    /// The router found nothing that fits; no routed tool is sent.
    Abstained,
    /// The router failed, so every allowed routed tool is sent. Report the error.
    FellBack(RouteError),
}

/// The routed tools to send with a request, and how they were chosen.
#[derive(Clone, Debug, PartialEq)]
#[must_use = "a fallback carries a router error to report"]
pub struct Selection<'a> {
    /// The routed tools to send, best first (catalog order after a fallback).
    pub tools: Vec<&'a CatalogEntry>,
    /// Picked, abstained, or fell back on an error.
    pub outcome: Outcome,
}

impl Selection<'_> {
    /// The names of the tools to send.
    #[must_use]
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|entry| entry.name.as_str()).collect()
    }

    /// The router's error, when the selection fell back.
    #[must_use]
    pub fn error(&self) -> Option<&RouteError> {
        match &self.outcome {
            Outcome::FellBack(error) => Some(error),
            _ => None,
        }
    }
}

/// Routes `request` and applies the policy: picked tools as answered, nothing on
/// abstention, every allowed routed tool when the router fails (with the error in
/// [`Outcome::FellBack`]). Picks outside the catalog or the request's allowance are
/// dropped here too, whatever the router does.
pub async fn select<'a, R: Router + ?Sized>(
    router: &'a R,
    request: &'a RouteRequest<'a>,
) -> Selection<'a> {
    match router.route(request).await {
        Ok(Routing::Picked(tools)) => {
            let catalog = router.catalog();
            let mut tools: Vec<&'a CatalogEntry> = tools
                .into_iter()
                .filter(|entry| request.allows(&entry.name) && catalog.get(&entry.name).is_some())
                .collect();
            let mut seen = std::collections::HashSet::new();
            tools.retain(|entry| seen.insert(entry.name.as_str()));
            tools.truncate(request.limit);
            Selection {
                tools,
                outcome: Outcome::Picked,
            }
        }
        Ok(Routing::Abstained) => Selection {
            tools: Vec::new(),
            outcome: Outcome::Abstained,
        },
        Err(error) => Selection {
            tools: router
                .catalog()
                .iter()
                .filter(|entry| request.allows(&entry.name))
                .collect(),
            outcome: Outcome::FellBack(error),
        },
    }
}

#[cfg(test)]
mod tests;

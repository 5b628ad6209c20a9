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
#[cfg(feature = "embeddings")]
#[cfg_attr(docsrs, doc(cfg(feature = "embeddings")))]
pub mod embedding;
mod entry;
mod lexical;
mod lexicon;
mod message;
mod model;
pub mod provider;
mod router;
mod search;
mod view;

pub use deliver::Delivery;
pub use entry::{AsTool, Catalog, CatalogEntry, ParamEntry};
pub use lexical::{FieldWeights, LexicalRouter, MIN_SERVERS, PlainBm25, Scored};
pub use model::ModelRouter;
pub use router::{
    DEFAULT_LIMIT, EntryExplanation, Explanation, Outcome, RouteError, RouteFuture, RouteRequest,
    Router, Routing, Selection, Weighed,
};
pub use search::{
    DEFAULT_RESULTS, FoundTool, FoundTools, MAX_QUERY_CHARS, MAX_RESULTS, SEARCH_TAG, SEARCH_TOOLS,
    SearchAnswer, ToolSearch, search, search_tool,
};

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

//! What a router is asked ([`RouteRequest`]), what it answers ([`Routing`],
//! [`RouteError`]), the trait itself ([`Router`]) and what the caller sends
//! ([`Selection`]). A leaf under `route`, so each router (lexical, model, search)
//! and the delivery use these without using the module that gathers them.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use super::{Catalog, CatalogEntry};

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
/// ([`select`](super::select) does) and reports this to the application.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RouteError {
    /// The model behind a [`ModelRouter`](super::ModelRouter) could not be reached or failed.
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
/// [`select`](super::select), which applies the fallback.
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

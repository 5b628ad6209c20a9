//! What a router is asked ([`RouteRequest`]), what it answers ([`Routing`],
//! [`RouteError`]), the trait itself ([`Router`]) and what the caller sends
//! ([`Selection`]). A leaf under `route`, so each router (lexical, model, search)
//! and the delivery use these without using the module that gathers them.

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

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
///
/// Two errors are equal when they are the same variant saying the same thing; the
/// cause of a [`Model`](RouteError::Model) error is not compared.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum RouteError {
    /// The model behind a [`ModelRouter`](super::ModelRouter) could not be reached or failed.
    ///
    /// [`RouteError::model`] makes one from the model call's error.
    Model {
        /// The model call's error, as text.
        message: String,
        /// The model call's error itself, what
        /// [`source`](std::error::Error::source) returns, to downcast to the
        /// client's own error type (a plain string comes back as an error that
        /// says just that). An `Arc` so the error stays `Clone`.
        source: Option<Arc<dyn Error + Send + Sync + 'static>>,
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

impl RouteError {
    /// A [`Model`](RouteError::Model) error caused by `error`, the model call's
    /// error: a real error (it becomes the [`source`](Error::source)), or a
    /// plain `&str` or `String`.
    ///
    /// ```
    /// use toolkit::route::RouteError;
    ///
    /// let cause = std::io::Error::from(std::io::ErrorKind::TimedOut);
    /// let error = RouteError::model(cause);
    /// assert_eq!(error.to_string(), "the routing model failed: timed out");
    /// let source = std::error::Error::source(&error).expect("its cause");
    /// assert!(source.downcast_ref::<std::io::Error>().is_some());
    /// ```
    pub fn model(error: impl Into<Box<dyn Error + Send + Sync + 'static>>) -> Self {
        let error = error.into();
        RouteError::Model {
            message: error.to_string(),
            source: Some(Arc::from(error)),
        }
    }
}

impl fmt::Display for RouteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RouteError::Model { message, .. } => write!(f, "the routing model failed: {message}"),
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

// By hand rather than derived: thiserror would hand out the `Arc` itself, which
// does not downcast to the model client's error type.
impl Error for RouteError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            RouteError::Model {
                source: Some(source),
                ..
            } => Some(&**source as &(dyn Error + 'static)),
            _ => None,
        }
    }
}

impl PartialEq for RouteError {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (RouteError::Model { message: one, .. }, RouteError::Model { message: other, .. })
            | (RouteError::Malformed { output: one }, RouteError::Malformed { output: other }) => {
                one == other
            }
            (
                RouteError::UnknownTools { names: one },
                RouteError::UnknownTools { names: other },
            ) => one == other,
            _ => false,
        }
    }
}

impl Eq for RouteError {}

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

    /// Why the router ranks as it does for `request`: what it read in the message
    /// and, for its first `request.limit` entries and those named in `also`, what
    /// matched them. `None` (the default) for a router that cannot say (a model).
    /// [`toolkit::testing`](crate::testing) shows it for each miss.
    fn explain(&self, request: &RouteRequest<'_>, also: &[&str]) -> Option<Explanation> {
        let _ = (request, also);
        None
    }
}

/// What a router read in a message and what matched the entries it was asked
/// about ([`Router::explain`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Explanation {
    /// The message's terms as the router read them, heaviest first: word stems,
    /// verb classes (`@delete`), concepts (`#task`), or for a meaning-based
    /// router nothing.
    pub terms: Vec<Weighed>,
    /// The entries asked about: the router's first ones, best first, then the
    /// others named (an expected tool that was missed).
    pub entries: Vec<EntryExplanation>,
}

/// A term with its weight, or its share of a score.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Weighed {
    /// The term.
    pub term: String,
    /// Its weight in the message, or what it added to an entry's score.
    pub weight: f32,
}

/// Why one entry scored as it did.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct EntryExplanation {
    /// The entry's name.
    pub name: String,
    /// Its rank among the router's picks (from 1), `None` when not picked.
    pub rank: Option<usize>,
    /// Its score before any fusion (comparable within one message).
    pub score: f32,
    /// The terms of the message that matched it and what each added, largest
    /// first; a meaning-based router adds `~meaning` with its similarity.
    pub matches: Vec<Weighed>,
}

impl fmt::Display for Explanation {
    /// `read: term 1.00, ...` then one line per entry: `#1 name 3.21: term +2.10, ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |terms: &[Weighed], sign: &str| {
            terms
                .iter()
                .map(|weighed| format!("{} {sign}{:.2}", weighed.term, weighed.weight))
                .collect::<Vec<_>>()
                .join(", ")
        };
        writeln!(f, "read: {}", list(&self.terms, ""))?;
        for entry in &self.entries {
            let rank = entry
                .rank
                .map_or_else(|| "not picked".to_owned(), |rank| format!("#{rank}"));
            let matches = if entry.matches.is_empty() {
                "no word in common".to_owned()
            } else {
                list(&entry.matches, "+")
            };
            writeln!(f, "{rank} {} {:.2}: {matches}", entry.name, entry.score)?;
        }
        Ok(())
    }
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

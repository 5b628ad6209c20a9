//! The seam between a request and the tools it may see: the application's hook.

use std::fmt;
use std::sync::Arc;

use crate::approval::{
    ApprovalError, Approvals, Confirmation, Decider, Decision, PendingApproval, TaskRecord,
};
use crate::context::Context;
use crate::error::ToolError;
use crate::principal::Principal;
use crate::registry::{RegisteredTool, Registry};
use crate::response::Response;
use crate::tool::{CallFuture, Tool};
use crate::view::{View, ViewError};

/// Who is asking, as the transport knows it. The [`Access`] hook reads it to build
/// the caller's tools and context.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Caller<'a> {
    /// The client kind the request came in through: the label of its HTTP endpoint
    /// (`internal`, `copilot`, `external`, ...) or of the stdio server.
    pub client: &'a str,
    /// The bearer token of the request. Over HTTP it has already been checked
    /// against the endpoint's token; stdio requests carry none.
    pub bearer: Option<&'a str>,
    /// The HTTP request's headers; `None` over stdio.
    pub headers: Option<&'a ::http::HeaderMap>,
    /// The HTTP request's extensions (what middleware attached, like the verified
    /// access token of `Caller::token`, feature `oauth`); `None` over stdio.
    pub extensions: Option<&'a ::http::Extensions>,
}

impl<'a> Caller<'a> {
    /// A caller of the `client` kind with no credentials (stdio, tests).
    #[must_use]
    pub fn new(client: &'a str) -> Self {
        Caller {
            client,
            bearer: None,
            headers: None,
            extensions: None,
        }
    }
}

/// What one request may use: its tools and the context its calls run with.
pub struct Grant {
    pub(crate) tools: Box<dyn ToolSet>,
    pub(crate) context: Context,
}

impl Grant {
    /// The caller may list and call `tools`; calls get `context` for their
    /// `#[ctx]` parameters.
    pub fn new(tools: impl ToolSet + 'static, context: Context) -> Self {
        Grant {
            tools: Box::new(tools),
            context,
        }
    }

    /// The granted tools.
    #[must_use]
    pub fn tools(&self) -> &dyn ToolSet {
        self.tools.as_ref()
    }

    /// The context, to add what the transport knows of the request.
    pub(crate) fn context_mut(&mut self) -> &mut Context {
        &mut self.context
    }

    /// The context calls run with.
    #[must_use]
    pub fn context(&self) -> &Context {
        &self.context
    }
}

impl fmt::Debug for Grant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.tools.tools().map(|tool| tool.name).collect();
        f.debug_struct("Grant")
            .field("tools", &names)
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
}

/// The application's hook: given who is asking, the tools they may use and the
/// context their calls run with. Called once per MCP request; nothing is kept
/// between requests, so any process can serve any request.
///
/// Implemented for closures `Fn(&Caller<'_>) -> Result<Grant, AccessError>`. An
/// `Err` is a server-side failure (the view could not be built; see
/// [`AccessError`]) and reaches the client as an internal error; refuse *callers*
/// with the endpoint's token (or an OAuth endpoint's scopes) instead.
///
/// Building a view per request costs a pass over the registry and its
/// allowlist; a hook whose views depend on few things (the client kind, the
/// token's subject and scopes) keeps them in a [`ViewCache`](super::ViewCache)
/// keyed by those things, and every request of the same caller shares one.
pub trait Access: Send + Sync + 'static {
    /// The grant for one request.
    fn grant(&self, caller: &Caller<'_>) -> Result<Grant, AccessError>;
}

impl<F> Access for F
where
    F: Fn(&Caller<'_>) -> Result<Grant, AccessError> + Send + Sync + 'static,
{
    fn grant(&self, caller: &Caller<'_>) -> Result<Grant, AccessError> {
        self(caller)
    }
}

/// Why the [`Access`] hook granted a request nothing. Each is the server's failure,
/// not the caller's: the MCP server answers the request with a JSON-RPC internal
/// error, `the server could not build the tool list: ` and this error's message,
/// and logs it with its causes.
///
/// ```
/// use toolkit::mcp::{AccessError, Caller, Grant};
///
/// let access = |caller: &Caller<'_>| -> Result<Grant, AccessError> {
///     // A view that cannot be built is an `AccessError::View` (`?` converts it).
///     let view = toolkit::registry().view().label(caller.client.to_owned()).build()?;
///     Ok(Grant::new(view, toolkit::Context::new()))
/// };
/// # let _ = access;
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AccessError {
    /// The caller's view could not be built (an allowlist entry that names no tool,
    /// a binding its consumer lacks); the [`ViewError`] is the
    /// [`source`](std::error::Error::source).
    #[error("{0}")]
    View(#[from] ViewError),
    /// The hook needs the request's verified access token
    /// (`Caller::token`, feature `oauth`) and the
    /// request has none: the hook serves an endpoint that is not an OAuth endpoint.
    #[error("the OAuth endpoint passed a request without a verified token")]
    NoVerifiedToken,
    /// Anything else the hook could not do (its own look-up of the caller failed):
    /// its words, and what caused it.
    #[error("{message}")]
    Failed {
        /// What failed, in words the client may read.
        message: String,
        /// What caused it, for the application's log.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
    },
}

impl AccessError {
    /// The hook failed saying `message`, with no cause to give.
    pub fn failed(message: impl fmt::Display) -> Self {
        AccessError::Failed {
            message: message.to_string(),
            source: None,
        }
    }

    /// The hook failed saying `message` (what the client reads), because of
    /// `source` (what the application's log adds).
    pub fn caused_by(
        message: impl fmt::Display,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        AccessError::Failed {
            message: message.to_string(),
            source: Some(Box::new(source)),
        }
    }
}

/// Tools a caller may see and call: what a view provides. Listing and dispatch
/// both go through it, so what it does not hold can't be listed or called.
pub trait ToolSet: Send + Sync {
    /// The tools, in a stable order (name order).
    fn tools(&self) -> Box<dyn Iterator<Item = &RegisteredTool> + '_>;

    /// Calls `name` (or an alias of a tool in the set) with the model's JSON
    /// `arguments`. A name outside the set is answered exactly like a name that
    /// does not exist, with suggestions only from the set.
    fn call<'a>(&'a self, name: &'a str, arguments: &'a str, ctx: &'a Context) -> CallFuture<'a>;

    /// The tool `name` (or an alias of it) refers to, if it is in the set. The
    /// default looks through [`ToolSet::tools`].
    fn get(&self, name: &str) -> Option<&RegisteredTool> {
        self.tools()
            .find(|tool| tool.name == name || tool.aliases.contains(&name))
    }

    /// Who approvals are bound to, when the set takes approvals.
    fn principal(&self) -> Option<&Principal> {
        None
    }

    /// The set's label ([`ViewBuilder::label`](crate::view::ViewBuilder::label)),
    /// kept with the tasks its calls make ([`TaskRecord::view`]) so that a
    /// runner rebuilds the same set for them. Sets without one: `None`.
    fn label(&self) -> Option<&str> {
        None
    }

    /// Whether the requester's own answer (an elicitation) may decide `pending`:
    /// the server asks the client's user only then, and otherwise answers with the
    /// pending approval, which waits for someone else. Sets without approvals say
    /// no.
    fn requester_may_decide(&self, pending: &PendingApproval) -> bool {
        let _ = pending;
        false
    }

    /// Whether the caller holding this set may see, answer for and run `pending`
    /// (see [`View::reaches`]). Sets without approvals reach no call.
    fn reaches(&self, pending: &PendingApproval) -> bool {
        let _ = pending;
        false
    }

    /// Whether the caller holding this set may read, cancel and run the task
    /// `task`: the set's principal made it, and its tool is in the set by that
    /// name (a narrower token of the same user reaches no task of a tool it can't
    /// call). Sets without approvals reach no task.
    fn reaches_task(&self, task: &TaskRecord) -> bool {
        let _ = task;
        false
    }

    /// The approvals this set's calls are kept in, and its principal: where an MCP
    /// task (an `approve` call polled with `tasks/get`) is read from. Sets without
    /// approvals have none, and no tasks.
    fn approvals(&self) -> Option<(&Approvals, &Principal)> {
        None
    }

    /// Runs the decided call `pending` as THE recorded decision says (a task's
    /// poll found it approved and not run), once across every process: see
    /// [`Approvals::run_approved`]. Sets without approvals refuse.
    fn run_approved<'a>(
        &'a self,
        pending: &'a PendingApproval,
        ctx: &'a Context,
    ) -> CallFuture<'a> {
        let _ = (pending, ctx);
        Box::pin(std::future::ready(Response::Error(
            ToolError::ApprovalRejected {
                reason: "this server takes no approvals".to_owned(),
            },
        )))
    }

    /// Runs the previewed call a person confirmed on a card, once (see
    /// [`View::confirm`]). Sets without approvals refuse.
    fn confirm<'a>(&'a self, confirmation: &'a Confirmation, ctx: &'a Context) -> CallFuture<'a> {
        let _ = (confirmation, ctx);
        Box::pin(std::future::ready(Response::Error(
            ApprovalError::NotConfigured.into(),
        )))
    }

    /// The requester's `answer` on a call left pending (an elicitation's): signed
    /// and, unless it is a denial, the call runs once (the approval store refuses a
    /// second run, in any process). Sets without approvals refuse.
    ///
    /// A [`View`] decides through
    /// [`Approvals::answer_as_requester`](crate::approval::Approvals::answer_as_requester):
    /// the policy may refuse the requester, and a decision recorded first (an
    /// approver's, in the inbox) stands.
    fn resume<'a>(
        &'a self,
        pending: &'a PendingApproval,
        decision: Decision,
        ctx: &'a Context,
    ) -> CallFuture<'a> {
        let _ = (pending, decision, ctx);
        Box::pin(std::future::ready(Response::Error(
            ToolError::ApprovalRejected {
                reason: "this server takes no approvals".to_owned(),
            },
        )))
    }
}

/// A [`View`] is what the caller may see and call: listing in name order, dispatch
/// with tiers applied, approvals checked and run once.
impl ToolSet for View<'static> {
    fn tools(&self) -> Box<dyn Iterator<Item = &RegisteredTool> + '_> {
        Box::new(self.iter())
    }

    fn get(&self, name: &str) -> Option<&RegisteredTool> {
        View::get(self, name)
    }

    fn call<'a>(&'a self, name: &'a str, arguments: &'a str, ctx: &'a Context) -> CallFuture<'a> {
        Box::pin(View::call(self, name, arguments, ctx))
    }

    fn principal(&self) -> Option<&Principal> {
        View::principal(self)
    }

    fn label(&self) -> Option<&str> {
        View::label(self)
    }

    fn approvals(&self) -> Option<(&Approvals, &Principal)> {
        View::approvals(self).map(|(approvals, principal)| (approvals as &Approvals, principal))
    }

    fn run_approved<'a>(
        &'a self,
        pending: &'a PendingApproval,
        ctx: &'a Context,
    ) -> CallFuture<'a> {
        Box::pin(async move {
            match View::approvals(self) {
                Some(_) if !View::reaches(self, pending) => {
                    Response::Error(self.unknown_tool(&pending.tool))
                }
                Some((approvals, _)) => approvals.run_approved(self, ctx, pending).await,
                None => Response::Error(ApprovalError::NotConfigured.into()),
            }
        })
    }

    fn reaches(&self, pending: &PendingApproval) -> bool {
        View::reaches(self, pending)
    }

    fn reaches_task(&self, task: &TaskRecord) -> bool {
        View::approvals(self).is_some()
            && View::principal(self) == Some(&task.principal)
            && View::get(self, &task.tool).is_some_and(|tool| tool.name == task.tool)
    }

    fn confirm<'a>(&'a self, confirmation: &'a Confirmation, ctx: &'a Context) -> CallFuture<'a> {
        Box::pin(View::confirm(self, confirmation, ctx))
    }

    fn requester_may_decide(&self, pending: &PendingApproval) -> bool {
        View::approvals(self)
            .is_some_and(|(approvals, _)| approvals.may_decide(&Decider::Requester, pending))
    }

    fn resume<'a>(
        &'a self,
        pending: &'a PendingApproval,
        decision: Decision,
        ctx: &'a Context,
    ) -> CallFuture<'a> {
        Box::pin(async move {
            let Some((approvals, _)) = View::approvals(self) else {
                return Response::Error(ApprovalError::NotConfigured.into());
            };
            // Nothing is recorded for a call this view cannot make: a narrower
            // token of the same user decides nothing on it.
            if !View::reaches(self, pending) {
                return Response::Error(self.unknown_tool(&pending.tool));
            }
            match approvals
                .answer_as_requester_at(self.registry(), pending, decision)
                .await
            {
                Ok((approval, now)) => self.resume_at(&approval, ctx, Some(now)).await,
                Err(error) => Response::Error(error.into()),
            }
        })
    }
}

/// A shared set is the set: what [`ViewCache`](super::ViewCache) hands out, so
/// the requests of one caller share one view.
impl<T: ToolSet + ?Sized> ToolSet for Arc<T> {
    fn tools(&self) -> Box<dyn Iterator<Item = &RegisteredTool> + '_> {
        (**self).tools()
    }

    fn call<'a>(&'a self, name: &'a str, arguments: &'a str, ctx: &'a Context) -> CallFuture<'a> {
        (**self).call(name, arguments, ctx)
    }

    fn get(&self, name: &str) -> Option<&RegisteredTool> {
        (**self).get(name)
    }

    fn principal(&self) -> Option<&Principal> {
        (**self).principal()
    }

    fn label(&self) -> Option<&str> {
        (**self).label()
    }

    fn requester_may_decide(&self, pending: &PendingApproval) -> bool {
        (**self).requester_may_decide(pending)
    }

    fn reaches(&self, pending: &PendingApproval) -> bool {
        (**self).reaches(pending)
    }

    fn reaches_task(&self, task: &TaskRecord) -> bool {
        (**self).reaches_task(task)
    }

    fn confirm<'a>(&'a self, confirmation: &'a Confirmation, ctx: &'a Context) -> CallFuture<'a> {
        (**self).confirm(confirmation, ctx)
    }

    fn approvals(&self) -> Option<(&Approvals, &Principal)> {
        (**self).approvals()
    }

    fn run_approved<'a>(
        &'a self,
        pending: &'a PendingApproval,
        ctx: &'a Context,
    ) -> CallFuture<'a> {
        (**self).run_approved(pending, ctx)
    }

    fn resume<'a>(
        &'a self,
        pending: &'a PendingApproval,
        decision: Decision,
        ctx: &'a Context,
    ) -> CallFuture<'a> {
        (**self).resume(pending, decision, ctx)
    }
}

/// A part of a registry chosen by a predicate, without tiers: `approve` tools are
/// refused like in [`Registry::call`]. Prefer a [`View`]; this suits tests and
/// servers without approvals.
///
/// ```
/// use toolkit::mcp::{FilteredRegistry, ToolSet};
///
/// let read_only = FilteredRegistry::new(toolkit::registry(), |tool| tool.verb() == "get");
/// assert!(read_only.tools().all(|tool| tool.name.starts_with("get")));
/// ```
#[derive(Clone)]
pub struct FilteredRegistry {
    registry: &'static Registry,
    keep: Arc<dyn Fn(&Tool) -> bool + Send + Sync>,
}

impl FilteredRegistry {
    /// Every tool of `registry`.
    #[must_use]
    pub fn all(registry: &'static Registry) -> Self {
        Self::new(registry, |_| true)
    }

    /// The tools of `registry` for which `keep` says `true`.
    pub fn new(
        registry: &'static Registry,
        keep: impl Fn(&Tool) -> bool + Send + Sync + 'static,
    ) -> Self {
        FilteredRegistry {
            registry,
            keep: Arc::new(keep),
        }
    }

    /// The tool with this name or alias, if it is in the selection.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&'static RegisteredTool> {
        self.registry.get(name).filter(|tool| (self.keep)(tool))
    }
}

impl fmt::Debug for FilteredRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.tools().map(|tool| tool.name).collect();
        f.debug_struct("FilteredRegistry")
            .field("tools", &names)
            .finish()
    }
}

impl ToolSet for FilteredRegistry {
    fn tools(&self) -> Box<dyn Iterator<Item = &RegisteredTool> + '_> {
        Box::new(self.registry.iter().filter(|tool| (self.keep)(tool)))
    }

    fn call<'a>(&'a self, name: &'a str, arguments: &'a str, ctx: &'a Context) -> CallFuture<'a> {
        match self.get(name) {
            // Through the registry, so tiers apply (an `approve` tool is refused).
            Some(_) => Box::pin(self.registry.call(name, arguments, ctx)),
            None => {
                let available = self.tools().flat_map(|tool| {
                    std::iter::once(tool.name).chain(tool.aliases.iter().copied())
                });
                let error = ToolError::unknown_tool(name, available);
                Box::pin(std::future::ready(Response::Error(error)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::AccessError;
    use crate::view::ViewError;

    /// A view that cannot be built is the refusal's cause, and its words are the
    /// refusal's (what the client reads after "the server could not build the tool
    /// list: ").
    #[test]
    fn a_view_that_cannot_be_built_is_the_cause() {
        let view_error = crate::registry::registry()
            .view()
            .allow(["no_such_tool"])
            .build()
            .expect_err("no tool of that name");
        let error = AccessError::from(view_error.clone());
        assert_eq!(error.to_string(), view_error.to_string());
        let cause = error
            .source()
            .and_then(|cause| cause.downcast_ref::<ViewError>())
            .expect("the view's error is the source");
        assert_eq!(cause, &view_error);
    }

    /// The hook's own failure says its message, and keeps what caused it.
    #[test]
    fn a_failed_hook_keeps_its_cause() {
        let cause = std::io::Error::other("the directory did not answer");
        let error = AccessError::caused_by("the caller's groups could not be read", cause);
        assert_eq!(error.to_string(), "the caller's groups could not be read");
        assert_eq!(
            error
                .source()
                .and_then(|cause| cause.downcast_ref::<std::io::Error>())
                .map(ToString::to_string)
                .as_deref(),
            Some("the directory did not answer")
        );
        assert_eq!(
            crate::error::with_causes(&error),
            "the caller's groups could not be read: the directory did not answer"
        );
        assert!(AccessError::failed("no grant").source().is_none());
    }
}

//! The seam between a request and the tools it may see: the application's hook.

use std::fmt;
use std::sync::Arc;

use crate::approval::{ApprovalError, Approvals, Decider, Decision, PendingApproval};
use crate::{CallFuture, Context, RegisteredTool, Registry, Response, Tool, ToolError, View};

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
    /// access token of [`Caller::token`]); `None` over stdio.
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
/// Implemented for closures `Fn(&Caller<'_>) -> Result<Grant, String>`. An `Err`
/// is a server-side failure (the view could not be built) and reaches the client
/// as an internal error; refuse *callers* with the endpoint's token instead.
///
/// Building a view per request costs a pass over the registry and its
/// allowlist; a hook whose views depend on few things (the client kind, the
/// token's subject and scopes) keeps them in a [`ViewCache`](super::ViewCache)
/// keyed by those things, and every request of the same caller shares one.
pub trait Access: Send + Sync + 'static {
    /// The grant for one request.
    fn grant(&self, caller: &Caller<'_>) -> Result<Grant, String>;
}

impl<F> Access for F
where
    F: Fn(&Caller<'_>) -> Result<Grant, String> + Send + Sync + 'static,
{
    fn grant(&self, caller: &Caller<'_>) -> Result<Grant, String> {
        self(caller)
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
    fn principal(&self) -> Option<&str> {
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

    /// The approvals this set's calls are kept in, and its principal: where an MCP
    /// task (an `approve` call polled with `tasks/get`) is read from. Sets without
    /// approvals have none, and no tasks.
    fn approvals(&self) -> Option<(&Approvals, &str)> {
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

    fn principal(&self) -> Option<&str> {
        View::principal(self)
    }

    fn approvals(&self) -> Option<(&Approvals, &str)> {
        View::approvals(self).map(|(approvals, principal)| (approvals as &Approvals, principal))
    }

    fn run_approved<'a>(
        &'a self,
        pending: &'a PendingApproval,
        ctx: &'a Context,
    ) -> CallFuture<'a> {
        Box::pin(async move {
            match View::approvals(self) {
                Some((approvals, _)) => approvals.run_approved(self, ctx, pending).await,
                None => Response::Error(ApprovalError::NotConfigured.into()),
            }
        })
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

    fn principal(&self) -> Option<&str> {
        (**self).principal()
    }

    fn requester_may_decide(&self, pending: &PendingApproval) -> bool {
        (**self).requester_may_decide(pending)
    }

    fn approvals(&self) -> Option<(&Approvals, &str)> {
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
/// use toolkit::mcp::{Selection, ToolSet};
///
/// let read_only = Selection::new(toolkit::registry(), |tool| tool.verb() == "get");
/// assert!(read_only.tools().all(|tool| tool.name.starts_with("get")));
/// ```
#[derive(Clone)]
pub struct Selection {
    registry: &'static Registry,
    keep: Arc<dyn Fn(&Tool) -> bool + Send + Sync>,
}

impl Selection {
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
        Selection {
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

impl fmt::Debug for Selection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.tools().map(|tool| tool.name).collect();
        f.debug_struct("Selection").field("tools", &names).finish()
    }
}

impl ToolSet for Selection {
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

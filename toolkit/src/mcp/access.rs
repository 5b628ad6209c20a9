//! The seam between a request and the tools it may see: the application's hook.

use std::fmt;
use std::sync::Arc;

use crate::approval::{
    Approval, ApprovalError, Approvals, Decision, DecisionQuery, DecisionRecord, MAX_QUERY_LIMIT,
    PendingApproval, Verdict,
};
use crate::content::{Content, Contents};
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

    /// Signs a human's `decision` on a call `call` left pending and, unless it is a
    /// denial, runs the call once (the approval store refuses a second run, in any
    /// process). Sets without approvals refuse.
    ///
    /// A [`View`] records the decision; when another was recorded first (an
    /// approver's, in the inbox), that one stands. An approval with edits recorded
    /// there runs with the edited arguments the store keeps with it (checked against
    /// the recorded digest and the tool's schema), and its result starts with a text
    /// block telling the model who edited the arguments and what ran.
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

    fn resume<'a>(
        &'a self,
        pending: &'a PendingApproval,
        decision: Decision,
        ctx: &'a Context,
    ) -> CallFuture<'a> {
        Box::pin(async move {
            let Some((approvals, _)) = self.approvals() else {
                return Response::Error(ApprovalError::NotConfigured.into());
            };
            let declined = match &decision {
                Decision::Deny(message) => Some(message.clone()),
                Decision::Approve | Decision::ApproveWith(_) => None,
            };
            // Recorded like every other decision (the audit list shows it), and the
            // first one recorded wins, whichever path it came by.
            let recorded = approvals
                .decide_as(self.registry(), pending, decision, MCP_CLIENT_APPROVER)
                .await;
            let (approval, edited_by) = match recorded {
                Ok(approval) => (approval, None),
                Err(ApprovalError::AlreadyDecided {
                    decided_by,
                    decided_at,
                    verdict,
                }) => {
                    match follow_recorded(
                        self,
                        approvals,
                        pending,
                        declined,
                        &decided_by,
                        decided_at,
                        verdict,
                    )
                    .await
                    {
                        Ok(approval) => {
                            let edited = approval.verdict == Verdict::ApprovedWithEdits;
                            (approval, edited.then_some(decided_by))
                        }
                        Err(error) => return Response::Error(error),
                    }
                }
                Err(error) => return Response::Error(error.into()),
            };
            match (View::resume(self, &approval, ctx).await, edited_by) {
                // The model asked for other arguments than the call ran with: it is
                // told, before the result, who edited them and what ran.
                (Response::Result(value), Some(decided_by)) => {
                    let note = format!(
                        "{decided_by} approved it with edited arguments, and it ran with them: {}",
                        crate::approval::canonical_json(&approval.arguments)
                    );
                    Response::Result(with_note(value, note))
                }
                (response, _) => response,
            }
        })
    }
}

/// Who the decisions of an MCP client's user (an elicitation's answer) are recorded
/// as made by, in the audit list.
const MCP_CLIENT_APPROVER: &str = "the MCP client's user";

/// The approval to resume with when someone else (an approver in the inbox, say)
/// decided the call before the client's user answered: their decision stands. An
/// approval runs only if the client's user accepted too (a "no" in the
/// conversation never runs a call); a denial is answered with the approver's
/// reason; an approval with edits runs with the edited arguments the store
/// recorded with it, once they match the recorded digest and pass the tool's
/// schema again (a record altered in the store, or one recorded before stores kept
/// edited arguments, runs nothing).
async fn follow_recorded(
    view: &View<'_>,
    approvals: &Approvals,
    pending: &PendingApproval,
    declined: Option<String>,
    decided_by: &str,
    decided_at: u64,
    verdict: Verdict,
) -> Result<Approval, ToolError> {
    let decision = match (verdict, declined) {
        (Verdict::Denied, _) => Decision::Deny(
            recorded_decision(approvals, pending, decided_at)
                .await
                .and_then(|record| record.message)
                .unwrap_or_else(|| format!("{decided_by} denied the call")),
        ),
        (Verdict::Approved | Verdict::ApprovedWithEdits, Some(message)) => Decision::Deny(message),
        (Verdict::Approved, None) => Decision::Approve,
        (Verdict::ApprovedWithEdits, None) => {
            let refused = |why: &str| ToolError::ApprovalRejected {
                reason: format!("{decided_by} approved it with edited arguments, but {why}"),
            };
            let record = recorded_decision(approvals, pending, decided_at)
                .await
                .filter(|record| record.verdict == Verdict::ApprovedWithEdits)
                .ok_or_else(|| refused("their decision could not be read back"))?;
            let arguments = record
                .arguments
                .ok_or_else(|| refused("the store kept no edited arguments with it"))?;
            // The digest was computed from the arguments the approver's edits were
            // validated as; arguments that no longer match it were changed since,
            // and never run.
            if crate::approval::digest(&arguments) != record.digest {
                return Err(refused(
                    "the edited arguments in the store do not match its digest",
                ));
            }
            Decision::ApproveWith(arguments)
        }
    };
    // Signed, not recorded again: THE decision is already in the store, and the
    // claim still lets the call run once. Edited arguments are validated against
    // the tool's schema again here.
    approvals
        .decide(view.registry(), pending, decision)
        .map_err(ToolError::from)
}

/// The recorded decision on `pending`, decided at `decided_at`.
async fn recorded_decision(
    approvals: &Approvals,
    pending: &PendingApproval,
    decided_at: u64,
) -> Option<DecisionRecord> {
    let query = DecisionQuery::new()
        .principal(pending.principal.clone())
        .tool(pending.tool.clone())
        .decided_after(decided_at)
        .decided_before(decided_at.saturating_add(1))
        .limit(MAX_QUERY_LIMIT);
    approvals
        .decisions(&query)
        .await
        .ok()?
        .into_iter()
        .find(|record| record.call_id == pending.call_id)
}

/// A result with `note` as its first text block: a plain value becomes its JSON
/// text after the note (and stays the structured value), a rich result keeps its
/// blocks and structured value.
fn with_note(value: serde_json::Value, note: String) -> serde_json::Value {
    let (items, structured) = match Contents::from_result(&value) {
        Some(rich) => rich,
        None => (
            vec![Content::Text {
                text: value.to_string(),
            }],
            Some(value.clone()),
        ),
    };
    let mut contents = items
        .into_iter()
        .fold(Contents::new().text(note), Contents::push);
    if let Some(structured) = structured {
        contents = contents.structured(structured);
    }
    serde_json::to_value(&contents).unwrap_or(value)
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

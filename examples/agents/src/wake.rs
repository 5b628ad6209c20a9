//! What an agent learns when it wakes: the calls it asked a person for while it
//! was away, carried out by the core's runner, read back from the approval store.
//!
//! The whole story of USE-CASES B's trust rule, with every rule in
//! `toolkit::approval` and this module only wiring it:
//!
//! 1. A contact texts the sales agent; on that turn the agent asks to schedule a
//!    call-back. The [`TrustPolicy`](crate::consumers::TrustPolicy) leaves a
//!    contact-triggered schedule to a person, and the approvals' policy
//!    ([`Deciders::others`](toolkit::approval::Deciders::others), see
//!    [`approvals`](crate::consumers::approvals)) says that person is not the
//!    agent: its own "yes" is refused and kept in the audit. [`call`] remembers the
//!    waiting call on the agent's thread, and the turn ends: nobody waits.
//! 2. An owner decides in the inbox ([`crate::inbox`]).
//! 3. [`run_approved`], a pass of the core's runner (`Approvals::run_decided`),
//!    runs each approved call once, through the view the agent has *now*, however
//!    many runners run at once.
//! 4. The agent's next wake ([`wake_agents`]) reads what came of each call it
//!    waits on from the approval store (`Approvals::status`): it ran (with its
//!    result), or was denied, expired or failed. That is the first thing the agent
//!    reads on that run ([`Waking::messages`]).

use std::collections::BTreeSet;
use std::fmt;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use toolkit::approval::{
    ApprovalError, Approvals, CallState, CallStatus, PendingApproval, RunPass,
};
use toolkit::quota::Quotas;
use toolkit::{Context, Response, View, registry};

use crate::consumers::{Request, agent_view};
use crate::context::{CallerThread, ThreadId};
use crate::store::{AgentConfig, Org, Wake};
use crate::time::Timestamp;

/// An agent's tool call on one of its turns: the view's answer, and a call that
/// waits for a person (`Response::Pending`) remembered on the caller's thread
/// ([`Org::await_decision`]) for its next wake. `ctx` holds the org and the
/// [`CallerThread`], as every agent turn's does.
pub async fn call(view: &View<'_>, name: &str, arguments: &Value, ctx: &Context) -> Response {
    let response = view.call_value(name, arguments, ctx).await;
    if let (Response::Pending(pending), Some(org), Some(thread)) =
        (&response, ctx.get::<Org>(), ctx.get::<CallerThread>())
    {
        org.await_decision(thread.0, pending.call_id.clone());
    }
    response
}

/// One pass of the core's approval runner over the org's agents: every call a
/// person approved (and nobody ran yet) runs once, across every process that
/// calls this, through the view its agent has now (its stored allowlist and
/// permissions: an agent that has since lost the tool is refused, and the
/// refusal is its outcome). An agent never comes back to run its own call, so
/// there is no grace: a call runs on the first pass after its decision. A run
/// is counted once against the agent's `quotas`; one the quota refuses is kept
/// as `rate_limited` and tried (and counted) again on a later pass.
///
/// # Errors
/// [`ApprovalError::Store`] when the store cannot list the decided calls.
pub async fn run_approved(
    org: &Org,
    approvals: &Approvals,
    quotas: &Quotas,
) -> Result<RunPass, ApprovalError> {
    approvals
        .run_decided(Duration::ZERO, |pending| {
            run_as(org, approvals, quotas, pending)
        })
        .await
}

/// The view and context the agent that asked for `pending` has *now*, to run it
/// with: its stored allowlist and permissions, its thread, the org. The runner's
/// `run_as` hook ([`run_approved`]); `Err` (kept as the call's outcome) when the
/// principal is no agent of the org any more.
pub fn run_as<'r>(
    org: &Org,
    approvals: &'r Approvals,
    quotas: &'r Quotas,
    pending: &PendingApproval,
) -> Result<(View<'r>, Context), String> {
    let agent = agent_of(org, &pending.principal)?;
    let principal = agent.principal();
    let request = Request {
        principal: &principal,
        flags: &[],
        page: None,
    };
    let view = agent_view(registry(), approvals, quotas, &agent, &request, false)
        .map_err(|error| error.to_string())?;
    let ctx = Context::new()
        .with(org.clone())
        .with(CallerThread(agent.thread));
    Ok((view, ctx))
}

/// The org's agent whose principal is `principal` (`local|agent:<thread>`).
fn agent_of(org: &Org, principal: &toolkit::Principal) -> Result<AgentConfig, String> {
    let thread: ThreadId = (principal.issuer() == toolkit::Principal::LOCAL_ISSUER)
        .then(|| principal.subject().strip_prefix("agent:"))
        .flatten()
        .and_then(|thread| thread.parse().ok())
        .ok_or_else(|| format!("`{principal}` is not one of the org's agents"))?;
    org.agent(thread)
        .ok_or_else(|| format!("the agent {thread} no longer exists"))
}

/// Runs [`run_approved`] every `every`, for as long as the application lives:
/// spawn it beside the inbox. A pass that fails (the store unreachable) is tried
/// again on the next tick.
pub async fn run_approved_every(
    org: Org,
    approvals: std::sync::Arc<Approvals>,
    quotas: std::sync::Arc<Quotas>,
    every: Duration,
) {
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if let Err(error) = run_approved(&org, &approvals, &quotas).await {
            eprintln!("the approval runner: {error}");
        }
    }
}

/// What came of a call an agent asked a person for, as the agent reads it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Answer {
    /// The call's id, as the agent's transcript has it.
    pub call_id: String,
    /// The tool it called.
    pub tool: String,
    /// What came of it.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// How a call that waited for a person ended ([`Answer::outcome`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// Approved, and it ran: the result as the model reads it (after a note of who
    /// edited the arguments, when someone did); `None` when it was too large to
    /// keep.
    Ran {
        /// The result.
        result: Option<Value>,
    },
    /// It never runs: denied, expired, refused at run time, or failed until its
    /// approval expired.
    NotRun {
        /// Why, as a `ToolError::kind` (`denied`, `expired`, ...).
        kind: String,
        /// What the model reads.
        message: String,
    },
}

impl Answer {
    /// The answer a final `status` gives; `None` while the call is not over.
    fn of(call_id: &str, status: CallStatus) -> Option<Answer> {
        let outcome = match status.state {
            CallState::Ran(result) => Outcome::Ran { result },
            CallState::NotRun { kind, message } => Outcome::NotRun { kind, message },
            CallState::Withdrawn => Outcome::NotRun {
                kind: toolkit::approval::WITHDRAWN.to_owned(),
                message: "the call was withdrawn before it ran".to_owned(),
            },
            _ => return None,
        };
        Some(Answer {
            call_id: call_id.to_owned(),
            tool: status.pending.tool,
            outcome,
        })
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Answer { call_id, tool, .. } = self;
        match &self.outcome {
            Outcome::Ran {
                result: Some(result),
            } => write!(
                f,
                "Your call `{tool}` ({call_id}) was approved and ran; it returned: {result}"
            ),
            Outcome::Ran { result: None } => write!(
                f,
                "Your call `{tool}` ({call_id}) was approved and ran; its result was too large to keep"
            ),
            Outcome::NotRun { kind, message } => write!(
                f,
                "Your call `{tool}` ({call_id}) never ran ({kind}): {message}"
            ),
        }
    }
}

/// What came of the calls `thread` waits on, read from the approval store: one
/// [`Answer`] per call whose life is over, which the agent then stops waiting
/// on. A call still waiting or running stays awaited, and so does one the store
/// could not be asked about now: the next wake reads it again.
pub async fn news(org: &Org, approvals: &Approvals, thread: ThreadId) -> Vec<Answer> {
    let principal = crate::context::Principal::agent(thread, &[]).typed();
    let mut answers = Vec::new();
    for call_id in org.awaiting(thread) {
        let answer = match approvals.status(&principal, &call_id).await {
            Ok(Some(status)) => match Answer::of(&call_id, status) {
                Some(answer) => answer,
                None => continue,
            },
            // Never stored, or purged long after it ended: nothing will come of it.
            Ok(None) => Answer {
                call_id: call_id.clone(),
                tool: String::new(),
                outcome: Outcome::NotRun {
                    kind: "unknown".to_owned(),
                    message: "the approval store has no record of this call".to_owned(),
                },
            },
            Err(_) => continue,
        };
        org.stop_awaiting(thread, &call_id);
        answers.push(answer);
    }
    answers
}

/// An agent waking up: the schedule that fired, and what came of the calls it
/// was waiting on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Waking {
    /// The schedule that fired.
    #[serde(flatten)]
    pub wake: Wake,
    /// What came of the calls the agent asked a person for, since it last read.
    pub news: Vec<Answer>,
}

impl Waking {
    /// The context of this run: the org, the agent's thread, what woke it.
    #[must_use]
    pub fn context(&self, org: &Org) -> Context {
        Context::new()
            .with(org.clone())
            .with(CallerThread(self.wake.thread))
            .with(self.wake.trigger())
    }

    /// What the model reads first on this run, in order: what came of each call
    /// it waited on, then the instruction it left itself.
    #[must_use]
    pub fn messages(&self) -> Vec<String> {
        self.news
            .iter()
            .map(ToString::to_string)
            .chain([self.wake.prompt.clone()])
            .collect()
    }
}

/// The agents' clock moves to `now` ([`Org::advance_to`]): every schedule due
/// fires, and each agent's first wake carries what came of the calls it waits
/// on ([`news`]).
pub async fn wake_agents(org: &Org, approvals: &Approvals, now: Timestamp) -> Vec<Waking> {
    let mut told = BTreeSet::new();
    let mut wakings = Vec::new();
    for wake in org.advance_to(now) {
        let news = if told.insert(wake.thread) {
            news(org, approvals, wake.thread).await
        } else {
            Vec::new()
        };
        wakings.push(Waking { wake, news });
    }
    wakings
}

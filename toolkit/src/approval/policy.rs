//! Who may decide an `approve` call: one policy, asked by every door (an MCP
//! client's own answer, the inbox, [`Approvals::decide`](super::Approvals::decide)
//! and [`Approvals::decide_as`](super::Approvals::decide_as), an inline
//! [`InlineDecider`](super::InlineDecider), an agent framework's hook).

use std::collections::HashMap;
use std::fmt;

use super::PendingApproval;

/// Who is deciding a pending approval, as the policy sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decider<'a> {
    /// The requester's own answer: the user of the conversation that made the
    /// call, answering in it (an MCP client's elicitation, an agent framework's
    /// confirmation hook). An agent that answers its own questions is this too.
    Requester,
    /// A person the application names (the inbox's signed-in approver, the
    /// `decided_by` of [`Approvals::decide_as`](super::Approvals::decide_as)). A
    /// person named exactly like the call's principal is its requester.
    Person(&'a str),
    /// The application itself, in code: its inline [`InlineDecider`](super::InlineDecider),
    /// or [`Approvals::decide`](super::Approvals::decide).
    Application,
}

impl Decider<'_> {
    /// How the audit names this decider: the person's name, `the requester` or
    /// `the application`.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            Decider::Requester => REQUESTER,
            Decider::Person(name) => name,
            Decider::Application => APPLICATION,
        }
    }

    /// Whether this decider is the requester of `pending`: its own answer, or a
    /// person named like its principal.
    #[must_use]
    pub fn is_requester_of(&self, pending: &PendingApproval) -> bool {
        match self {
            Decider::Requester => true,
            Decider::Person(name) => *name == pending.principal,
            Decider::Application => false,
        }
    }
}

/// How the audit names the requester's own decisions.
pub(super) const REQUESTER: &str = "the requester";
/// How the audit names the application's decisions.
pub(super) const APPLICATION: &str = "the application";

/// Whether a decider may decide a pending approval. [`Approvals`](super::Approvals)
/// asks it on every path before anything is recorded; a refusal runs nothing and
/// is kept in the audit ([`Approvals::refusals`](super::Approvals::refusals)).
///
/// [`Deciders`] is the usual one (and the default: nobody approves their own
/// call). A closure `Fn(&Decider<'_>, &PendingApproval) -> bool` is one too, for
/// rules over the view that asked or the principal:
///
/// ```
/// use toolkit::approval::{Decider, PendingApproval};
///
/// // The personal assistant's own user approves; every other surface needs an admin.
/// let policy = |decider: &Decider<'_>, pending: &PendingApproval| {
///     pending.view.as_deref() == Some("assistant") || matches!(decider, Decider::Person(p) if p.starts_with("admin:"))
/// };
/// # fn check(_: impl toolkit::approval::DecisionPolicy) {}
/// # check(policy);
/// ```
pub trait DecisionPolicy: Send + Sync {
    /// `Ok` if `decider` may decide `pending`; otherwise why not, in words the
    /// decider reads (and the audit keeps).
    ///
    /// # Errors
    /// The reason this decider may not decide this call.
    fn check(&self, decider: &Decider<'_>, pending: &PendingApproval) -> Result<(), String>;
}

impl<F> DecisionPolicy for F
where
    F: Fn(&Decider<'_>, &PendingApproval) -> bool + Send + Sync,
{
    fn check(&self, decider: &Decider<'_>, pending: &PendingApproval) -> Result<(), String> {
        if self(decider, pending) {
            Ok(())
        } else {
            Err("the application's approval policy leaves this call to someone else".to_owned())
        }
    }
}

/// The usual policy: whether a call's requester may decide it, per tool.
///
/// The default, [`Deciders::others`], lets nobody approve or deny their own call:
/// a person other than the requester (the inbox's approver) or the application
/// decides. That is what `tier = approve` promises ("a human approves"), and an
/// agent framework that accepts every question it is asked cannot approve its own
/// transfers. A personal assistant whose user is the one to ask opts in, for all
/// tools or some:
///
/// ```
/// use toolkit::approval::Deciders;
///
/// // The user approves deleting their own memories in the conversation; money
/// // moves only when someone else approves.
/// let policy = Deciders::others().requester_decides(["delete_memories"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deciders {
    requester_decides: bool,
    tools: HashMap<String, bool>,
}

impl Deciders {
    /// Nobody decides their own call (the default).
    #[must_use]
    pub fn others() -> Self {
        Deciders::default()
    }

    /// The requester may decide their own calls of every tool, unless
    /// [`Deciders::others_decide`] names it.
    #[must_use]
    pub fn requester_too() -> Self {
        Deciders {
            requester_decides: true,
            tools: HashMap::new(),
        }
    }

    /// The requester may decide their own calls of these tools.
    #[must_use]
    pub fn requester_decides<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tools
            .extend(tools.into_iter().map(|tool| (tool.into(), true)));
        self
    }

    /// Only someone other than the requester decides calls of these tools.
    #[must_use]
    pub fn others_decide<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tools
            .extend(tools.into_iter().map(|tool| (tool.into(), false)));
        self
    }

    /// Whether the requester may decide calls of `tool`.
    #[must_use]
    pub fn requester_may_decide(&self, tool: &str) -> bool {
        self.tools
            .get(tool)
            .copied()
            .unwrap_or(self.requester_decides)
    }
}

impl DecisionPolicy for Deciders {
    fn check(&self, decider: &Decider<'_>, pending: &PendingApproval) -> Result<(), String> {
        if decider.is_requester_of(pending) && !self.requester_may_decide(&pending.tool) {
            return Err(format!(
                "`{}` is approved by someone other than the requester; the call waits for them",
                pending.tool
            ));
        }
        Ok(())
    }
}

impl fmt::Display for Decider<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

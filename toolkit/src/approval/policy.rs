//! Who may decide an `approve` call: one policy, asked by every door (an MCP
//! client's own answer, the inbox, [`Approvals::decide`](super::Approvals::decide)
//! and [`Approvals::decide_as`](super::Approvals::decide_as), an inline
//! [`InlineDecider`](super::InlineDecider), an agent framework's hook).

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use super::PendingApproval;
use crate::declaration::Tier;
use crate::principal::Principal;
use crate::registry::Registry;

/// Who is deciding a pending approval, as the policy sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decider<'a> {
    /// The requester's own answer: the user of the conversation that made the
    /// call, answering in it (an MCP client's elicitation, an agent framework's
    /// confirmation hook). An agent that answers its own questions is this too.
    Requester,
    /// A person, as whatever verified them made their [`Principal`] (the inbox's
    /// signed-in approver, the `decided_by` of
    /// [`Approvals::decide_as`](super::Approvals::decide_as)). A person equal to the
    /// call's principal is its requester.
    Person(&'a Principal),
    /// The application itself, in code: its inline [`InlineDecider`](super::InlineDecider),
    /// or [`Approvals::decide`](super::Approvals::decide).
    Application,
}

impl Decider<'_> {
    /// How the audit names this decider: the person's [key](Principal::key),
    /// `the requester` or `the application`.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            Decider::Requester => REQUESTER,
            Decider::Person(principal) => principal.key(),
            Decider::Application => APPLICATION,
        }
    }

    /// Whether this decider is the requester of `pending`: its own answer, or a
    /// person equal to its principal (equality of [`Principal`]s: the same issuer,
    /// subject and tenant). [`Deciders`] counts those acting for the requester
    /// too ([`Deciders::acting_for`]).
    #[must_use]
    pub fn is_requester_of(&self, pending: &PendingApproval) -> bool {
        match self {
            Decider::Requester => true,
            Decider::Person(principal) => **principal == pending.principal,
            Decider::Application => false,
        }
    }
}

/// Who decided, as the audit keeps it: the owned [`Decider`] of a
/// [`DecisionRecord`](super::DecisionRecord) or a
/// [`RefusalRecord`](super::RefusalRecord), typed so that "who decided" compares
/// as [`Principal`]s do, never as two spellings of one person.
///
/// Stores keep it as its [name](DecidedBy::name) (`the requester`,
/// `the application` or the person's [key](Principal::key): a key always holds a
/// `|`, the two words never do) and read it back with [`DecidedBy::from_name`].
/// Decisions stores kept before deciders were typed (free strings) are migrated to
/// persons of the reserved issuer [`Principal::LEGACY_ISSUER`], as their
/// principals were.
///
/// ```
/// use toolkit::Principal;
/// use toolkit::approval::{DecidedBy, Decider};
///
/// let bob = Principal::new("https://id.example", "bob")?;
/// let by = DecidedBy::from(Decider::Person(&bob));
/// assert_eq!(by.name(), "https://id.example|bob");
/// assert_eq!(by.principal(), Some(&bob));
/// assert_eq!(DecidedBy::from_name("the requester")?, DecidedBy::Requester);
/// # Ok::<(), toolkit::PrincipalError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DecidedBy {
    /// The requester's own answer ([`Decider::Requester`]).
    Requester,
    /// A person ([`Decider::Person`]).
    Person(Principal),
    /// The application, in code ([`Decider::Application`]).
    Application,
}

impl DecidedBy {
    /// The text stores keep: `the requester`, `the application` or the person's
    /// [key](Principal::key) (as [`Decider::name`]).
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            DecidedBy::Requester => REQUESTER,
            DecidedBy::Person(principal) => principal.key(),
            DecidedBy::Application => APPLICATION,
        }
    }

    /// Reads a stored [name](DecidedBy::name) back.
    ///
    /// # Errors
    /// Text that is neither of the two words nor a principal's key (a corrupt row):
    /// the [`PrincipalError`](crate::PrincipalError) of reading it as a key.
    pub fn from_name(name: &str) -> Result<Self, crate::principal::PrincipalError> {
        match name {
            REQUESTER => Ok(DecidedBy::Requester),
            APPLICATION => Ok(DecidedBy::Application),
            key => Principal::from_key(key).map(DecidedBy::Person),
        }
    }

    /// The decider this was, for the [policy](DecisionPolicy) and
    /// [`Decider::is_requester_of`].
    #[must_use]
    pub fn decider(&self) -> Decider<'_> {
        match self {
            DecidedBy::Requester => Decider::Requester,
            DecidedBy::Person(principal) => Decider::Person(principal),
            DecidedBy::Application => Decider::Application,
        }
    }

    /// How this decider reads to a person: a person's
    /// [display name](Principal::display_name) (`bob (signed in with
    /// https://id.example)`), else `the requester` or `the application`.
    #[must_use]
    pub fn display_name(&self) -> String {
        match self {
            DecidedBy::Person(principal) => principal.display_name().to_string(),
            DecidedBy::Requester | DecidedBy::Application => self.name().to_owned(),
        }
    }

    /// The person who decided, if a person did.
    #[must_use]
    pub fn principal(&self) -> Option<&Principal> {
        match self {
            DecidedBy::Person(principal) => Some(principal),
            DecidedBy::Requester | DecidedBy::Application => None,
        }
    }
}

impl From<Decider<'_>> for DecidedBy {
    fn from(decider: Decider<'_>) -> Self {
        match decider {
            Decider::Requester => DecidedBy::Requester,
            Decider::Person(principal) => DecidedBy::Person(principal.clone()),
            Decider::Application => DecidedBy::Application,
        }
    }
}

/// The [name](DecidedBy::name): what messages to the model and the audit say.
impl fmt::Display for DecidedBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// As its [name](DecidedBy::name), a string.
impl serde::Serialize for DecidedBy {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// From its [name](DecidedBy::name); any other text is refused.
impl<'de> serde::Deserialize<'de> for DecidedBy {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        DecidedBy::from_name(&name).map_err(serde::de::Error::custom)
    }
}

// Stored as its name, in a `TEXT` column.
crate::principal::stored_as_text!(DecidedBy, DecidedBy::name, DecidedBy::from_name);

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
///     pending.view.as_deref() == Some("assistant")
///         || matches!(decider, Decider::Person(p) if p.subject().starts_with("admin:"))
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

    /// Checks every tool the policy names against `registry`: a view with these
    /// approvals is not built ([`ViewProblem::Policy`](crate::view::ViewProblem::Policy))
    /// and nobody decides ([`ApprovalError::NotAllowed`](super::ApprovalError::NotAllowed))
    /// while a name resolves to no `approve` tool, so a misspelt name can never
    /// leave a tool to a rule it was meant to escape. A policy that names no tools
    /// (the default) has nothing to check.
    ///
    /// # Errors
    /// Every name that does not resolve, at once.
    fn resolve(&self, registry: &Registry) -> Result<(), PolicyError> {
        let _ = registry;
        Ok(())
    }
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
///
/// Name tools by the constant `#[tool]` generates (`delete_memories::NAME`), so
/// the compiler checks the name. Names are checked against the registry as well
/// ([`DecisionPolicy::resolve`]): a name that is no `approve` tool's current name
/// makes the view refuse to build, and nobody decides through the policy until it
/// is fixed.
///
/// # Acting for someone
/// Where one party acts for another (an agent for its user, a service account for
/// a team), say so with [`Deciders::acting_for`]: "the requester" then covers the
/// principal that asked, everyone it acts for, everyone acting for it, and
/// everyone acting for the same principal. An agent cannot approve its user's
/// transfer, nor the user the agent's, nor a second agent of the same user.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deciders {
    requester_decides: bool,
    tools: HashMap<String, bool>,
    /// `(agent, principal)`: `agent` acts for `principal`.
    acting_for: BTreeSet<(Principal, Principal)>,
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
            acting_for: BTreeSet::new(),
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

    /// Declares that `agent` acts for `principal` (an in-process agent for its
    /// user, a service account for its owner): each counts as the other's
    /// requester, so where the requester may not decide, neither may they. Declare
    /// as many pairs as there are.
    ///
    /// ```
    /// use toolkit::Principal;
    /// use toolkit::approval::Deciders;
    ///
    /// let ada = Principal::new("https://auth.example.com", "ada")?;
    /// let planner = Principal::local("agent:ada-planner")?;
    /// let policy = Deciders::others().acting_for(planner.clone(), ada.clone());
    /// assert!(policy.same_party(&planner, &ada));
    /// assert!(!policy.same_party(&planner, &Principal::local("agent:bob-planner")?));
    /// # Ok::<(), toolkit::PrincipalError>(())
    /// ```
    #[must_use]
    pub fn acting_for(mut self, agent: Principal, principal: Principal) -> Self {
        self.acting_for.insert((agent, principal));
        self
    }

    /// Whether `one` and `other` count as one party: equal, one acting for the
    /// other, or both acting for the same principal (see
    /// [`Deciders::acting_for`]).
    #[must_use]
    pub fn same_party(&self, one: &Principal, other: &Principal) -> bool {
        if one == other {
            return true;
        }
        !self.parties(one).is_disjoint(&self.parties(other))
    }

    /// Whom `who` speaks for: itself and everyone it acts for.
    fn parties<'a>(&'a self, who: &'a Principal) -> BTreeSet<&'a Principal> {
        std::iter::once(who)
            .chain(
                self.acting_for
                    .iter()
                    .filter(|(agent, _)| agent == who)
                    .map(|(_, principal)| principal),
            )
            .collect()
    }

    /// Whether `decider` is `pending`'s requester as this policy counts: its own
    /// answer, the principal that asked, or a party of it
    /// ([`Deciders::same_party`]).
    #[must_use]
    pub fn is_requester(&self, decider: &Decider<'_>, pending: &PendingApproval) -> bool {
        match decider {
            Decider::Person(principal) => self.same_party(principal, &pending.principal),
            other => other.is_requester_of(pending),
        }
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
        if self.is_requester(decider, pending) && !self.requester_may_decide(&pending.tool) {
            return Err(format!(
                "`{}` is approved by someone other than the requester; the call waits for them",
                pending.tool
            ));
        }
        Ok(())
    }

    fn resolve(&self, registry: &Registry) -> Result<(), PolicyError> {
        let mut problems: Vec<PolicyProblem> = self
            .tools
            .keys()
            .filter_map(|name| problem_with(registry, name))
            .collect();
        if problems.is_empty() {
            return Ok(());
        }
        // The map's order is random; the report's is not.
        problems.sort_by(|a, b| a.name().cmp(b.name()));
        Err(PolicyError { problems })
    }
}

/// What is wrong with one tool name in a policy, if anything. Only the tool's
/// current name counts: calls are recorded under it, so a rule written for an old
/// name (an alias) would never match one.
fn problem_with(registry: &Registry, name: &str) -> Option<PolicyProblem> {
    let Some(tool) = registry.get(name) else {
        let suggestion =
            crate::suggest::closest(name, registry.iter().map(|tool| tool.name)).map(str::to_owned);
        return Some(PolicyProblem::UnknownTool {
            name: name.to_owned(),
            suggestion,
        });
    };
    if tool.name != name {
        return Some(PolicyProblem::OldName {
            name: name.to_owned(),
            tool: tool.name,
        });
    }
    if tool.tier != Tier::Approve {
        return Some(PolicyProblem::NotApproveTier {
            name: name.to_owned(),
            tier: tool.tier,
        });
    }
    None
}

/// Why a policy's tool names could not be resolved against the registry: every
/// name at once, sorted. See [`DecisionPolicy::resolve`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyError {
    /// The names that resolve to no `approve` tool, by name.
    pub problems: Vec<PolicyProblem>,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the approval policy ")?;
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for PolicyError {}

/// One tool name of a policy that resolves to no `approve` tool.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PolicyProblem {
    /// No tool has this name or alias.
    UnknownTool {
        /// The name as the policy wrote it.
        name: String,
        /// The registry's closest tool name, if one is close.
        suggestion: Option<String>,
    },
    /// An old name (alias) of a tool: calls are recorded under the current name,
    /// so the rule would never apply.
    OldName {
        /// The name as the policy wrote it.
        name: String,
        /// The tool's current name.
        tool: &'static str,
    },
    /// A tool that never waits for a decision (not `tier = approve`).
    NotApproveTier {
        /// The name as the policy wrote it.
        name: String,
        /// The tool's tier.
        tier: Tier,
    },
}

impl PolicyProblem {
    /// The name as the policy wrote it.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            PolicyProblem::UnknownTool { name, .. }
            | PolicyProblem::OldName { name, .. }
            | PolicyProblem::NotApproveTier { name, .. } => name,
        }
    }
}

impl fmt::Display for PolicyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyProblem::UnknownTool {
                name,
                suggestion: Some(suggestion),
            } => write!(
                f,
                "names `{name}`, which is no tool; did you mean `{suggestion}`? \
                 (name tools by their constant, `{suggestion}::NAME`, and the compiler checks them)"
            ),
            PolicyProblem::UnknownTool {
                name,
                suggestion: None,
            } => write!(
                f,
                "names `{name}`, which is no tool (name tools by their constant, \
                 `my_tool::NAME`, and the compiler checks them)"
            ),
            PolicyProblem::OldName { name, tool } => write!(
                f,
                "names `{name}`, an old name of `{tool}`; calls are recorded under the \
                 current name, so name it `{tool}::NAME`"
            ),
            PolicyProblem::NotApproveTier { name, tier } => write!(
                f,
                "names `{name}`, a `tier = {tier}` tool; only `tier = approve` calls wait \
                 for a decision, so the rule would never apply"
            ),
        }
    }
}

impl fmt::Display for Decider<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

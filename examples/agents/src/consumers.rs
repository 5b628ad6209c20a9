//! Who sees which tools: one registry, narrowed per request into a [`View`] for the
//! human assistant or for one agent. Every step only removes tools, in this order:
//! scope and bindings (what the consumer can provide) -> the stored allowlist ->
//! permission (owners bypass) -> surfacing (the page the human is on) -> feature
//! flags.
//!
//! A view is built per request from stored strings; nothing here is cached. The
//! work is a few bit operations per tool (see BENCHMARKS.md for the numbers).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use toolkit::approval::{
    ApprovalKey, ApprovalStore, Approvals, Deciders, Decision, InlineDecider, MemoryApprovalStore,
    PendingApproval,
};
use toolkit::quota::{QuotaConfigError, QuotaStore, Quotas};
use toolkit::{
    Context, Registry, Scope, Tool, View,
    binding::Binding,
    view::{Preset, ViewError},
};

use crate::context::{Principal, Trigger};
use crate::store::AgentConfig;
use crate::tools::agent::create_schedules;

/// The *recommended* subset: what an agent stored with the legacy
/// `attach_domain_tools = true` gets, and a sensible default for new ones.
///
/// Everything in the day-to-day families, and the agent's own memory and
/// escalations. Left out: the powerful infrastructure tools (buying phone numbers,
/// rewriting other agents), deleting tasks, and creating schedules (an agent may
/// only wake itself up when its owner allowed it by name).
pub const RECOMMENDED: Preset = Preset::new(
    "recommended",
    &[
        "@contacts",
        "@messages",
        "@calls",
        "@sales",
        "@tasks",
        "@knowledge",
        "@memory",
        "@escalations",
        "@schedules",
        "@plans",
    ],
)
.except(&["delete_tasks", "create_schedules"]);

/// The presets stored allowlists may name (`"preset:recommended"`).
pub const PRESETS: &[Preset] = &[RECOMMENDED];

/// The allowlist entry of the recommended preset.
pub const RECOMMENDED_ENTRY: &str = "preset:recommended";

/// The assistant's stored allowlist: every family a member may use from the web
/// app, powerful tools included (a human is at the keyboard, and approves them).
pub const ASSISTANT_ALLOWLIST: &[&str] = &[
    "@contacts",
    "@messages",
    "@calls",
    "@sales",
    "@tasks",
    "@knowledge",
    "@infrastructure",
    "@personalization",
];

/// A page of the web app: it narrows the assistant to the families it is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Page {
    /// The contacts list and a contact's card.
    Contacts,
    /// The task board.
    Tasks,
    /// The org's settings.
    Settings,
}

impl Page {
    /// The tool groups this page surfaces.
    #[must_use]
    pub fn groups(self) -> &'static [&'static str] {
        match self {
            Page::Contacts => &["contacts", "messages", "calls", "sales"],
            Page::Tasks => &["tasks", "contacts"],
            Page::Settings => &["infrastructure", "personalization"],
        }
    }
}

/// The permission a tool needs: `<group>.read` for `get` and `search` tools,
/// `<group>.write` for the rest. A tool in no group needs `admin`.
#[must_use]
pub fn required_permission(tool: &Tool) -> String {
    let access = match tool.verb() {
        "get" | "search" => "read",
        _ => "write",
    };
    tool.group
        .map_or_else(|| "admin".to_owned(), |group| format!("{group}.{access}"))
}

/// The permission predicate: owners may use every tool; anyone else needs the
/// tool's [`required_permission`]. Agent-own families (memory, escalations,
/// schedules, plans) and channel replies need no permission: an agent acts on
/// itself, and a reply answers the message at hand.
#[must_use]
pub fn permits(principal: &Principal, tool: &Tool) -> bool {
    matches!(tool.scope, Scope::Agent | Scope::Channel) || principal.has(&required_permission(tool))
}

/// What one request to the assistant or an agent carries besides the allowlist.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// Who the request acts for.
    pub principal: &'a Principal,
    /// The org's feature flags that are on.
    pub flags: &'a [&'a str],
    /// The page the member is on (the assistant only).
    pub page: Option<Page>,
}

/// The human assistant's view: shared and assistant tools from its stored
/// allowlist, narrowed by permission, page and flags. `approve` tools in it wait
/// for a human, under `approvals`, on behalf of the request's principal.
pub fn assistant_view<'r, S: AsRef<str>>(
    registry: &'r Registry,
    approvals: &'r Approvals,
    allowlist: &[S],
    request: &Request<'_>,
) -> Result<View<'r>, ViewError> {
    let mut builder = registry
        .view()
        .scopes([Scope::Shared, Scope::Assistant])
        .provides([Binding::HumanSession])
        .presets(PRESETS)
        .allow(allowlist)
        .permit(|tool| permits(request.principal, tool))
        .flags(request.flags)
        .approvals(approvals, request.principal.typed());
    if let Some(page) = request.page {
        builder = builder.surface(page.groups());
    }
    builder.build()
}

/// The stored allowlist of an agent as entries: its own, plus the recommended
/// preset when the legacy switch is on.
#[must_use]
pub fn agent_allowlist(agent: &AgentConfig) -> Vec<String> {
    let mut entries = agent.allowlist.clone();
    if agent.attach_domain_tools && !entries.iter().any(|entry| entry == RECOMMENDED_ENTRY) {
        entries.push(RECOMMENDED_ENTRY.to_owned());
    }
    entries
}

/// An agent's view: shared and agent tools from its stored allowlist (the legacy
/// switch expanded), narrowed by permission and flags. With `live`, the turn
/// answers an inbound message and the channel reply tools join. Every call it
/// runs is counted against `quotas` under the agent's principal ([`quotas`]).
pub fn agent_view<'r>(
    registry: &'r Registry,
    approvals: &'r Approvals,
    quotas: &'r Quotas,
    agent: &AgentConfig,
    request: &Request<'_>,
    live: bool,
) -> Result<View<'r>, ViewError> {
    let (scopes, provides): (&[Scope], &[Binding]) = if live {
        (
            &[Scope::Shared, Scope::Agent, Scope::Channel],
            &[Binding::CallerThread, Binding::LiveChannel],
        )
    } else {
        (&[Scope::Shared, Scope::Agent], &[Binding::CallerThread])
    };
    registry
        .view()
        .scopes(scopes.iter().copied())
        .provides(provides.iter().copied())
        .presets(PRESETS)
        .allow(agent_allowlist(agent))
        .permit(|tool| permits(request.principal, tool))
        .flags(request.flags)
        .approvals(approvals, request.principal.typed())
        .quotas(quotas)
        .build()
}

/// The org's quotas, counted in `store` ([`MemoryQuotaStore`](toolkit::quota::MemoryQuotaStore)
/// in one process; the approval store's database, `quota_store()`, in a fleet).
/// Each agent is counted on its own: `create_schedules` declares its default,
/// six runs an hour per agent, so an agent that a run of contacts (or a loop of
/// its own) keeps asking to schedule is told when to try again, and the owners'
/// inbox is not its only brake.
///
/// # Errors
/// None with the limits set here (it names only tools the catalog declares);
/// [`QuotaConfigError`] if that stops being true.
pub fn quotas(store: impl QuotaStore + 'static) -> Result<Quotas, QuotaConfigError> {
    Quotas::builder(toolkit::registry(), store).build()
}

/// The trust rule for schedules, as an [`InlineDecider`]: an agent that decided by
/// itself to schedule a wake-up is approved at once (the cap still holds); one
/// whose run was triggered by a contact waits for an owner, since someone outside
/// the org asked for it. Every other `approve` call waits for a human.
#[derive(Clone, Copy, Debug, Default)]
pub struct TrustPolicy;

impl InlineDecider for TrustPolicy {
    fn decide<'a>(
        &'a self,
        pending: &'a PendingApproval,
        ctx: &'a Context,
    ) -> Pin<Box<dyn Future<Output = Option<Decision>> + Send + 'a>> {
        let contact_triggered = matches!(ctx.get::<Trigger>(), Some(Trigger::Contact { .. }));
        let decision = (pending.tool == create_schedules::NAME && !contact_triggered)
            .then_some(Decision::Approve);
        Box::pin(std::future::ready(decision))
    }
}

/// The org's approval set-up: signed with `key`, the life of its approvals kept
/// in memory, decided inline by the [`TrustPolicy`] where it can.
#[must_use]
pub fn approvals(key: ApprovalKey) -> Approvals {
    approvals_in(key, MemoryApprovalStore::new())
}

/// The org's approval set-up with the life of its approvals kept in `store` (a
/// shared database in a fleet; a store with a pinned clock in tests).
#[must_use]
pub fn approvals_in(key: ApprovalKey, store: impl ApprovalStore + 'static) -> Approvals {
    approvals_on(key, Arc::new(store))
}

/// The org's approval set-up over a `store` other processes (or other runners
/// in this one) share.
///
/// Who may decide: never the agent that asked. A contact-triggered schedule is
/// asked for by someone outside the org through the agent, so the agent's own
/// "yes" (an agent framework that accepts every question it is asked) is refused
/// on every path, and an owner decides in the inbox. Named here, not left to the
/// default, so that the rule stays when the default's wording changes.
#[must_use]
pub fn approvals_on(key: ApprovalKey, store: Arc<dyn ApprovalStore>) -> Approvals {
    Approvals::with_store(key, store)
        .inline_decider(TrustPolicy)
        .policy(Deciders::others().others_decide([create_schedules::NAME]))
}

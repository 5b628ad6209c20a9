//! Which routed tool the front desk agent gets on a live turn: the labelled set
//! in `selection.toml` scored against the agent's own view (its stored allowlist
//! with the recommended preset, an inbound message, every feature flag on), so a
//! change to a description, a name, the preset or the router that makes
//! selection worse fails here.
//!
//! The thresholds sit a little under the set's first run (see BENCHMARKS.md,
//! "Selection evals of the examples"); raise them when selection gets better,
//! never lower them to make a change pass.

use example_agents::consumers::{Request, agent_view, approvals};
use example_agents::{FRONT_DESK_AGENT, Org, Principal};
use toolkit::approval::ApprovalKey;
use toolkit::route::{Catalog, LexicalRouter};
use toolkit::testing::{
    SelectionSet, Thresholds, assert_selection, compare_selection, confusable_tools,
};

/// Every feature flag the registry's tools are gated by.
fn all_flags() -> Vec<&'static str> {
    let mut flags: Vec<&str> = toolkit::registry()
        .iter()
        .filter_map(|tool| tool.gate)
        .collect();
    flags.sort_unstable();
    flags.dedup();
    flags
}

/// The routed tools of the front desk agent's live view.
fn catalog() -> Catalog {
    let approvals =
        approvals(ApprovalKey::new(*b"an application secret, 32 bytes!").expect("32 bytes"));
    let org = Org::sample();
    let front_desk = org
        .agent(FRONT_DESK_AGENT)
        .expect("the sample org has a front desk");
    let principal = Principal::agent(
        FRONT_DESK_AGENT,
        &[
            "contacts.read",
            "contacts.write",
            "messages.read",
            "messages.write",
            "calls.read",
            "calls.write",
            "sales.read",
            "sales.write",
            "tasks.read",
            "tasks.write",
            "knowledge.read",
        ],
    );
    let flags = all_flags();
    let request = Request {
        principal: &principal,
        flags: &flags,
        page: None,
    };
    agent_view(
        toolkit::registry(),
        &approvals,
        crate::quotas(),
        &front_desk,
        &request,
        true,
    )
    .expect("the front desk's view builds")
    .catalog()
}

fn set() -> SelectionSet {
    SelectionSet::load(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/selection.toml"))
        .expect("tests/selection.toml is a labelled set")
}

#[test]
fn the_catalog_is_the_front_desks_live_view() {
    let catalog = catalog();
    let names: Vec<&str> = catalog.iter().map(|entry| entry.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "create_analyzers",
            "create_contacts",
            "create_escalations",
            "create_memories",
            "create_messages",
            "create_plans",
            "create_reactions",
            "create_tasks",
            "delete_schedules",
            "get_calls",
            "get_deals",
            "get_schedules",
            "get_tasks",
            "search_knowledge",
            "search_memories",
            "update_deals",
            "update_tasks"
        ]
    );
}

#[test]
fn selection_stays_at_least_as_good_as_measured() {
    let report = assert_selection(
        &LexicalRouter::new(catalog()),
        &set(),
        5,
        // First run: recall@1 38.1%, recall@5 42.9%, MRR 0.429, abstention 75.0%
        // (3 of 4). Low, and kept as found: a customer's words ("opening hours",
        // "speak to a manager", "tick that off") share little with terse
        // descriptions like "Mark tasks done.", and plain BM25 does worse still
        // (recall@5 31.0%). The thresholds sit one point (0.01 of MRR) under the
        // run, the margin for rounding: the router is deterministic, so any
        // lost case is a drop. Abstention stays at 3 of 4.
        Thresholds::new()
            .recall_at_1(0.37)
            .recall_at_k(0.42)
            .mrr(0.42)
            .abstention(0.75),
    );
    // `cargo test -p example-agents --test it selection:: -- --nocapture` shows it,
    // beside sending every routed tool and a provider's search.
    println!("{report}");
    println!(
        "{}",
        compare_selection(&catalog(), &set(), 5).expect("checked above")
    );
}

#[test]
fn the_routed_tools_are_told_apart_by_their_own_words() {
    let pairs: Vec<String> = confusable_tools(&catalog(), 0.9)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(pairs, Vec::<String>::new());
}

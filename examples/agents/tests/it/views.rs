//! Each consumer sees exactly its tools, built per request from stored strings; a
//! tool outside a view can't be listed or called by any spelling.

use example_agents::consumers::{
    ASSISTANT_ALLOWLIST, Page, Request, agent_allowlist, agent_view, approvals, assistant_view,
};
use example_agents::{
    AgentConfig, CallerThread, FRONT_DESK_AGENT, LiveMessage, Org, Principal, SALES_AGENT, Session,
};
use futures_executor::block_on;
use serde_json::{Value, json};
use toolkit::approval::{ApprovalKey, Approvals};
use toolkit::{Context, Scope, View, binding::Binding, registry, view::ViewProblem};

const ALL_FLAGS: &[&str] = &[
    "knowledge_base_enabled",
    "custom_analyzers_enabled",
    "autonomous_plans_enabled",
];

fn key() -> ApprovalKey {
    ApprovalKey::new(*b"the example org's approval key!!").expect("32 bytes")
}

fn names(view: &View<'_>) -> Vec<&'static str> {
    view.names().collect()
}

fn sales_principal() -> Principal {
    Principal::agent(
        SALES_AGENT,
        &[
            "contacts.read",
            "contacts.write",
            "messages.write",
            "sales.read",
            "sales.write",
        ],
    )
}

fn assistant(
    approvals: &Approvals,
    principal: &Principal,
    flags: &[&str],
    page: Option<Page>,
) -> Vec<&'static str> {
    let request = Request {
        principal,
        flags,
        page,
    };
    names(&assistant_view(registry(), approvals, ASSISTANT_ALLOWLIST, &request).unwrap())
}

/// The view of an agent's turn for `request` (the channel's reply tools too
/// when it answers a `live` message), with the tests' quotas.
fn agent_turn<'a>(
    approvals: &'a Approvals,
    agent: &AgentConfig,
    request: &Request<'_>,
    live: bool,
) -> View<'a> {
    agent_view(registry(), approvals, crate::quotas(), agent, request, live).unwrap()
}

#[test]
fn the_catalog_declares_every_tool_once_with_its_scope() {
    let by_scope = |scope: Scope| -> Vec<&str> {
        registry()
            .iter()
            .filter(|tool| tool.scope == scope)
            .map(|tool| tool.name)
            .collect()
    };
    assert_eq!(
        by_scope(Scope::Shared),
        [
            "buy_phone_numbers",
            "create_analyzers",
            "create_contacts",
            "create_messages",
            "create_tasks",
            "delete_tasks",
            "get_calls",
            "get_contacts",
            "get_deals",
            "get_messages",
            "get_phone_numbers",
            "get_tasks",
            "search_contacts",
            "search_knowledge",
            "update_agents",
            "update_deals",
            "update_tasks",
        ]
    );
    assert_eq!(
        by_scope(Scope::Agent),
        [
            "create_escalations",
            "create_memories",
            "create_plans",
            "create_schedules",
            "delete_schedules",
            "get_schedules",
            "search_memories",
        ]
    );
    assert_eq!(by_scope(Scope::Assistant), ["set_member_personalization"]);
    assert_eq!(
        by_scope(Scope::Channel),
        ["create_reactions", "create_replies"]
    );
    // The binding is what makes a tool agent-, assistant- or channel-only.
    for tool in registry() {
        let expected: &[Binding] = match tool.scope {
            Scope::Shared => &[],
            Scope::Agent => &[Binding::CallerThread],
            Scope::Assistant => &[Binding::HumanSession],
            Scope::Channel => &[Binding::LiveChannel],
        };
        assert_eq!(tool.bindings, expected, "{}", tool.name);
    }
}

#[test]
fn the_assistant_sees_shared_and_assistant_tools_its_allowlist_names() {
    let approvals = approvals(key());
    let owner = Principal::owner(1);
    assert_eq!(
        assistant(&approvals, &owner, &[], None),
        [
            "buy_phone_numbers",
            "create_contacts",
            "create_messages",
            "create_tasks",
            "delete_tasks",
            "get_calls",
            "get_contacts",
            "get_deals",
            "get_messages",
            "get_phone_numbers",
            "get_tasks",
            "search_contacts",
            "set_member_personalization",
            "update_agents",
            "update_deals",
            "update_tasks",
        ]
    );
    // Each flag adds exactly its gated tool; `autonomous_plans_enabled` gates an
    // agent tool, which the assistant never has.
    assert_eq!(
        assistant(&approvals, &owner, ALL_FLAGS, None).len(),
        assistant(&approvals, &owner, &[], None).len() + 2
    );
    assert!(
        assistant(&approvals, &owner, &["knowledge_base_enabled"], None)
            .contains(&"search_knowledge")
    );
}

#[test]
fn the_contacts_page_narrows_to_contacts_messages_calls_and_sales() {
    let approvals = approvals(key());
    assert_eq!(
        assistant(
            &approvals,
            &Principal::owner(1),
            ALL_FLAGS,
            Some(Page::Contacts)
        ),
        [
            "create_analyzers",
            "create_contacts",
            "create_messages",
            "get_calls",
            "get_contacts",
            "get_deals",
            "get_messages",
            "search_contacts",
            "update_deals",
        ]
    );
    assert_eq!(
        assistant(&approvals, &Principal::owner(1), &[], Some(Page::Settings)),
        [
            "buy_phone_numbers",
            "get_phone_numbers",
            "set_member_personalization",
            "update_agents",
        ]
    );
}

#[test]
fn members_see_what_their_permissions_allow_and_owners_bypass() {
    let approvals = approvals(key());
    let member = Principal::member(
        2,
        &[
            "contacts.read",
            "messages.read",
            "messages.write",
            "tasks.read",
        ],
    );
    assert_eq!(
        assistant(&approvals, &member, ALL_FLAGS, None),
        [
            "create_messages",
            "get_contacts",
            "get_messages",
            "get_tasks",
            "search_contacts",
        ]
    );
    // Permission, then the page: only ever narrower.
    assert_eq!(
        assistant(&approvals, &member, ALL_FLAGS, Some(Page::Tasks)),
        ["get_contacts", "get_tasks", "search_contacts"]
    );
    let with_personalization = Principal::member(2, &["personalization.write"]);
    assert_eq!(
        assistant(&approvals, &with_personalization, &[], None),
        ["set_member_personalization"]
    );
}

#[test]
fn an_agent_sees_its_stored_allowlist_with_old_names_resolved() {
    let org = Org::sample();
    let approvals = approvals(key());
    let sales = org.agent(SALES_AGENT).unwrap();
    // As stored, with names from before the refactor (`update_deal`, `list_schedules`).
    assert!(sales.allowlist.contains(&"update_deal".to_owned()));
    let principal = sales_principal();
    let request = Request {
        principal: &principal,
        flags: ALL_FLAGS,
        page: None,
    };
    let view = agent_turn(&approvals, &sales, &request, false);
    assert_eq!(
        names(&view),
        [
            "create_contacts",
            "create_escalations",
            "create_memories",
            "create_messages",
            "create_schedules",
            "delete_schedules",
            "get_contacts",
            "get_deals",
            "get_schedules",
            "search_contacts",
            "search_memories",
            "update_deals",
        ]
    );
    // On a turn that answers an inbound message, the channel's reply tools join.
    let live = agent_turn(&approvals, &sales, &request, true);
    assert_eq!(names(&live).len(), 14);
    assert!(live.contains("create_replies") && live.contains("create_reactions"));
}

#[test]
fn the_legacy_switch_expands_to_the_recommended_preset() {
    let org = Org::sample();
    let approvals = approvals(key());
    let front_desk = org.agent(FRONT_DESK_AGENT).unwrap();
    assert!(front_desk.attach_domain_tools);
    assert_eq!(
        agent_allowlist(&front_desk),
        ["create_escalations", "preset:recommended"]
    );
    // An owner-level agent shows the whole preset: no infrastructure, no deleting
    // tasks, no creating schedules.
    let owner = Principal::owner(1);
    let request = Request {
        principal: &owner,
        flags: ALL_FLAGS,
        page: None,
    };
    let view = agent_turn(&approvals, &front_desk, &request, false);
    assert_eq!(
        names(&view),
        [
            "create_analyzers",
            "create_contacts",
            "create_escalations",
            "create_memories",
            "create_messages",
            "create_plans",
            "create_tasks",
            "delete_schedules",
            "get_calls",
            "get_contacts",
            "get_deals",
            "get_messages",
            "get_schedules",
            "get_tasks",
            "search_contacts",
            "search_knowledge",
            "search_memories",
            "update_deals",
            "update_tasks",
        ]
    );
    for powerful in [
        "buy_phone_numbers",
        "update_agents",
        "get_phone_numbers",
        "delete_tasks",
        "create_schedules",
    ] {
        assert!(!view.contains(powerful), "{powerful}");
    }
    // With the agent's own permissions and fewer flags, the same preset narrows.
    let principal = Principal::agent(
        FRONT_DESK_AGENT,
        &[
            "contacts.read",
            "messages.read",
            "messages.write",
            "calls.read",
            "tasks.read",
            "tasks.write",
            "knowledge.read",
        ],
    );
    let request = Request {
        principal: &principal,
        flags: &["knowledge_base_enabled"],
        page: None,
    };
    let view = agent_turn(&approvals, &front_desk, &request, false);
    assert_eq!(
        names(&view),
        [
            "create_escalations",
            "create_memories",
            "create_messages",
            "create_tasks",
            "delete_schedules",
            "get_calls",
            "get_contacts",
            "get_messages",
            "get_schedules",
            "get_tasks",
            "search_contacts",
            "search_knowledge",
            "search_memories",
            "update_tasks",
        ]
    );
}

#[test]
fn a_view_that_cannot_provide_a_binding_is_refused_when_built() {
    let error = registry()
        .view()
        .scopes([Scope::Shared, Scope::Agent])
        .allow(["get_contacts", "create_memories", "list_schedules"])
        .build()
        .unwrap_err();
    // An agent tool in a view whose consumer has no caller thread: a programming
    // error, found before any model sees the tool.
    assert_eq!(
        error.problems,
        [
            ViewProblem::MissingBinding {
                tool: "create_memories",
                scope: Scope::Agent,
                binding: Binding::CallerThread,
            },
            ViewProblem::MissingBinding {
                tool: "get_schedules",
                scope: Scope::Agent,
                binding: Binding::CallerThread,
            },
        ]
    );
    assert_eq!(
        error.to_string(),
        "the view could not be built: \
         the agent tool `create_memories` requires the `caller_thread` binding, and this view's consumer does not provide it; add `.provides([Binding::CallerThread])` if it does, or remove the tool from the view; \
         the agent tool `get_schedules` requires the `caller_thread` binding, and this view's consumer does not provide it; add `.provides([Binding::CallerThread])` if it does, or remove the tool from the view"
    );
}

#[test]
fn unknown_allowlist_entries_are_reported_never_ignored() {
    let error = registry()
        .view()
        .scopes([Scope::Shared, Scope::Agent])
        .provides([Binding::CallerThread])
        .presets(example_agents::consumers::PRESETS)
        .allow([
            "get_contact",
            "get_contactz",
            "@contact",
            "preset:recomended",
            "create_replies",
        ])
        .build()
        .unwrap_err();
    // `get_contact` is an old name of `get_contacts`: it resolves, so it is no error.
    assert_eq!(
        error.to_string(),
        "the view could not be built: \
         allowlist: no tool is named `get_contactz`; did you mean `get_contacts`?; \
         allowlist: no tool is in group `contact`; did you mean `@contacts`?; \
         allowlist: `create_replies` is a channel tool: it joins a view through `Scope::Channel` when the turn provides its live channel, not through an allowlist entry; \
         allowlist: no preset is named `preset:recomended`; did you mean `preset:recommended`?"
    );
}

/// A view of the sales agent, its context, and the org behind it.
fn sales_agent_turn(approvals: &Approvals) -> (Org, View<'_>, Context) {
    let org = Org::sample();
    let sales = org.agent(SALES_AGENT).unwrap();
    let principal = sales_principal();
    let request = Request {
        principal: &principal,
        flags: &[],
        page: None,
    };
    let view = agent_turn(approvals, &sales, &request, false);
    let ctx = Context::new()
        .with(org.clone())
        .with(CallerThread(SALES_AGENT));
    (org, view, ctx)
}

#[test]
fn hidden_tools_answer_as_unknown_by_every_spelling() {
    let approvals = approvals(key());
    let (org, view, ctx) = sales_agent_turn(&approvals);
    // Every context a hidden tool could want is there: still nothing runs.
    let ctx = ctx.with(Session { member_id: 1 }).with(LiveMessage {
        channel: example_agents::ChannelKind::Sms,
        conversation_id: 1,
        message_id: 4,
        contact_id: Some(1),
        text: "hi".to_owned(),
    });
    let arguments =
        r#"{"area_code": 20, "instructions": "x", "text": "x", "emoji": "👍", "name": "Sales"}"#;
    let tricks = [
        "buy_phone_numbers",
        "buy_phone_number", // its alias
        "BUY_PHONE_NUMBERS",
        "Buy_Phone_Numbers",
        " buy_phone_numbers",
        "buy_phone_numbers ",
        "buy_phone_numbers\n",
        "buy_phone_numbers\u{200b}", // zero-width space
        "buy_ph\u{43e}ne_numbers",   // Cyrillic o
        "\u{ff42}uy_phone_numbers",  // fullwidth b
        "buy-phone-numbers",
        "update_agents",
        "set_member_personalization",
        "create_replies", // a channel tool, on a turn without a live channel
        "create_plans",   // gated, flag off
        "GET_CONTACTS",   // even a visible tool answers only to its exact name
    ];
    for name in tricks {
        let response = block_on(view.call(name, arguments, &ctx));
        assert_eq!(
            response,
            toolkit::Response::Error(view.unknown_tool(name)),
            "{name:?}"
        );
        assert_eq!(
            response.to_json()["error"]["kind"],
            "unknown_tool",
            "{name:?}"
        );
    }
    // Exactly what a name that exists nowhere gets.
    let hidden = block_on(view.call("buy_phone_number", "{}", &ctx)).to_json();
    let missing = block_on(view.call("buy_boats", "{}", &ctx)).to_json();
    assert_eq!(
        hidden,
        json!({"error": {"kind": "unknown_tool", "name": "buy_phone_number", "message": "unknown tool `buy_phone_number`"}})
    );
    assert_eq!(
        missing,
        json!({"error": {"kind": "unknown_tool", "name": "buy_boats", "message": "unknown tool `buy_boats`"}})
    );
    // Suggestions come from the view only: a typo of a visible tool gets one, a
    // typo of a hidden tool none.
    assert_eq!(
        block_on(view.call("get_contactz", "{}", &ctx)).to_json(),
        json!({"error": {"kind": "unknown_tool", "name": "get_contactz", "suggestion": "get_contacts", "message": "unknown tool `get_contactz`; did you mean `get_contacts`?"}})
    );
    assert_eq!(
        block_on(view.call("update_agent", "{}", &ctx)).to_json(),
        json!({"error": {"kind": "unknown_tool", "name": "update_agent", "message": "unknown tool `update_agent`"}})
    );
    // Nothing ran.
    let sample = Org::sample();
    assert_eq!(org.agents(), sample.agents());
    assert_eq!(org.replies(), []);
    assert_eq!(org.personalization(1), None);
}

#[test]
fn visible_tools_run_through_the_view_by_name_and_alias() {
    let approvals = approvals(key());
    let (org, view, ctx) = sales_agent_turn(&approvals);
    let call =
        |name: &str, arguments: Value| block_on(view.call_value(name, &arguments, &ctx)).to_json();
    assert_eq!(
        call("update_deal", json!({"id": 6, "stage": "won"})),
        json!({"result": {"id": 6, "contact_id": 1, "title": "Difference engine licence", "stage": "won"}})
    );
    assert_eq!(
        call(
            "create_messages",
            json!({"contact_id": 1, "text": "Signed, thank you!"})
        ),
        json!({"result": {"id": 101, "contact_id": 1, "outgoing": true, "text": "Signed, thank you!"}})
    );
    assert_eq!(org.messages().len(), 2);
}

#[test]
fn the_assistant_sets_the_personalization_of_the_member_signed_in() {
    let approvals = approvals(key());
    let org = Org::sample();
    let owner = Principal::owner(1);
    let request = Request {
        principal: &owner,
        flags: &[],
        page: Some(Page::Settings),
    };
    let view = assistant_view(registry(), &approvals, ASSISTANT_ALLOWLIST, &request).unwrap();
    let ctx = Context::new()
        .with(org.clone())
        .with(Session { member_id: 1 });
    assert_eq!(
        block_on(view.call(
            "set_member_personalization",
            r#"{"instructions": "Short answers, British spelling."}"#,
            &ctx
        ))
        .to_json(),
        json!({"result": "Short answers, British spelling."})
    );
    assert_eq!(
        org.personalization(1).as_deref(),
        Some("Short answers, British spelling.")
    );
}

#[test]
fn channel_tools_reply_on_the_live_message_of_the_turn() {
    let approvals = approvals(key());
    let org = Org::sample();
    let sales = org.agent(SALES_AGENT).unwrap();
    let principal = sales_principal();
    let request = Request {
        principal: &principal,
        flags: &[],
        page: None,
    };
    let live = agent_turn(&approvals, &sales, &request, true);
    let ctx = Context::new()
        .with(org.clone())
        .with(CallerThread(SALES_AGENT))
        .with(LiveMessage {
            channel: example_agents::ChannelKind::Whatsapp,
            conversation_id: 12,
            message_id: 40,
            contact_id: Some(2),
            text: "Is the shop open on Sunday?".to_owned(),
        });
    assert_eq!(
        block_on(live.call("create_reactions", r#"{"emoji": "👍"}"#, &ctx)).to_json(),
        json!({"result": {"channel": "whatsapp", "conversation_id": 12, "in_reply_to": 40, "text": "👍", "reaction": true}})
    );
    assert_eq!(
        block_on(live.call("create_replies", r#"{"text": "Closed on Sundays."}"#, &ctx)).to_json(),
        json!({"result": {"channel": "whatsapp", "conversation_id": 12, "in_reply_to": 40, "text": "Closed on Sundays.", "reaction": false}})
    );
    assert_eq!(
        block_on(live.call("create_reactions", r#"{"emoji": "ok"}"#, &ctx)).to_json(),
        json!({"error": {"kind": "failed", "message": "`emoji` must be exactly one emoji"}})
    );
    assert_eq!(org.replies().len(), 2);
}

#[test]
fn a_typed_allowlist_from_tool_handles_is_checked_by_the_compiler() {
    use example_agents::tools::agent::{create_memories, search_memories};
    use example_agents::tools::crm::{get_contacts, search_contacts};

    let view = registry()
        .view()
        .scopes([Scope::Shared, Scope::Agent])
        .provides([Binding::CallerThread])
        .allow_tools([
            get_contacts::definition(),
            search_contacts::definition(),
            create_memories::definition(),
            search_memories::definition(),
        ])
        .build()
        .unwrap();
    assert_eq!(
        names(&view),
        [
            "create_memories",
            "get_contacts",
            "search_contacts",
            "search_memories"
        ]
    );
}

#[test]
fn a_confirm_tool_previews_through_the_view_before_it_acts() {
    let approvals = approvals(key());
    let org = Org::sample();
    let owner = Principal::owner(1);
    let request = Request {
        principal: &owner,
        flags: &[],
        page: Some(Page::Tasks),
    };
    let view = assistant_view(registry(), &approvals, ASSISTANT_ALLOWLIST, &request).unwrap();
    let ctx = Context::new()
        .with(org.clone())
        .with(Session { member_id: 1 });
    // No preview function declared: the default one shows the checked arguments.
    assert_eq!(
        block_on(view.call("delete_tasks", r#"{"ids": [7]}"#, &ctx)).to_json(),
        json!({
            "requires_confirmation": true,
            "message": "`delete_tasks` has not run; call it again with `confirmed: true` to proceed",
            "items": [{"ids": [7]}]
        })
    );
    assert_eq!(org.tasks().len(), 1);
    assert_eq!(
        block_on(view.call("delete_tasks", r#"{"ids": [7], "confirmed": true}"#, &ctx)).to_json(),
        json!({"result": [7]})
    );
    assert_eq!(org.tasks(), []);
}

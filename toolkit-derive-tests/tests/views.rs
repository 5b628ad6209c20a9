//! Views as a downstream crate uses them: one catalog (USE-CASES B), each consumer
//! narrowed by scopes, stored allowlist strings, presets, typed handles, feature
//! flags, a permission predicate and surfacing; bindings refused at build; the view
//! as the security boundary for every name trick.

// In-memory tools never await.
#![allow(clippy::unused_async)]

use futures_executor::block_on;
use serde_json::json;
use toolkit::{
    Context, Dialect, Registry, Response, Scope, Tool, ToolError, View,
    binding::Binding,
    tool,
    view::{EntryProblem, Preset, UnknownEntry, ViewError, ViewProblem},
};

/// Get contacts whose name contains a text.
#[tool(scope = shared, tier = auto, always, group = "contacts", aliases = ["find_contacts", "list_contacts"])]
async fn get_contacts(
    /// Part of the name.
    name: String,
) -> Vec<String> {
    vec![format!("{name} Lovelace")]
}

/// Create contacts.
#[tool(scope = shared, tier = auto, group = "contacts")]
async fn create_contacts(
    /// Their names.
    names: Vec<String>,
) -> usize {
    names.len()
}

/// Get the messages of a conversation.
#[tool(scope = shared, tier = auto, group = "messages")]
async fn get_messages(
    /// The conversation.
    conversation: u32,
) -> Vec<String> {
    vec![format!("hello from {conversation}")]
}

/// Create a message and send it.
#[tool(scope = shared, tier = auto, group = "messages", aliases = ["send_message"])]
async fn create_messages(
    /// What to say.
    text: String,
) -> String {
    text
}

/// Get recent calls.
#[tool(scope = shared, tier = auto, group = "calls")]
async fn get_calls() -> Vec<String> {
    Vec::new()
}

/// Create (buy) a phone number for the organization.
#[tool(scope = shared, tier = approve, group = "phone")]
async fn create_phone_numbers(
    /// The area code.
    area_code: u16,
) -> String {
    format!("+1 {area_code} 555 0100")
}

/// Search the knowledge base.
#[tool(scope = shared, tier = auto, group = "knowledge", gate = "knowledge_base_enabled")]
async fn search_knowledge(
    /// What to look for.
    query: String,
) -> Vec<String> {
    vec![query]
}

/// Create a schedule that wakes this agent.
#[tool(scope = agent, tier = auto, group = "schedules", gate = "autonomous_plans_enabled")]
async fn create_schedules(
    /// When, as an RFC 3339 time.
    at: String,
) -> String {
    at
}

/// Get this agent's schedules.
#[tool(scope = agent, tier = auto, group = "schedules")]
async fn get_schedules() -> Vec<String> {
    Vec::new()
}

/// Create an escalation to the agent's owner.
#[tool(scope = agent, tier = auto, group = "escalations")]
async fn create_escalations(
    /// Why.
    reason: String,
) -> String {
    reason
}

/// Set the member's personalization of the assistant.
#[tool(scope = assistant, tier = auto, group = "settings")]
async fn set_member_personalization(
    /// The text the assistant keeps in mind.
    text: String,
) -> String {
    text
}

/// Create a reply on this turn's live channel.
#[tool(scope = channel, tier = auto, group = "replies")]
async fn create_replies(
    /// The reply.
    text: String,
) -> String {
    text
}

/// The catalog as the application writes it, with the bindings the `macros` branch
/// will derive from `#[ctx]` parameters spelled out (agent tools need the caller
/// thread, assistant tools the human session, channel tools the live channel).
fn catalog() -> &'static Registry {
    static CATALOG: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
    CATALOG.get_or_init(|| {
        let bound = |tool: &'static Tool, bindings: &'static [Binding]| -> &'static Tool {
            Box::leak(Box::new(Tool { bindings, ..*tool }))
        };
        Registry::new([
            get_contacts::definition(),
            create_contacts::definition(),
            get_messages::definition(),
            create_messages::definition(),
            get_calls::definition(),
            create_phone_numbers::definition(),
            search_knowledge::definition(),
            bound(create_schedules::definition(), &[Binding::CallerThread]),
            bound(get_schedules::definition(), &[Binding::CallerThread]),
            bound(create_escalations::definition(), &[Binding::CallerThread]),
            bound(
                set_member_personalization::definition(),
                &[Binding::HumanSession],
            ),
            bound(create_replies::definition(), &[Binding::LiveChannel]),
        ])
        .expect("unique names")
    })
}

/// The shared tools an agent gets when its owner ticked "all domain tools":
/// everything but buying phone numbers.
const RECOMMENDED: Preset = Preset::new(
    "recommended",
    &["@contacts", "@messages", "@calls", "@phone"],
)
.except(&["create_phone_numbers"]);

const PRESETS: &[Preset] = &[RECOMMENDED];

fn names(view: &View<'_>) -> Vec<&'static str> {
    view.names().collect()
}

fn assistant(registry: &Registry) -> toolkit::view::ViewBuilder<'_> {
    registry
        .view()
        .scopes([Scope::Shared, Scope::Assistant])
        .provides([Binding::HumanSession])
}

fn agent(registry: &Registry) -> toolkit::view::ViewBuilder<'_> {
    registry
        .view()
        .scopes([Scope::Shared, Scope::Agent])
        .provides([Binding::CallerThread])
        .presets(PRESETS)
}

#[test]
fn the_assistant_sees_shared_and_assistant_tools_in_name_order() {
    let view = assistant(catalog()).build().expect("view");
    assert_eq!(
        names(&view),
        [
            "create_contacts",
            "create_messages",
            "create_phone_numbers",
            "get_calls",
            "get_contacts",
            "get_messages",
            "set_member_personalization",
        ]
    );
    assert_eq!(view.len(), 7);
    let always: Vec<&str> = view.always().map(|tool| tool.name).collect();
    assert_eq!(always, ["get_contacts"]);
    assert_eq!(view.routed().count(), 6);
    assert_eq!(view.iter().len(), 7);
    assert!(view.unknown_entries().is_empty());
}

#[test]
fn an_agent_view_from_stored_strings() {
    // As stored for one agent: an alias, a group, a preset.
    let stored = ["find_contacts", "@schedules", "preset:recommended"];
    let view = agent(catalog())
        .allow(stored)
        .flags(["autonomous_plans_enabled"])
        .build()
        .expect("view");
    assert_eq!(
        names(&view),
        [
            "create_contacts",
            "create_messages",
            "create_schedules",
            "get_calls",
            "get_contacts",
            "get_messages",
            "get_schedules",
        ]
    );
    // The same entries in another order give the same view.
    let reversed = agent(catalog())
        .flags(["autonomous_plans_enabled"])
        .allow(["preset:recommended", "@schedules"])
        .allow(["find_contacts"])
        .build()
        .expect("view");
    assert_eq!(names(&reversed), names(&view));
}

#[test]
fn the_recommended_preset_leaves_out_powerful_tools() {
    let view = agent(catalog())
        .allow(["preset:recommended"])
        .build()
        .expect("view");
    assert_eq!(
        names(&view),
        [
            "create_contacts",
            "create_messages",
            "get_calls",
            "get_contacts",
            "get_messages",
        ]
    );
    assert!(!view.contains("create_phone_numbers"));
}

#[test]
fn unknown_entries_fail_the_build_with_every_problem_named() {
    let error = agent(catalog())
        .allow([
            "get_contact",
            "@contact",
            "preset:recomended",
            " get_contacts",
            "email_digest",
        ])
        .build()
        .expect_err("unknown entries");
    let unknown = |entry: &str, problem: EntryProblem| {
        ViewProblem::Unknown(UnknownEntry {
            entry: entry.to_owned(),
            preset: None,
            problem,
        })
    };
    let tool = |suggestion: Option<&str>| EntryProblem::UnknownTool {
        suggestion: suggestion.map(str::to_owned),
    };
    assert_eq!(
        error,
        ViewError {
            problems: vec![
                unknown("get_contact", tool(Some("get_contacts"))),
                unknown(
                    "@contact",
                    EntryProblem::UnknownGroup {
                        suggestion: Some("@contacts".to_owned())
                    }
                ),
                unknown(" get_contacts", tool(Some("get_contacts"))),
                unknown("email_digest", tool(None)),
                unknown(
                    "preset:recomended",
                    EntryProblem::UnknownPreset {
                        suggestion: Some("preset:recommended".to_owned())
                    }
                ),
            ]
        }
    );
    assert_eq!(
        error.to_string(),
        "the view could not be built: \
         allowlist: no tool is named `get_contact`; did you mean `get_contacts`?; \
         allowlist: no tool is in group `contact`; did you mean `@contacts`?; \
         allowlist: no tool is named ` get_contacts`; did you mean `get_contacts`?; \
         allowlist: no tool is named `email_digest`; \
         allowlist: no preset is named `preset:recomended`; did you mean `preset:recommended`?"
    );
}

#[test]
fn a_stored_allowlist_naming_a_removed_tool_keeps_working_when_tolerated() {
    let view = agent(catalog())
        .allow(["get_contacts", "email_digest"])
        .tolerate_unknown()
        .build()
        .expect("view");
    assert_eq!(names(&view), ["get_contacts"]);
    assert_eq!(
        view.unknown_entries(),
        [UnknownEntry {
            entry: "email_digest".to_owned(),
            preset: None,
            problem: EntryProblem::UnknownTool { suggestion: None },
        }]
    );
    assert_eq!(
        view.unknown_entries()[0].to_string(),
        "no tool is named `email_digest`"
    );
}

#[test]
fn a_typed_allowlist_from_handles() {
    let view = agent(catalog())
        .allow_tools([get_contacts::definition(), get_messages::definition()])
        .allow(["get_calls"])
        .build()
        .expect("view");
    assert_eq!(names(&view), ["get_calls", "get_contacts", "get_messages"]);
    let plain = toolkit::registry()
        .view()
        .allow_tools([get_contacts::definition(), get_messages::definition()])
        .build()
        .expect("view");
    assert_eq!(names(&plain), ["get_contacts", "get_messages"]);
    // The process registry's tools are the handles' own definitions.
}

#[test]
fn a_handle_from_another_registry_is_reported() {
    // `get_schedules` in the catalog is a copy with bindings, not the handle's
    // definition: a handle must name the very tool of this registry.
    let error = agent(catalog())
        .allow_tools([get_schedules::definition()])
        .build()
        .expect_err("not this registry's tool");
    assert_eq!(
        error.to_string(),
        "the view could not be built: allowlist: tool `get_schedules` is not in this registry"
    );
}

#[test]
fn gated_tools_need_their_flag() {
    let off = assistant(catalog())
        .allow(["search_knowledge", "get_calls"])
        .build()
        .expect("view");
    assert_eq!(names(&off), ["get_calls"]);
    let on = assistant(catalog())
        .allow(["search_knowledge", "get_calls"])
        .flags(["knowledge_base_enabled", "custom_analyzers_enabled"])
        .build()
        .expect("view");
    assert_eq!(names(&on), ["get_calls", "search_knowledge"]);
}

#[test]
fn the_permission_predicate_removes_tools() {
    let mut asked = Vec::new();
    let view = assistant(catalog())
        .allow(["@contacts", "@phone"])
        .permit(|tool| {
            asked.push(tool.name);
            tool.group != Some("phone")
        })
        .build()
        .expect("view");
    assert_eq!(names(&view), ["create_contacts", "get_contacts"]);
    // Asked once per tool still in the view (here: the assistant's scopes, since
    // `scopes` came first and the allowlist is applied at build).
    assert!(asked.contains(&"create_phone_numbers"));
    assert!(!asked.contains(&"get_schedules"));
}

#[test]
fn surfacing_narrows_and_never_widens() {
    let view = assistant(catalog())
        .allow(["@contacts", "@messages"])
        .surface(["contacts", "calls"])
        .build()
        .expect("view");
    // `calls` is not allowlisted, so the page does not add it.
    assert_eq!(names(&view), ["create_contacts", "get_contacts"]);
    let twice = assistant(catalog())
        .surface(["contacts", "messages"])
        .surface(["messages", "calls"])
        .build()
        .expect("view");
    assert_eq!(names(&twice), ["create_messages", "get_messages"]);
}

#[test]
fn a_tool_whose_binding_the_consumer_cannot_provide_refuses_the_build() {
    let error = catalog()
        .view()
        .scopes([Scope::Shared, Scope::Agent])
        .build()
        .expect_err("no caller thread");
    assert_eq!(
        error.problems,
        [
            ViewProblem::MissingBinding {
                tool: "create_escalations",
                scope: Scope::Agent,
                binding: Binding::CallerThread,
            },
            ViewProblem::MissingBinding {
                tool: "create_schedules",
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
        error.problems[0].to_string(),
        "the agent tool `create_escalations` requires the `caller_thread` binding, and this \
         view's consumer does not provide it; add `.provides([Binding::CallerThread])` if it \
         does, or remove the tool from the view"
    );
    // Tools the allowlist leaves out are not checked.
    let view = catalog()
        .view()
        .scopes([Scope::Shared, Scope::Agent])
        .allow(["get_contacts"])
        .build()
        .expect("view");
    assert_eq!(names(&view), ["get_contacts"]);
}

#[test]
fn channel_tools_join_through_their_scope_not_the_allowlist() {
    let turn = catalog()
        .view()
        .scopes([Scope::Shared, Scope::Channel])
        .provides([Binding::LiveChannel])
        .allow(["get_contacts"])
        .build()
        .expect("view");
    assert_eq!(names(&turn), ["create_replies", "get_contacts"]);
    let error = assistant(catalog())
        .allow(["create_replies"])
        .build()
        .expect_err("a channel tool is no allowlist entry");
    assert_eq!(
        error.to_string(),
        "the view could not be built: allowlist: `create_replies` is a channel tool: it joins a \
         view through `Scope::Channel` when the turn provides its live channel, not through an \
         allowlist entry"
    );
    // A turn without a live channel has no channel tools.
    let without_channel = catalog()
        .view()
        .scopes([Scope::Shared, Scope::Channel])
        .allow(["get_contacts"])
        .build()
        .expect("view");
    assert_eq!(names(&without_channel), ["get_contacts"]);
}

#[test]
fn every_step_only_removes_tools() {
    let all = catalog().view().tolerate_unknown();
    let everything = all
        .provides([
            Binding::CallerThread,
            Binding::HumanSession,
            Binding::LiveChannel,
        ])
        .flags(["knowledge_base_enabled", "autonomous_plans_enabled"])
        .build()
        .expect("view");
    assert_eq!(everything.len(), catalog().len());
    let narrowed = agent(catalog())
        .allow(["@contacts", "@schedules", "@phone"])
        .permit(|tool| tool.name != "create_contacts")
        .surface(["contacts", "schedules"])
        .build()
        .expect("view");
    assert_eq!(names(&narrowed), ["get_contacts", "get_schedules"]);
}

/// The agent's view: no phone tools, no assistant tools.
fn hidden_test_view() -> View<'static> {
    agent(catalog())
        .allow(["@messages", "get_calls"])
        .build()
        .expect("view")
}

#[test]
fn no_name_trick_reaches_a_hidden_tool() {
    let view = hidden_test_view();
    assert_eq!(
        names(&view),
        ["create_messages", "get_calls", "get_messages"]
    );
    let ctx = Context::new();
    let tricks = [
        "get_contacts",
        "find_contacts",        // an alias of a hidden tool
        "list_contacts",        // another
        "GET_CONTACTS",         // case
        "Get_Contacts",         // case
        " get_contacts",        // whitespace
        "get_contacts ",        // whitespace
        "get_contacts\n",       // newline
        "get_contacts\u{200b}", // zero-width space
        "get_c\u{043e}ntacts",  // Cyrillic o
        "\u{ff47}et_contacts",  // fullwidth g
        "get_contacts\u{0}",    // NUL
        "create_phone_numbers", // hidden approve tool
        "set_member_personalization",
        "create_replies",
        "get_schedules", // out of the allowlist
        "get_tasks",     // in the process registry, not in this catalog
    ];
    for trick in tricks {
        assert!(view.get(trick).is_none(), "{trick:?}");
        assert!(!view.contains(trick), "{trick:?}");
        let response = block_on(view.call(trick, r#"{"name": "Ada"}"#, &ctx));
        assert_eq!(
            response,
            Response::Error(view.unknown_tool(trick)),
            "{trick:?}"
        );
        // The same answer as for a name nobody ever defined.
        let ToolError::UnknownTool { name, suggestion } = view.unknown_tool(trick) else {
            panic!("unknown_tool gives UnknownTool");
        };
        // The name comes back as sent, with control and invisible characters
        // written as escapes (the tricks here are all short).
        let escaped: String = trick
            .chars()
            .map(|c| match c {
                '\n' | '\u{0}' | '\u{200b}' => format!("\\u{{{:x}}}", u32::from(c)),
                c => c.to_string(),
            })
            .collect();
        assert_eq!(name, escaped);
        if let Some(suggestion) = suggestion {
            assert!(
                view.contains(&suggestion),
                "{trick:?} suggested {suggestion}"
            );
        }
    }
    // Suggestions come only from the view.
    assert_eq!(
        view.unknown_tool("get_contact"),
        ToolError::UnknownTool {
            name: "get_contact".to_owned(),
            suggestion: None,
        }
    );
    assert_eq!(
        view.unknown_tool("get_message"),
        ToolError::UnknownTool {
            name: "get_message".to_owned(),
            suggestion: Some("get_messages".to_owned()),
        }
    );
    assert_eq!(
        view.unknown_tool("send_messag"),
        ToolError::UnknownTool {
            name: "send_messag".to_owned(),
            suggestion: Some("create_messages".to_owned()),
        }
    );
    // Rendering lists only the view's tools, in name order.
    let rendered = view.render(Dialect::OpenAiChat);
    assert!(rendered.is_complete());
    let rendered = rendered.to_value();
    let rendered: Vec<&str> = rendered
        .as_array()
        .expect("an array")
        .iter()
        .map(|tool| tool["function"]["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(rendered, ["create_messages", "get_calls", "get_messages"]);
    let mcp = view.render(Dialect::Mcp);
    assert!(mcp.is_complete());
    let mcp = mcp.to_value();
    assert_eq!(mcp.as_array().map(Vec::len), Some(3));
}

#[test]
fn calls_through_the_view_run_by_name_and_alias() {
    let view = hidden_test_view();
    let ctx = Context::new();
    assert_eq!(
        block_on(view.call("create_messages", r#"{"text": "hi"}"#, &ctx)),
        Response::Result(json!("hi"))
    );
    assert_eq!(
        block_on(view.call("send_message", r#"{"text": "hi"}"#, &ctx)),
        Response::Result(json!("hi"))
    );
    assert_eq!(
        block_on(view.call_value("get_messages", &json!({"conversation": 7}), &ctx)),
        Response::Result(json!(["hello from 7"]))
    );
    assert_eq!(
        view.get("send_message").map(|tool| tool.name),
        Some("create_messages")
    );
}

#[test]
fn an_approve_tool_never_runs_from_the_registry_or_a_view_without_approvals() {
    let ctx = Context::new();
    let expected = Response::Error(ToolError::ApprovalRequired {
        tool: "create_phone_numbers".to_owned(),
    });
    assert_eq!(
        block_on(catalog().call("create_phone_numbers", r#"{"area_code": 415}"#, &ctx)),
        expected
    );
    let view = assistant(catalog()).build().expect("view");
    assert_eq!(
        block_on(view.call("create_phone_numbers", r#"{"area_code": 415}"#, &ctx)),
        expected
    );
    assert_eq!(
        expected.to_json(),
        json!({"error": {
            "kind": "approval_required",
            "tool": "create_phone_numbers",
            "message": "`create_phone_numbers` needs a human's approval, and this caller cannot ask for one; it did not run",
        }})
    );
}

#[test]
fn a_view_of_the_process_registry_without_steps() {
    // Every tool, except gated ones (no flag is on) and channel tools (no live
    // channel): the bindings are still placeholders in this registry.
    let view = toolkit::registry().view().build().expect("view");
    assert_eq!(
        names(&view),
        [
            "create_contacts",
            "create_escalations",
            "create_messages",
            "create_phone_numbers",
            "delete_messages",
            "get_calls",
            "get_contacts",
            "get_messages",
            "get_schedules",
            "set_member_personalization",
        ]
    );
}

/// Delete messages for good.
#[tool(scope = shared, tier = confirm, group = "messages")]
async fn delete_messages(
    /// The messages.
    ids: Vec<u32>,
) -> Vec<u32> {
    ids
}

#[test]
fn a_confirm_tool_answers_through_a_view_exactly_as_its_dispatcher_does() {
    // The dispatcher of a `confirm` tool returns the preview until `confirmed: true`;
    // the view adds nothing and skips nothing on the way.
    let view = toolkit::registry()
        .view()
        .allow(["delete_messages"])
        .build()
        .expect("view");
    let ctx = Context::new();
    let tool = delete_messages::definition();
    for arguments in [r#"{"ids": [1, 2]}"#, r#"{"ids": "x"}"#, ""] {
        assert_eq!(
            block_on(view.call("delete_messages", arguments, &ctx)),
            block_on(tool.call(arguments, &ctx)),
            "{arguments}"
        );
        assert_eq!(
            block_on(toolkit::registry().call("delete_messages", arguments, &ctx)),
            block_on(tool.call(arguments, &ctx)),
            "{arguments}"
        );
    }
}

#[test]
fn views_and_their_calls_cross_threads() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    fn send<T: Send>(_: &T) {}
    let view = hidden_test_view();
    send_sync(&view);
    let ctx = Context::new();
    let call = view.call("get_calls", "{}", &ctx);
    send(&call);
    assert_eq!(block_on(call), Response::Result(json!([])));
    let approvals = toolkit::approval::Approvals::new(
        toolkit::approval::ApprovalKey::new([7; 32]).expect("32 bytes"),
        toolkit::approval::MemoryApprovalStore::new(),
    );
    send_sync(&approvals);
}

#[test]
fn a_preset_entry_that_names_nothing_is_reported_with_its_preset() {
    const STALE: Preset = Preset::new("stale", &["get_contacts", "get_contact_notes"])
        .except(&["create_phone_number"]);
    let error = catalog()
        .view()
        .presets(&[STALE])
        .allow(["preset:stale"])
        .build()
        .expect_err("stale preset");
    assert_eq!(
        error.to_string(),
        "the view could not be built: \
         allowlist: no tool is named `get_contact_notes` (in preset `stale`); did you mean `get_contacts`?; \
         allowlist: no tool is named `create_phone_number` (in preset `stale`); did you mean `create_phone_numbers`?"
    );
}

#[test]
fn views_of_registries_past_64_tools() {
    let registry: &'static Registry = Box::leak(Box::new(
        Registry::new((0..150).map(|i| -> &'static Tool {
            let name: &'static str = Box::leak(format!("get_calls_{i:03}").into_boxed_str());
            Box::leak(Box::new(Tool {
                name,
                aliases: &[],
                group: Some(if i % 2 == 0 { "even" } else { "odd" }),
                ..*get_calls::definition()
            }))
        }))
        .expect("unique names"),
    ));
    let view = registry
        .view()
        .allow([
            "get_calls_000",
            "get_calls_063",
            "get_calls_064",
            "get_calls_149",
            "@even",
        ])
        .surface(["odd"])
        .build()
        .expect("view");
    assert_eq!(names(&view), ["get_calls_063", "get_calls_149"]);
    assert_eq!(view.len(), 2);
    assert!(!view.contains("get_calls_064"));
    assert_eq!(
        block_on(view.call("get_calls_149", "{}", &Context::new())),
        Response::Result(json!([]))
    );
    let evens = registry.view().allow(["@even"]).build().expect("view");
    assert_eq!(evens.len(), 75);
    assert_eq!(evens.iter().len(), 75);
    assert_eq!(evens.names().last(), Some("get_calls_148"));
}

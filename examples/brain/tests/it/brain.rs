//! The brain as its service uses it: per-client views, the registry API, routing
//! with the lexical router and a scripted cheap model, `{result, error, success}`
//! replies, the ledger of persistent tools and the fall-through to external
//! servers. Exact results throughout.

use std::convert::Infallible;
use std::sync::Arc;

use example_brain::{Brain, Client, Home, LedgerEntry, Reply};
use futures_executor::block_on;
use serde_json::{Value, json};
use toolkit::Dialect;
use toolkit::route::{LexicalRouter, ModelRouter, RouteError};

fn brain() -> Brain {
    Brain::new(Home::sample())
}

#[test]
fn each_client_sees_the_tools_tagged_for_it() {
    let brain = brain();
    let names = |client| brain.view(client).names().collect::<Vec<_>>();
    assert_eq!(
        names(Client::Internal),
        [
            "create_contacts",
            "create_events",
            "create_issues",
            "create_list_items",
            "create_memories",
            "delete_events",
            "delete_list_items",
            "get_events",
            "get_issues",
            "get_lists",
            "get_personality",
            "get_prompts",
            "search_contacts",
            "search_emails",
            "search_memories",
            "send_emails",
            "set_prompt",
            "update_issues",
            "update_list_items",
        ]
    );
    assert_eq!(
        names(Client::External),
        [
            "create_list_items",
            "get_events",
            "get_lists",
            "get_personality",
            "update_list_items"
        ]
    );
    assert_eq!(
        brain.always(Client::Internal),
        [
            "create_memories",
            "get_personality",
            "get_prompts",
            "search_memories",
            "set_prompt"
        ]
    );
    assert_eq!(
        brain.always(Client::Copilot),
        ["create_memories", "get_personality", "search_memories"]
    );
    assert_eq!(brain.always(Client::External), ["get_personality"]);
    assert_eq!(
        brain.catalog(Client::External),
        "- `create_list_items` (lists): Create items on a list; the list is made if new.\n\
         - `get_events` (calendar): Get calendar events, soonest first; only one day's with `day`.\n\
         - `get_lists` (lists): Get the items of a list (groceries, packing, chores), or of every list.\n\
         - `update_list_items` (lists): Tick list items off, or back on."
    );
    assert!(brain.tool(Client::Copilot, "get_issues").is_some());
    assert!(brain.tool(Client::External, "get_issues").is_none());
    // Every client's tools render in every dialect.
    for client in Client::ALL {
        for dialect in Dialect::ALL {
            assert_eq!(
                brain.view(client).render(dialect).skipped,
                [],
                "{client} {dialect}"
            );
        }
    }
    let openai = brain.openai_tools(Client::External);
    assert_eq!(openai.as_array().map(Vec::len), Some(5));
    assert_eq!(openai[0]["function"]["name"], "create_list_items");
    let mcp = brain.mcp_tools(Client::Copilot);
    assert_eq!(mcp.as_array().map(Vec::len), Some(15));
    assert_eq!(mcp[0]["name"], "create_events");
}

#[test]
fn replies_are_result_error_success_with_success_derived() {
    let brain = brain();
    let call = |client, name: &str, params: Value| block_on(brain.call_tool(client, name, &params));
    assert_eq!(
        call(Client::External, "get_lists", json!({"list": "groceries"})),
        Reply::ok(json!([
            {"id": 6, "list": "groceries", "text": "oat milk", "done": false},
            {"id": 7, "list": "groceries", "text": "lemons", "done": true}
        ]))
    );
    assert_eq!(
        serde_json::to_value(call(
            Client::Internal,
            "update_issues",
            json!({"number": 99})
        ))
        .unwrap(),
        json!({"result": null, "error": "no issue #99", "success": false})
    );
    // A tool the client may not call is unknown to it, suggestions from its view.
    assert_eq!(
        call(
            Client::External,
            "send_emails",
            json!({"to": "ada@example.com", "subject": "Hi", "body": "Hi"})
        ),
        Reply::failed("unknown tool `send_emails`")
    );
    assert_eq!(
        call(
            Client::Internal,
            "send_emails",
            json!({"to": "ada", "subject": "Hi", "body": "Hi"})
        ),
        Reply::failed("invalid arguments at `to`: an email address, like `ada@example.com`")
    );
}

#[test]
fn persistent_calls_go_to_the_ledger_and_mail_waits_for_confirmation() {
    let brain = brain();
    let call = |client, name: &str, params: Value| block_on(brain.call_tool(client, name, &params));
    let email = json!({"to": "ada@example.com", "subject": "Dinner", "body": "7pm?"});
    let preview = call(Client::Internal, "send_emails", email.clone());
    assert_eq!(
        preview,
        Reply::ok(json!({
            "requires_confirmation": true,
            "message": "This sends \"Dinner\" to ada@example.com. Read it to the user, and only if they agree call `send_emails` again with `confirmed: true`.",
            "items": [{"to": "ada@example.com", "subject": "Dinner", "body": "7pm?"}]
        }))
    );
    assert_eq!(brain.home().outbox(), []);
    let mut confirmed = email;
    confirmed["confirmed"] = json!(true);
    assert_eq!(
        call(Client::Internal, "send_emails", confirmed.clone()),
        Reply::ok(
            json!({"id": 11, "from": "home@example.com", "to": "ada@example.com", "subject": "Dinner", "body": "7pm?"})
        )
    );
    assert_eq!(
        call(
            Client::External,
            "update_list_items",
            json!({"ids": [6], "done": true})
        ),
        Reply::ok(
            json!({"count": 1, "items": [{"id": 6, "list": "groceries", "text": "oat milk", "done": true}]})
        )
    );
    // Reads and failures are not logged.
    call(Client::External, "get_lists", json!({}));
    call(Client::Internal, "delete_events", json!({"ids": [404]}));
    assert_eq!(
        brain.home().ledger(),
        [
            LedgerEntry {
                client: "internal",
                principal: None,
                tool: "send_emails",
                arguments: confirmed
            },
            LedgerEntry {
                client: "external",
                principal: None,
                tool: "update_list_items",
                arguments: json!({"ids": [6], "done": true})
            },
        ]
    );
}

#[test]
fn unknown_names_fall_through_to_external_servers() {
    let brain = brain().with_external(Arc::new(|name: &str, params: &Value| {
        (name == "get_weather").then(|| Reply::ok(json!({"city": params["city"], "sky": "clear"})))
    }));
    assert_eq!(
        block_on(brain.call_tool(Client::External, "get_weather", &json!({"city": "Oslo"}))),
        Reply::ok(json!({"city": "Oslo", "sky": "clear"}))
    );
    assert_eq!(
        block_on(brain.call_tool(Client::External, "get_wether_report", &json!({}))),
        Reply::failed("unknown tool `get_wether_report`")
    );
    // A local tool the client may not call never reaches the external server.
    assert_eq!(
        block_on(brain.call_tool(Client::External, "get_issues", &json!({}))),
        Reply::failed("unknown tool `get_issues`")
    );
}

#[test]
fn the_lexical_router_picks_routed_tools_and_always_tools_skip_it() {
    let brain = brain();
    for (client, message, routed) in [
        (
            Client::Internal,
            "email Ada that dinner is at 7",
            vec!["create_events", "send_emails", "search_emails"],
        ),
        (
            Client::Copilot,
            "the hallway sensor is broken again, file a bug",
            vec!["create_issues"],
        ),
        (
            Client::External,
            "tick off the oat milk",
            vec!["update_list_items", "create_list_items"],
        ),
        (
            Client::Copilot,
            "show me tomorrow's calendar events",
            vec!["get_events", "delete_events", "create_events"],
        ),
        (Client::Internal, "hello!", vec![]),
    ] {
        let router = LexicalRouter::new(brain.view(client).catalog());
        let turn = block_on(brain.route(client, &router, message));
        assert_eq!(turn.routed, routed, "{client}: {message}");
        assert_eq!(turn.always, brain.always(client));
        assert_eq!(turn.error, None);
    }
}

#[test]
fn a_cheap_model_routes_through_the_adapter_and_its_failures_fall_back() {
    let brain = brain();
    let view = brain.view(Client::External);
    let model = ModelRouter::new(view.catalog(), |prompt: String| async move {
        // The scripted model checks it was shown the catalog and the message.
        assert!(prompt.contains("- `get_lists` (lists): Get the items of a list"));
        assert!(prompt.ends_with("Message:\n> what do we need from the shop?\n"));
        Ok::<_, Infallible>("Sure: [\"get_lists\", \"send_emails\"]".to_owned())
    });
    let turn = block_on(brain.route(Client::External, &model, "what do we need from the shop?"));
    // `send_emails` is not the external client's: dropped.
    assert_eq!(turn.routed, ["get_lists"]);
    assert_eq!(turn.tools(), ["get_personality", "get_lists"]);

    let abstains = ModelRouter::new(view.catalog(), |_: String| async {
        Ok::<_, Infallible>("[]".to_owned())
    });
    let turn = block_on(brain.route(Client::External, &abstains, "thanks!"));
    assert_eq!(turn.tools(), ["get_personality"]);
    assert_eq!(turn.error, None);

    let down = ModelRouter::new(view.catalog(), |_: String| async {
        Err::<String, _>("timeout after 2s")
    });
    let turn = block_on(brain.route(Client::External, &down, "tick off the lemons"));
    assert_eq!(
        turn.routed,
        [
            "create_list_items",
            "get_events",
            "get_lists",
            "update_list_items"
        ]
    );
    assert_eq!(turn.error, Some(RouteError::model("timeout after 2s")));

    let confused = ModelRouter::new(view.catalog(), |_: String| async {
        Ok::<_, Infallible>("[\"send_emails\"]".to_owned())
    });
    let turn = block_on(brain.route(Client::External, &confused, "email Ada"));
    assert_eq!(turn.routed.len(), 4);
    assert_eq!(
        turn.error.map(|error| error.to_string()),
        Some(
            "the routing model named only tools that are not in the catalog: send_emails"
                .to_owned()
        )
    );
}

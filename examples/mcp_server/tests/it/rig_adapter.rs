//! The rig adapter: a rig agent (rig-agent 0.44, the agent loop of rig-core 0.44)
//! with a scripted completion model runs a multi-turn prompt; the model's tool
//! calls run through the view, tiers included.

use std::sync::Arc;

use example_assistant::AssistantState;
use rig_agent::AgentBuilder;
use rig_core::test_utils::{MockCompletionModel, MockTurn};
use serde_json::json;
use toolkit::{Context, Scope};

#[tokio::test]
async fn a_rig_agent_runs_view_tools_and_an_approve_tool_does_not_run() {
    let state = AssistantState::new();
    let ctx = Context::new().with(state.clone());
    // A memory the model will try to delete.
    let remembered = toolkit::registry()
        .call(
            "create_memories",
            r#"{"memories": [{"content": "Ada likes tea"}]}"#,
            &ctx,
        )
        .await;
    assert!(remembered.result().is_some(), "{remembered:?}");

    let view = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .allow(["create_tasks", "get_tasks", "delete_memories"])
        .build()
        .unwrap();
    let tools = toolkit::rig::tools(
        &Arc::new(view),
        &Arc::new(Context::new().with(state.clone())),
    );
    let names: Vec<String> = tools.iter().map(|tool| tool.name().to_string()).collect();
    assert_eq!(names, ["create_tasks", "delete_memories", "get_tasks"]);

    // First a tool call, then the approve tool, then the answer.
    let model = MockCompletionModel::from_turns([
        MockTurn::tool_call(
            "call_1",
            "create_tasks",
            json!({"tasks": [{"title": "Water the plants"}]}),
        ),
        MockTurn::tool_call("call_2", "delete_memories", json!({"ids": [1]})),
        MockTurn::text("Done: the plants are on your list."),
    ]);
    let agent = AgentBuilder::new(model.clone())
        .dynamic_tools(tools)
        .build();
    let response = agent
        .prompt("Remind me to water the plants, and forget about the tea")
        .max_turns(5)
        .await
        .unwrap();
    assert_eq!(response.output(), "Done: the plants are on your list.");

    // The model saw exactly the view's tools, on every turn.
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    for request in &requests {
        let sent: Vec<String> = request
            .tools
            .iter()
            .map(|tool| tool.name.to_string())
            .collect();
        assert_eq!(sent, ["create_tasks", "delete_memories", "get_tasks"]);
    }

    // The task exists: the tool ran against the application's state.
    let task = json!({"id": 1, "title": "Water the plants", "priority": "normal", "done": false});
    let stored = toolkit::registry().call("get_tasks", "{}", &ctx).await;
    assert_eq!(stored.result(), Some(&json!([task])));
    // The approve tool did not run: the memory is still there, and the model was
    // told why.
    let memory = toolkit::registry()
        .call("get_memories", r#"{"id": 1}"#, &ctx)
        .await;
    assert_eq!(
        memory
            .result()
            .map(|memories| memories[0]["content"].clone()),
        Some(json!("Ada likes tea"))
    );
    let last = serde_json::to_value(&requests[2]).unwrap();
    assert_eq!(
        last.pointer("/chat_history/4/content/0"),
        Some(&json!({
            "type": "toolresult",
            "call": {"provider": "call_2"},
            "name": "delete_memories",
            "content": [{"type": "json", "value": {"error": {
                "kind": "approval_required",
                "tool": "delete_memories",
                "message": "`delete_memories` needs a human's approval, and this caller cannot ask for one; it did not run",
            }}}],
            "is_error": true,
        }))
    );
    // And the first tool's result, as the model read it on the second turn.
    assert_eq!(
        last.pointer("/chat_history/2/content/0/content/0/value"),
        Some(&json!([task]))
    );
}

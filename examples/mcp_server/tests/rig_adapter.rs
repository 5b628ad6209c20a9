//! The rig adapter: a scripted rig completion model asks for a tool, and the
//! call runs through the view. rig-core 0.44 keeps its agent loop in a companion
//! crate (`rig-agent`), so this test is that loop: send the view's tool
//! definitions, run the tool calls the model answers with, send the results.

use std::sync::Arc;

use example_assistant::AssistantState;
use rig_core::completion::CompletionRequest;
use rig_core::test_utils::{MockCompletionModel, MockTurn};
use serde_json::json;
use toolkit::{Context, Scope, Tier};

#[tokio::test]
async fn a_scripted_model_calls_a_view_tool_and_it_runs() {
    let state = AssistantState::new();
    let view = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .allow(["@tasks"])
        .permit(|tool| tool.tier == Tier::Auto)
        .build()
        .unwrap();
    let tools = toolkit::rig::tools(
        &Arc::new(view),
        &Arc::new(Context::new().with(state.clone())),
    );
    let names: Vec<String> = tools.iter().map(|tool| tool.name().to_string()).collect();
    assert_eq!(names, ["create_tasks", "get_tasks", "update_tasks"]);

    let model = MockCompletionModel::from_turns([
        MockTurn::tool_call(
            "call_1",
            "create_tasks",
            json!({"tasks": [{"title": "Water the plants"}]}),
        ),
        MockTurn::tool_call("call_2", "delete_tasks", json!({"ids": [1]})),
    ]);
    let definitions = tools
        .iter()
        .map(rig_core::tool::DynamicTool::definition)
        .collect();
    let request = CompletionRequest::new("Remind me to water the plants").tools(definitions);
    let response = model.call(request).await.unwrap();
    let calls: Vec<_> = response.tool_calls().cloned().collect();
    assert_eq!(calls.len(), 1);
    let call = &calls[0];
    let tool = tools
        .iter()
        .find(|tool| *tool.name() == call.function.name)
        .unwrap();
    let output = tool
        .execute(serde_json::Value::Object(call.function.arguments.clone()))
        .await
        .unwrap();
    let task = json!({"id": 1, "title": "Water the plants", "priority": "normal", "done": false});
    assert_eq!(output, rig_core::tool::ToolOutput::json(json!([task])));
    // The tool ran against the application's state.
    let ctx = Context::new().with(state);
    let stored = toolkit::registry().call("get_tasks", "{}", &ctx).await;
    assert_eq!(stored.result(), Some(&json!([task])));
    // The model saw exactly the view's tools.
    let sent = model.requests();
    let sent: Vec<String> = sent[0]
        .tools
        .iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert_eq!(sent, ["create_tasks", "get_tasks", "update_tasks"]);

    // A tool outside the view is not there to run: the model's next call names
    // `delete_tasks`, which the adapter does not offer.
    let next = model
        .call(CompletionRequest::new("Now delete it"))
        .await
        .unwrap();
    let hidden = next.tool_calls().next().unwrap();
    assert!(
        tools
            .iter()
            .all(|tool| *tool.name() != hidden.function.name)
    );
}

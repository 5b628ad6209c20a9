//! What the MCP tests share: the views each client kind must see, and reading
//! results.

#![allow(dead_code, unreachable_pub)] // each test file uses part of it

pub mod conformance;
mod script;

#[allow(unused_imports)] // only the script-driven tests use it
pub use script::run_script;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Value, json};

/// The `external` client's view: the `tasks` group's `auto` tools, in name order.
pub const EXTERNAL_TOOLS: [&str; 3] = ["create_tasks", "get_tasks", "update_tasks"];

/// The `copilot` client's view: the shared tools that need no human approval.
pub const COPILOT_TOOLS: [&str; 20] = [
    "create_memories",
    "create_reminders",
    "create_schedules",
    "create_tasks",
    "delete_reminders",
    "delete_schedules",
    "delete_tasks",
    "get_context",
    "get_entities",
    "get_gmail",
    "get_memories",
    "get_reminders",
    "get_schedules",
    "get_tasks",
    "link_memories",
    "search_entities",
    "search_gmail",
    "search_memories",
    "update_memories",
    "update_tasks",
];

/// How a 2026-07-28 client connects: it discovers the revision, with no
/// session.
pub fn stateless() -> rmcp::ClientLifecycleMode {
    rmcp::ClientLifecycleMode::Discover {
        preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
    }
}

/// A `tools/call` request.
pub fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(name.to_owned());
    if let Value::Object(arguments) = arguments {
        params = params.with_arguments(arguments);
    }
    params
}

/// The text of a result's only content block.
pub fn text(result: &CallToolResult) -> &str {
    assert_eq!(result.content.len(), 1, "{result:?}");
    &result.content[0].as_text().expect("a text block").text
}

/// The task a fresh state stores first, as `create_tasks` answers it.
pub fn first_task() -> Value {
    json!([{"id": 1, "title": "Water the plants", "priority": "normal", "done": false}])
}

/// The message the registry itself gives for this call: what the model must read
/// over MCP too, word for word.
pub async fn direct_message(name: &str, arguments: &Value) -> String {
    let ctx = toolkit::Context::new().with(example_assistant::AssistantState::new());
    let response = toolkit::registry().call_value(name, arguments, &ctx).await;
    response
        .error()
        .expect("the direct call fails too")
        .to_string()
}

/// A stateless (2026-07-28) `tools/list` request for `path`, sent as to `host`
/// with `token` as its bearer token: for checks below rmcp's client, like the
/// `Host` check.
pub fn list_request(path: &str, host: &str, token: &str) -> http::Request<axum::body::Body> {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }},
    });
    http::Request::post(path)
        .header("host", host)
        .header("authorization", format!("Bearer {token}"))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .body(axum::body::Body::from(body.to_string()))
        .expect("a well-formed request")
}

//! The assistant's 23 tools (use case A), rendered as a request carries them, read
//! into real client models: `async-openai`'s request types for the OpenAI dialects
//! and rmcp's `tools/list` result for MCP. Each tool is written back and compared,
//! so a field the client would drop, or a value of the wrong type, fails here.
//! (`toolkit/tests/conformance/clients.rs` does the same for every argument shape.)

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use toolkit::{Dialect, Registry, Tool};

// Nothing else in this test names the crate, and the linker would drop its tools.
toolkit::link_tools!(example_assistant);

fn assistant() -> Registry {
    let tools: Vec<&'static Tool> = toolkit::registry()
        .iter()
        .map(toolkit::registry::RegisteredTool::tool)
        .filter(|tool| tool.location.module_path.starts_with("example_assistant"))
        .collect();
    assert_eq!(tools.len(), 23);
    Registry::new(tools).expect("unique names")
}

/// Reads the whole set into `Vec<T>` and each tool back out; lists what changed.
fn round_trip<T: DeserializeOwned + Serialize>(dialect: Dialect) -> Vec<String> {
    let rendered = assistant().render(dialect);
    assert!(rendered.is_complete(), "{:?}", rendered.skipped);
    let typed: Vec<T> = match serde_json::from_str(&rendered.json) {
        Ok(typed) => typed,
        Err(error) => return vec![format!("{dialect:?}: not accepted: {error}")],
    };
    let written = serde_json::to_value(&typed).expect("serializes");
    let Value::Array(ours) = rendered.to_value() else {
        unreachable!("a set is an array")
    };
    let Value::Array(theirs) = written else {
        unreachable!("a Vec is an array")
    };
    ours.iter()
        .zip(&theirs)
        .filter(|(ours, theirs)| ours != theirs)
        .map(|(ours, theirs)| format!("{dialect:?}: rendered {ours}\n  written {theirs}"))
        .collect()
}

#[test]
fn openai_tools_are_async_openai_request_tools() {
    use async_openai::types::{chat::ChatCompletionTools, responses::Tool as ResponsesTool};
    let mut problems = Vec::new();
    for dialect in [Dialect::OpenAiChat, Dialect::OpenAiChatStrict] {
        problems.extend(round_trip::<ChatCompletionTools>(dialect));
    }
    for dialect in [Dialect::OpenAiResponses, Dialect::OpenAiResponsesStrict] {
        problems.extend(round_trip::<ResponsesTool>(dialect));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn mcp_tools_list_is_an_rmcp_list_tools_result() {
    let problems = round_trip::<rmcp::model::Tool>(Dialect::Mcp);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let rendered = assistant().render(Dialect::Mcp);
    let list: rmcp::model::ListToolsResult =
        serde_json::from_str(&format!(r#"{{"tools":{}}}"#, rendered.json)).expect("tools/list");
    assert_eq!(list.tools.len(), 23);
    assert!(list.tools.iter().all(|tool| tool.annotations.is_some()));
}

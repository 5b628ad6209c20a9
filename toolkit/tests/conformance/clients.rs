//! Wire shapes proved against real client models, not only our own checker: every
//! corpus tool rendered for OpenAI is read into `async-openai`'s request types, and
//! every MCP tool into rmcp's `Tool` model. Each is written back and compared with
//! what we rendered, so a field the client does not know (and would silently
//! drop), or a value of the wrong JSON type, fails the test.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use toolkit::{Dialect, registry::RegisteredTool};

use super::corpus;

/// Reads `rendered` into `T`, writes it back, and says how it differs, if it does.
fn round_trip<T: DeserializeOwned + Serialize>(rendered: &Value) -> Result<(), String> {
    let typed: T = serde_json::from_value(rendered.clone())
        .map_err(|error| format!("not accepted: {error}"))?;
    let written = serde_json::to_value(&typed).map_err(|error| error.to_string())?;
    if &written == rendered {
        Ok(())
    } else {
        Err(format!(
            "changed by the client model:\n  rendered {rendered}\n  written  {written}"
        ))
    }
}

/// Every corpus tool `dialect` renders, each through `check`; problems collected.
fn every_tool(dialect: Dialect, check: fn(&Value) -> Result<(), String>) -> Vec<String> {
    let registry = corpus::registry();
    let mut problems = Vec::new();
    let mut rendered = 0;
    for tool in &registry {
        let Ok(value) = tool.render(dialect) else {
            continue;
        };
        rendered += 1;
        if let Err(problem) = check(&value) {
            problems.push(format!("{} × {dialect:?}: {problem}", tool.name));
        }
    }
    assert!(rendered > 20, "{dialect:?}: only {rendered} tools rendered");
    problems
}

#[test]
fn openai_chat_tools_are_async_openai_chat_completion_tools() {
    use async_openai::types::chat::ChatCompletionTools;
    let mut problems = Vec::new();
    for dialect in [Dialect::OpenAiChat, Dialect::OpenAiChatStrict] {
        problems.extend(every_tool(dialect, |value| {
            round_trip::<ChatCompletionTools>(value)?;
            match serde_json::from_value(value.clone()) {
                Ok(ChatCompletionTools::Function(_)) => Ok(()),
                _ => Err("not a function tool".to_owned()),
            }
        }));
        // A whole set, as the `tools` of a request.
        let set = corpus::registry().render(dialect);
        if let Err(error) = serde_json::from_str::<Vec<ChatCompletionTools>>(&set.json) {
            problems.push(format!("{dialect:?}: the set is not accepted: {error}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn openai_chat_strict_tools_say_strict() {
    use async_openai::types::chat::ChatCompletionTools;
    let registry = corpus::registry();
    // Lenient tools leave `strict` out: Chat Completions reads that as false.
    for (dialect, strict) in [
        (Dialect::OpenAiChat, None),
        (Dialect::OpenAiChatStrict, Some(true)),
    ] {
        for tool in registry.iter().filter_map(|tool| tool.render(dialect).ok()) {
            let Ok(ChatCompletionTools::Function(function)) = serde_json::from_value(tool) else {
                panic!("{dialect:?}: not a function tool");
            };
            assert_eq!(function.function.strict, strict, "{dialect:?}");
            assert!(function.function.parameters.is_some(), "{dialect:?}");
        }
    }
}

#[test]
fn openai_responses_tools_are_async_openai_response_tools() {
    use async_openai::types::responses::Tool;
    let mut problems = Vec::new();
    for dialect in [Dialect::OpenAiResponses, Dialect::OpenAiResponsesStrict] {
        problems.extend(every_tool(dialect, |value| {
            round_trip::<Tool>(value)?;
            match serde_json::from_value(value.clone()) {
                // Responses defaults `strict` to true: both dialects say it.
                Ok(Tool::Function(function)) if function.strict.is_some() => Ok(()),
                Ok(Tool::Function(_)) => Err("no `strict`".to_owned()),
                _ => Err("not a function tool".to_owned()),
            }
        }));
        let set = corpus::registry().render(dialect);
        if let Err(error) = serde_json::from_str::<Vec<Tool>>(&set.json) {
            problems.push(format!("{dialect:?}: the set is not accepted: {error}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn mcp_tools_are_rmcp_tools() {
    let mut problems = every_tool(Dialect::Mcp, round_trip::<rmcp::model::Tool>);
    // The whole `tools/list` result, as an MCP client reads it.
    let set = corpus::registry().render(Dialect::Mcp);
    let result = format!(r#"{{"tools":{}}}"#, set.json);
    match serde_json::from_str::<rmcp::model::ListToolsResult>(&result) {
        Ok(list) => {
            let names: Vec<&str> = list.tools.iter().map(|tool| tool.name.as_ref()).collect();
            let registry = corpus::registry();
            let expected: Vec<&str> = registry
                .iter()
                .map(|tool: &RegisteredTool| tool.name)
                .collect();
            if names != expected {
                problems.push(format!("tools/list has {names:?}, expected {expected:?}"));
            }
        }
        Err(error) => problems.push(format!("tools/list is not accepted: {error}")),
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn mcp_annotations_read_as_rmcp_reads_them() {
    let registry = corpus::registry();
    let mut read_only_tools = 0;
    for tool in &registry {
        let rendered = tool
            .render(Dialect::Mcp)
            .expect("MCP renders every corpus tool");
        let model: rmcp::model::Tool = serde_json::from_value(rendered).expect("an rmcp Tool");
        let annotations = model.annotations.expect("annotations");
        let read_only = matches!(tool.verb(), "get" | "search");
        assert_eq!(annotations.read_only_hint, Some(read_only), "{}", tool.name);
        read_only_tools += usize::from(read_only);
        assert_eq!(model.name, tool.name);
        assert_eq!(model.description.as_deref(), Some(tool.description));
    }
    assert!(read_only_tools > 0);
}

//! Rendering tools for a model provider.

use serde_json::{Value, json};

use crate::RegisteredTool;

/// A model provider's tool format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI Chat Completions function tools:
    /// `{"type": "function", "function": {name, description, parameters, strict}}`.
    OpenAiChat,
    /// OpenAI Chat Completions in strict mode (`strict: true`).
    OpenAiChatStrict,
    /// OpenAI Responses API: flat `{"type": "function", name, description, parameters, strict}`.
    OpenAiResponses,
    /// OpenAI Responses API in strict mode.
    OpenAiResponsesStrict,
    /// Anthropic Messages tools: `{name, description, input_schema}`.
    Anthropic,
    /// Anthropic tools with `strict: true`.
    AnthropicStrict,
    /// Gemini `functionDeclarations` with `parameters` (an OpenAPI 3.0 subset).
    GeminiParameters,
    /// Gemini `functionDeclarations` with `parametersJsonSchema`.
    GeminiJsonSchema,
    /// MCP `tools/list` entries.
    Mcp,
}

/// Renders one tool in `dialect`.
#[must_use]
pub fn render_tool(tool: &RegisteredTool, dialect: Dialect) -> Value {
    match dialect {
        Dialect::Anthropic => json!({
            "name": tool.name,
            "description": tool.description,
            "input_schema": tool.schema(),
        }),
        _ => json!({
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.schema(),
            }
        }),
    }
}

/// Renders tools in `dialect` as the JSON array a request carries.
pub fn render<'a>(tools: impl IntoIterator<Item = &'a RegisteredTool>, dialect: Dialect) -> Value {
    Value::Array(tools.into_iter().map(|tool| render_tool(tool, dialect)).collect())
}

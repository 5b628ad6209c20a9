//! Rendering tools for each model provider, so each accepts them the first time.
//!
//! Every dialect starts from the canonical schema ([`crate::schema`]) and applies
//! only the rewrites its provider needs. A shape a dialect cannot express (a map in
//! OpenAI strict mode, recursion in Anthropic strict mode or Gemini `parameters`,
//! an untyped `serde_json::Value` where a type is required) is never sent silently
//! broken: rendering that tool in that dialect returns a [`RenderError`] naming the
//! tool, the field and the reason, and the lenient dialects still work.

mod anthropic;
mod canonical;
mod gemini;
mod mcp;
mod openai;

use std::fmt;

use serde_json::Value;

use crate::{RegisteredTool, Tool};
use canonical::{
    Fail, give_arrays_items, inline_single_use_definitions, replace_bool_schemas, walk_all,
};

/// A model provider's tool format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI Chat Completions function tools:
    /// `{"type": "function", "function": {name, description, parameters, strict: false}}`.
    OpenAiChat,
    /// OpenAI Chat Completions in strict mode (`strict: true`): every property
    /// required, optional ones written as a union with `null`, every object closed.
    OpenAiChatStrict,
    /// OpenAI Responses API: flat `{"type": "function", name, description, parameters, strict: false}`.
    OpenAiResponses,
    /// OpenAI Responses API in strict mode.
    OpenAiResponsesStrict,
    /// Anthropic Messages tools: `{name, description, input_schema}`.
    Anthropic,
    /// Anthropic tools with `strict: true`: closed objects, no recursion, no
    /// numeric or length bounds.
    AnthropicStrict,
    /// Gemini function declarations with `parameters`, an OpenAPI 3.0 subset:
    /// `$defs` inlined, `nullable` instead of type unions.
    GeminiParameters,
    /// Gemini function declarations with `parametersJsonSchema` (standard JSON Schema).
    GeminiJsonSchema,
    /// MCP `tools/list` entries: `{name, title, description, inputSchema, outputSchema, annotations, _meta}`.
    Mcp,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 9] = [
        Dialect::OpenAiChat,
        Dialect::OpenAiChatStrict,
        Dialect::OpenAiResponses,
        Dialect::OpenAiResponsesStrict,
        Dialect::Anthropic,
        Dialect::AnthropicStrict,
        Dialect::GeminiParameters,
        Dialect::GeminiJsonSchema,
        Dialect::Mcp,
    ];

    /// A stable lowercase name, for file names and logs (`openai_chat_strict`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Dialect::OpenAiChat => "openai_chat",
            Dialect::OpenAiChatStrict => "openai_chat_strict",
            Dialect::OpenAiResponses => "openai_responses",
            Dialect::OpenAiResponsesStrict => "openai_responses_strict",
            Dialect::Anthropic => "anthropic",
            Dialect::AnthropicStrict => "anthropic_strict",
            Dialect::GeminiParameters => "gemini_parameters",
            Dialect::GeminiJsonSchema => "gemini_json_schema",
            Dialect::Mcp => "mcp",
        }
    }

    pub(crate) const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A tool whose arguments a dialect cannot express.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderError {
    /// The tool's name.
    pub tool: String,
    /// The dialect that cannot express it.
    pub dialect: Dialect,
    /// Where in the arguments, like `filters.tags` or `nodes[]`; `.` for the root,
    /// `$defs.Name.field` inside a shared definition.
    pub path: String,
    /// Why, and what to change.
    pub reason: String,
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool `{}` cannot be rendered for {}: at `{}`: {}",
            self.tool, self.dialect, self.path, self.reason
        )
    }
}

impl std::error::Error for RenderError {}

/// Renders one tool in `dialect` (cached: built once per tool and dialect).
pub fn render_tool(tool: &RegisteredTool, dialect: Dialect) -> Result<Value, RenderError> {
    tool.render(dialect)
}

/// Renders tools in `dialect` as the JSON array a request carries, or the first
/// tool that the dialect cannot express.
pub fn render<'a>(
    tools: impl IntoIterator<Item = &'a RegisteredTool>,
    dialect: Dialect,
) -> Result<Value, RenderError> {
    tools
        .into_iter()
        .map(|tool| tool.render(dialect))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

/// Builds one tool's rendering (uncached).
pub(crate) fn build(
    tool: &Tool,
    canonical: &Value,
    dialect: Dialect,
) -> Result<Value, RenderError> {
    let error = |(path, reason): (String, String)| RenderError {
        tool: tool.name.to_owned(),
        dialect,
        path: if path.is_empty() {
            ".".to_owned()
        } else {
            path
        },
        reason,
    };
    let schema = dialect_schema(canonical, dialect).map_err(error)?;
    Ok(match dialect {
        Dialect::OpenAiChat
        | Dialect::OpenAiChatStrict
        | Dialect::OpenAiResponses
        | Dialect::OpenAiResponsesStrict => openai::tool(tool, schema, dialect),
        Dialect::Anthropic | Dialect::AnthropicStrict => anthropic::tool(tool, schema, dialect),
        Dialect::GeminiParameters | Dialect::GeminiJsonSchema => {
            gemini::declaration(tool, schema, dialect)
        }
        Dialect::Mcp => mcp::tool(tool, schema),
    })
}

fn dialect_schema(canonical: &Value, dialect: Dialect) -> Result<Value, Fail> {
    let mut schema = canonical.clone();
    let Value::Object(root) = &mut schema else {
        return Err((
            String::new(),
            "the arguments schema is not an object".to_owned(),
        ));
    };
    replace_bool_schemas(root);
    if dialect == Dialect::GeminiParameters {
        // Inlines every definition itself, after ruling out recursion.
        gemini::parameters(root)?;
        return Ok(schema);
    }
    inline_single_use_definitions(root);
    // Tuples (`prefixItems`) get `items` too: OpenAI requires it everywhere, and
    // with the length bounds it changes nothing elsewhere.
    walk_all(root, &mut |node, _| {
        give_arrays_items(node);
        Ok(())
    })?;
    match dialect {
        Dialect::OpenAiChatStrict | Dialect::OpenAiResponsesStrict => openai::strict(root)?,
        Dialect::AnthropicStrict => anthropic::strict(root)?,
        // A `const` says its type; the lenient dialects need no `type` beside it
        // (a tag of an internally tagged enum is the common case).
        _ => walk_all(root, &mut |node, _| {
            if node.contains_key("const") && node.get("type").is_some_and(Value::is_string) {
                node.remove("type");
            }
            Ok(())
        })?,
    }
    Ok(schema)
}

#[cfg(test)]
mod tests;

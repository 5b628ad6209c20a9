//! [`Dialect`]: the provider formats a tool can be rendered in. A leaf, so each
//! dialect's own module names it without using the module that renders sets.

use std::fmt;

/// A model provider's tool format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI Chat Completions function tools:
    /// `{"type": "function", "function": {name, description, parameters}}` (a
    /// missing `strict` is false there).
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
    /// numeric or length bounds in the schema (each is said in the field's
    /// description instead, "Must be at least 1."; dispatch still refuses a value
    /// outside it).
    AnthropicStrict,
    /// Gemini function declarations with `parameters`, an OpenAPI 3.0 subset:
    /// `$defs` inlined, `nullable` instead of type unions, string `enum`s only
    /// (other constant values are said in the description).
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

    /// Whether this dialect is handed a tool's arguments schema as its author
    /// wrote it, when the tool asks for that
    /// ([`RuntimeToolBuilder::mcp_schema_as_written`](crate::runtime::RuntimeToolBuilder::mcp_schema_as_written)):
    /// MCP only. MCP (2025-11-25 and 2026-07-28) makes JSON Schema 2020-12 the
    /// dialect of `inputSchema`, so an MCP client reads every keyword; each model
    /// provider takes its own subset, and gets the cleaned schema
    /// ([`crate::schema`]) made fit for it.
    #[must_use]
    pub const fn keeps_schema_as_written(self) -> bool {
        matches!(self, Dialect::Mcp)
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

//! Provider-native tool search: instead of leaving routed tools out, send them
//! deferred and let the provider search them, or restrict which tools the model may
//! call without changing the list (the prompt cache stays warm).
//!
//! [`View::render_routed`](crate::View::render_routed) with
//! [`Delivery::ProviderSearch`](super::Delivery::ProviderSearch) renders a view this
//! way directly. These functions are the pieces: they take tools already rendered
//! for the provider (the JSON objects
//! of `toolkit::render::render(tools, dialect)`), always and routed apart (see
//! [`View::split`](crate::View::split)), and check each provider's invariants,
//! returning a [`ProviderError`] rather than a request the provider would reject.
//!
//! ```
//! use serde_json::json;
//! use toolkit::route::provider::{self, AnthropicSearch};
//!
//! let always = vec![json!({"name": "get_clock", "description": "Get the time.", "input_schema": {"type": "object"}})];
//! let routed = vec![json!({"name": "delete_notes", "description": "Delete notes.", "input_schema": {"type": "object"}})];
//! let tools = provider::anthropic_deferred(always, routed, AnthropicSearch::Bm25)?;
//! assert_eq!(tools[1]["defer_loading"], json!(true));
//! assert_eq!(tools[2], json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}));
//! # Ok::<(), toolkit::route::provider::ProviderError>(())
//! ```
//!
//! When to use which: the local router (a [`Router`](super::Router)) works with every
//! provider and sends the fewest tokens, but the tool list changes per message;
//! provider search keeps one list (cache-friendly) and lets the model search when
//! it needs more, at the price of a search round trip; the allowed-tools
//! restriction keeps the list and its cache while limiting what may be called this
//! turn (pair it with a router's picks).

use std::fmt;

use serde_json::{Value, json};

use crate::render::{Dialect, RenderError};

/// At most this many tools in one OpenAI request.
pub const OPENAI_MAX_TOOLS: usize = 128;

/// At most this many function declarations in one Gemini request.
pub const GEMINI_MAX_FUNCTIONS: usize = 512;

/// Which Anthropic search tool finds the deferred tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnthropicSearch {
    /// `tool_search_tool_bm25_20251119`: the model searches with words (`query`).
    Bm25,
    /// `tool_search_tool_regex_20251119`: the model searches with a pattern.
    Regex,
}

/// A request a provider would reject, found before sending it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProviderError {
    /// A rendered tool is not a JSON object, or has no `name`.
    NotATool {
        /// The offending value, as JSON.
        tool: String,
    },
    /// Anthropic: a deferred tool carries `cache_control`.
    DeferredWithCacheControl {
        /// The tool's name.
        name: String,
    },
    /// More tools than the provider accepts.
    TooManyTools {
        /// How many there are.
        count: usize,
        /// The provider's limit.
        limit: usize,
    },
    /// OpenAI: a namespace without tools, or a tool search with nothing to find.
    NothingDeferred,
    /// A name to allow is not among the tools sent.
    UnknownAllowed {
        /// The name.
        name: String,
    },
    /// Provider search asked of a dialect whose provider has none (OpenAI Chat
    /// Completions, Gemini, MCP).
    Unsupported {
        /// The dialect.
        dialect: Dialect,
    },
    /// The search tool delivery on a view with routed tools but no `always` search
    /// tool: the model could never reach them.
    NoSearchTool,
    /// A tool of the request the dialect cannot express.
    Render(RenderError),
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProviderError::NotATool { tool } => {
                write!(
                    f,
                    "a rendered tool must be a JSON object with a `name`, found {tool}"
                )
            }
            ProviderError::DeferredWithCacheControl { name } => write!(
                f,
                "deferred tool `{name}` carries `cache_control`, which Anthropic rejects on deferred tools"
            ),
            ProviderError::TooManyTools { count, limit } => {
                write!(
                    f,
                    "{count} tools in one request; the provider accepts at most {limit}"
                )
            }
            ProviderError::NothingDeferred => write!(
                f,
                "a tool search needs at least one deferred tool, and a deferred tool needs the search tool"
            ),
            ProviderError::UnknownAllowed { name } => {
                write!(f, "`{name}` is allowed but not among the tools sent")
            }
            ProviderError::Unsupported { dialect } => write!(
                f,
                "{dialect} has no provider tool search; deliver routed tools with a router or the search tool"
            ),
            ProviderError::NoSearchTool => f.write_str(
                "the view has routed tools but no always search tool to find them; add `toolkit::route::SEARCH_TOOLS` (or a `search_tool`) to the registry and the view",
            ),
            ProviderError::Render(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for ProviderError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProviderError::Render(error) => Some(error),
            _ => None,
        }
    }
}

fn name_of(tool: &Value) -> Result<&str, ProviderError> {
    tool.get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| ProviderError::NotATool {
            tool: tool.to_string(),
        })
}

fn defer(mut tool: Value) -> Result<Value, ProviderError> {
    let name = name_of(&tool)?.to_owned();
    let object = tool
        .as_object_mut()
        .ok_or(ProviderError::NotATool { tool: name.clone() })?;
    if object.contains_key("cache_control") {
        return Err(ProviderError::DeferredWithCacheControl { name });
    }
    object.insert("defer_loading".to_owned(), Value::Bool(true));
    Ok(tool)
}

/// Anthropic Messages `tools`: the always tools as they are, the routed ones with
/// `"defer_loading": true`, then the search tool. With no routed tools, the always
/// tools alone (no search tool).
pub fn anthropic_deferred(
    always: Vec<Value>,
    routed: Vec<Value>,
    search: AnthropicSearch,
) -> Result<Vec<Value>, ProviderError> {
    for tool in &always {
        name_of(tool)?;
    }
    let deferred = routed
        .into_iter()
        .map(defer)
        .collect::<Result<Vec<_>, _>>()?;
    let mut tools = always;
    if !deferred.is_empty() {
        tools.extend(deferred);
        tools.push(match search {
            AnthropicSearch::Bm25 => {
                json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
            }
            AnthropicSearch::Regex => {
                json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
            }
        });
    }
    Ok(tools)
}

/// OpenAI Responses `tools`: the always functions as they are, the routed ones with
/// `"defer_loading": true`, then `{"type": "tool_search"}`. With no routed tools,
/// the always tools alone. At most [`OPENAI_MAX_TOOLS`] tools.
pub fn openai_deferred(
    always: Vec<Value>,
    routed: Vec<Value>,
) -> Result<Vec<Value>, ProviderError> {
    for tool in &always {
        name_of(tool)?;
    }
    let deferred = routed
        .into_iter()
        .map(defer)
        .collect::<Result<Vec<_>, _>>()?;
    let mut tools = always;
    if !deferred.is_empty() {
        tools.extend(deferred);
        tools.push(json!({"type": "tool_search"}));
    }
    if tools.len() > OPENAI_MAX_TOOLS {
        return Err(ProviderError::TooManyTools {
            count: tools.len(),
            limit: OPENAI_MAX_TOOLS,
        });
    }
    Ok(tools)
}

/// An OpenAI Responses namespace grouping deferred functions (a tool group the
/// search can load at once): `{"type": "namespace", name, description, tools}`.
pub fn openai_namespace(
    name: &str,
    description: &str,
    routed: Vec<Value>,
) -> Result<Value, ProviderError> {
    if routed.is_empty() {
        return Err(ProviderError::NothingDeferred);
    }
    let tools = routed
        .into_iter()
        .map(defer)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(json!({"type": "namespace", "name": name, "description": description, "tools": tools}))
}

/// OpenAI `tool_choice` restricting this turn to `names` without changing the
/// tool list: `{"type": "allowed_tools", "mode": "auto", "tools": [...]}`. Every
/// name must be among `sent` (the rendered tools of the request).
pub fn openai_allowed_tools<'a>(
    sent: &[Value],
    names: impl IntoIterator<Item = &'a str>,
) -> Result<Value, ProviderError> {
    let tools = checked(sent, names)?
        .into_iter()
        .map(|name| json!({"type": "function", "name": name}))
        .collect::<Vec<_>>();
    Ok(json!({"type": "allowed_tools", "mode": "auto", "tools": tools}))
}

/// Gemini `tool_config` restricting calls to `names` without changing the
/// declarations: `{"function_calling_config": {"mode": "ANY",
/// "allowed_function_names": [...]}}`. Gemini takes `allowed_function_names` only
/// with mode `ANY`, so the model must call one of them this turn. At most
/// [`GEMINI_MAX_FUNCTIONS`] declarations may be sent.
pub fn gemini_allowed_function_names<'a>(
    sent: &[Value],
    names: impl IntoIterator<Item = &'a str>,
) -> Result<Value, ProviderError> {
    if sent.len() > GEMINI_MAX_FUNCTIONS {
        return Err(ProviderError::TooManyTools {
            count: sent.len(),
            limit: GEMINI_MAX_FUNCTIONS,
        });
    }
    let names = checked(sent, names)?;
    Ok(json!({"function_calling_config": {"mode": "ANY", "allowed_function_names": names}}))
}

/// The names, each checked to be among the sent tools (by `name`, or inside an
/// OpenAI `function` wrapper).
fn checked<'a>(
    sent: &[Value],
    names: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<&'a str>, ProviderError> {
    let known = |name: &str| {
        sent.iter().any(|tool| {
            tool.get("name").and_then(Value::as_str) == Some(name)
                || tool.pointer("/function/name").and_then(Value::as_str) == Some(name)
        })
    };
    names
        .into_iter()
        .map(|name| {
            if known(name) {
                Ok(name)
            } else {
                Err(ProviderError::UnknownAllowed {
                    name: name.to_owned(),
                })
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str) -> Value {
        json!({"name": name, "description": "A tool.", "input_schema": {"type": "object"}})
    }

    #[test]
    fn anthropic_defers_routed_tools_behind_the_search_tool() {
        let tools = anthropic_deferred(
            vec![tool("get_clock")],
            vec![tool("delete_notes")],
            AnthropicSearch::Regex,
        )
        .expect("valid");
        assert_eq!(
            Value::Array(tools),
            json!([
                {"name": "get_clock", "description": "A tool.", "input_schema": {"type": "object"}},
                {"name": "delete_notes", "description": "A tool.", "input_schema": {"type": "object"}, "defer_loading": true},
                {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}
            ])
        );
        assert_eq!(
            anthropic_deferred(vec![tool("get_clock")], vec![], AnthropicSearch::Bm25),
            Ok(vec![tool("get_clock")])
        );
        let mut cached = tool("delete_notes");
        cached["cache_control"] = json!({"type": "ephemeral"});
        let error = anthropic_deferred(vec![], vec![cached], AnthropicSearch::Bm25).unwrap_err();
        assert_eq!(
            error,
            ProviderError::DeferredWithCacheControl {
                name: "delete_notes".into()
            }
        );
        assert_eq!(
            error.to_string(),
            "deferred tool `delete_notes` carries `cache_control`, which Anthropic rejects on deferred tools"
        );
        assert_eq!(
            anthropic_deferred(vec![json!(1)], vec![], AnthropicSearch::Bm25),
            Err(ProviderError::NotATool { tool: "1".into() })
        );
    }

    fn function(name: &str) -> Value {
        json!({"type": "function", "name": name, "description": "A tool.", "parameters": {"type": "object"}, "strict": false})
    }

    #[test]
    fn openai_defers_routed_functions_and_guards_its_limits() {
        let tools = openai_deferred(vec![function("get_clock")], vec![function("delete_notes")])
            .expect("valid");
        assert_eq!(tools.len(), 3);
        assert_eq!(tools[1]["defer_loading"], json!(true));
        assert_eq!(tools[2], json!({"type": "tool_search"}));
        assert_eq!(
            openai_deferred(vec![function("a")], vec![]),
            Ok(vec![function("a")])
        );
        let many: Vec<Value> = (0..128).map(|i| function(&format!("get_{i}"))).collect();
        assert_eq!(
            openai_deferred(vec![], many),
            Err(ProviderError::TooManyTools {
                count: 129,
                limit: 128
            })
        );
        assert_eq!(
            openai_namespace("notes", "Notes.", vec![function("delete_notes")]).expect("valid"),
            json!({"type": "namespace", "name": "notes", "description": "Notes.", "tools": [
                {"type": "function", "name": "delete_notes", "description": "A tool.", "parameters": {"type": "object"}, "strict": false, "defer_loading": true}
            ]})
        );
        assert_eq!(
            openai_namespace("notes", "Notes.", vec![]),
            Err(ProviderError::NothingDeferred)
        );
    }

    #[test]
    fn restrictions_name_only_tools_that_are_sent() {
        let sent = vec![
            function("get_clock"),
            json!({"type": "function", "function": {"name": "delete_notes"}}),
        ];
        assert_eq!(
            openai_allowed_tools(&sent, ["delete_notes"]).expect("known"),
            json!({"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "delete_notes"}]})
        );
        assert_eq!(
            gemini_allowed_function_names(&sent, ["get_clock"]).expect("known"),
            json!({"function_calling_config": {"mode": "ANY", "allowed_function_names": ["get_clock"]}})
        );
        assert_eq!(
            openai_allowed_tools(&sent, ["send_rocket"]),
            Err(ProviderError::UnknownAllowed {
                name: "send_rocket".into()
            })
        );
        let many: Vec<Value> = (0..513).map(|i| tool(&format!("get_{i}"))).collect();
        assert_eq!(
            gemini_allowed_function_names(&many, []),
            Err(ProviderError::TooManyTools {
                count: 513,
                limit: 512
            })
        );
    }
}

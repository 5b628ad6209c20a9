//! A view's tools for one request, with routed tools delivered one of three ways:
//! picked by a local router, searched by the provider, or found by the model through
//! the built-in search tool.

use serde_json::Value;

use super::provider::{
    self, AnthropicSearch, GEMINI_MAX_FUNCTIONS, OPENAI_MAX_TOOLS, ProviderError,
};
use super::{FoundTools, SEARCH_TAG, Selection};
use crate::registry::RegisteredTool;
use crate::render::Dialect;
use crate::view::View;

/// How a request carries a view's routed tools (its `always` tools are always
/// sent, loaded).
#[derive(Clone, Copy, Debug)]
pub enum Delivery<'a> {
    /// A local [`Router`](super::Router) picked them: only the picked routed tools
    /// are sent ([`View::active`]). Every provider; fewest tokens; the tool list
    /// changes per message.
    Router(&'a Selection<'a>),
    /// The provider searches them: every routed tool is sent deferred
    /// (`"defer_loading": true`) beside the provider's search tool. Anthropic (with
    /// this search variant) and OpenAI Responses (which has one search tool, so the
    /// variant is ignored) only. One stable list: the prompt cache stays warm.
    ProviderSearch(AnthropicSearch),
    /// The model searches them with the built-in search tool
    /// ([`SEARCH_TOOLS`](super::SEARCH_TOOLS), an `always` tool the view must
    /// hold): the routed tools this conversation has found are sent
    /// ([`View::active_found`]). Every provider.
    SearchTool(&'a FoundTools),
}

impl View<'_> {
    /// The `tools` of one request in `dialect`: the `always` tools, plus the routed
    /// tools as `delivery` says, each provider's invariants checked. A tool the
    /// dialect cannot express is an error here ([`ProviderError::Render`]): a
    /// request should not silently lose a tool the router picked.
    ///
    /// Refused, rather than sent and rejected:
    /// - provider search in a dialect without it (OpenAI Chat, Gemini, MCP):
    ///   [`ProviderError::Unsupported`];
    /// - on Anthropic, a deferred tool carrying `cache_control`; with no routed tool
    ///   the search tool is left out (it requires a deferred tool);
    /// - on OpenAI, a `tool_search` without a deferred function (left out the same
    ///   way), and more than 128 tools; on Gemini more than 512;
    /// - the search tool delivery on a view with routed tools and no search tool:
    ///   [`ProviderError::NoSearchTool`].
    ///
    /// ```
    /// use serde_json::json;
    /// use toolkit::route::{Delivery, provider::AnthropicSearch};
    /// use toolkit::{Dialect, Registry, Scope, tool};
    ///
    /// /// Get the current time.
    /// #[tool(scope = shared, tier = auto, always)]
    /// async fn get_hour() -> &'static str { "12:00" }
    ///
    /// /// Delete drafts by id.
    /// #[tool(scope = shared, tier = auto)]
    /// async fn delete_drafts(
    ///     /// The drafts' ids.
    ///     ids: Vec<u32>,
    /// ) -> usize { ids.len() }
    ///
    /// let registry = Registry::new([get_hour::definition(), delete_drafts::definition()])?;
    /// let view = registry.view().scopes([Scope::Shared]).build()?;
    /// let tools = view.render_routed(Dialect::Anthropic, Delivery::ProviderSearch(AnthropicSearch::Bm25))?;
    /// let names: Vec<&str> = tools.iter().map(|tool| tool["name"].as_str().unwrap()).collect();
    /// assert_eq!(names, ["get_hour", "delete_drafts", "tool_search_tool_bm25"]);
    /// assert_eq!(tools[1]["defer_loading"], json!(true));
    ///
    /// let refused = view.render_routed(Dialect::GeminiParameters, Delivery::ProviderSearch(AnthropicSearch::Bm25));
    /// assert_eq!(
    ///     refused.unwrap_err().to_string(),
    ///     "gemini_parameters has no provider tool search; deliver routed tools with a router or the search tool"
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn render_routed(
        &self,
        dialect: Dialect,
        delivery: Delivery<'_>,
    ) -> Result<Vec<Value>, ProviderError> {
        let tools = match delivery {
            Delivery::Router(selection) => render_all(&self.active(selection), dialect)?,
            Delivery::SearchTool(found) => {
                let has_search = self.always().any(|tool| tool.tags.contains(&SEARCH_TAG));
                if !has_search && self.routed().next().is_some() {
                    return Err(ProviderError::NoSearchTool);
                }
                render_all(&self.active_found(found), dialect)?
            }
            Delivery::ProviderSearch(search) => {
                let (always, routed) = self.split();
                let always = render_all(&always, dialect)?;
                let routed = render_all(&routed, dialect)?;
                match dialect {
                    Dialect::Anthropic | Dialect::AnthropicStrict => {
                        provider::anthropic_deferred(always, routed, search)?
                    }
                    Dialect::OpenAiResponses | Dialect::OpenAiResponsesStrict => {
                        provider::openai_deferred(always, routed)?
                    }
                    _ => return Err(ProviderError::Unsupported { dialect }),
                }
            }
        };
        let limit = match dialect {
            Dialect::OpenAiChat
            | Dialect::OpenAiChatStrict
            | Dialect::OpenAiResponses
            | Dialect::OpenAiResponsesStrict => Some(OPENAI_MAX_TOOLS),
            Dialect::GeminiParameters | Dialect::GeminiJsonSchema => Some(GEMINI_MAX_FUNCTIONS),
            _ => None,
        };
        match limit {
            Some(limit) if tools.len() > limit => Err(ProviderError::TooManyTools {
                count: tools.len(),
                limit,
            }),
            _ => Ok(tools),
        }
    }
}

fn render_all(tools: &[&RegisteredTool], dialect: Dialect) -> Result<Vec<Value>, ProviderError> {
    tools
        .iter()
        .map(|tool| tool.render(dialect).map_err(ProviderError::Render))
        .collect()
}

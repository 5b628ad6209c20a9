//! The rmcp server handler: `tools/list` and `tools/call` through the caller's grant.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Instant;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    Implementation, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt as _};
use tracing::Instrument as _;

use super::{Access, Caller, Grant};
use crate::{Dialect, RegisteredTool, Response};

/// An rmcp server handler serving, on every request, the tools the application's
/// [`Access`] hook grants that request.
///
/// Cheap to clone (one `Arc`): rmcp's HTTP service makes one per request. Serve it
/// over stdio with [`McpServer::serve_stdio`], over streamable HTTP with
/// [`McpHttp`](super::McpHttp), or over any rmcp transport with
/// [`rmcp::ServiceExt::serve`].
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
}

struct Inner {
    /// The client kind this server answers for (an endpoint's label).
    client: Arc<str>,
    access: Arc<dyn Access>,
    implementation: Implementation,
    /// Each tool's MCP entry, converted once from its cached rendering; keyed by
    /// the address of the tool's static definition.
    entries: RwLock<HashMap<usize, Option<rmcp::model::Tool>>>,
}

impl McpServer {
    /// A server for clients of kind `client` (`internal`, `copilot`, ...) whose
    /// tools and context come from `access`, per request.
    pub fn new(client: impl Into<Arc<str>>, access: impl Access) -> Self {
        Self::with_access(client.into(), Arc::new(access))
    }

    pub(crate) fn with_access(client: Arc<str>, access: Arc<dyn Access>) -> Self {
        McpServer {
            inner: Arc::new(Inner {
                client,
                access,
                implementation: Implementation::new("toolkit", env!("CARGO_PKG_VERSION")),
                entries: RwLock::default(),
            }),
        }
    }

    /// The client kind this server answers for.
    #[must_use]
    pub fn client(&self) -> &str {
        &self.inner.client
    }

    /// Serves one client over this process's stdin and stdout until it
    /// disconnects: what Claude Desktop, Cursor and other local hosts start.
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        let running = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(std::io::Error::other)?;
        running.waiting().await.map_err(std::io::Error::other)?;
        Ok(())
    }

    /// The grant for the request `context` belongs to.
    fn grant(&self, context: &RequestContext<RoleServer>) -> Result<(Grant, bool), ErrorData> {
        let parts = context.extensions.get::<::http::request::Parts>();
        let headers = parts.map(|parts| &parts.headers);
        let bearer = headers.and_then(super::http::bearer_token);
        let caller = Caller {
            client: &self.inner.client,
            bearer,
            headers,
        };
        let grant = self.inner.access.grant(&caller).map_err(|message| {
            tracing::error!(client = %self.inner.client, %message, "the access hook failed");
            ErrorData::internal_error(
                format!("the server could not build the tool list: {message}"),
                None,
            )
        })?;
        Ok((grant, bearer.is_some()))
    }

    /// The MCP `tools/list` entry of `tool`, converted once. `None` when the tool
    /// can't be expressed in the MCP dialect (reported when first met).
    fn entry(&self, tool: &RegisteredTool) -> Option<rmcp::model::Tool> {
        let key = std::ptr::from_ref(tool.tool()) as usize;
        if let Some(entry) = self
            .inner
            .entries
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            return entry.clone();
        }
        let entry = match tool.render(Dialect::Mcp) {
            Ok(value) => serde_json::from_value(value)
                .map_err(|error| {
                    tracing::error!(tool = tool.name, %error, "the MCP rendering does not fit rmcp's tool type");
                })
                .ok(),
            Err(error) => {
                tracing::error!(tool = tool.name, %error, "tool left out of tools/list");
                None
            }
        };
        self.inner
            .entries
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, entry.clone());
        entry
    }
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("client", &self.inner.client)
            .finish_non_exhaustive()
    }
}

/// Whether the request negotiated the stateless 2026-07-28 revision or later,
/// where list results carry caching hints.
fn is_stateless_revision(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// The MCP result of a toolkit response: a result as structured content plus its
/// JSON text; a tool error as `isError: true` with the message the model reads.
fn call_result(response: Response) -> CallToolResult {
    match response {
        Response::Result(value) => CallToolResult::structured(value),
        Response::Error(error) => {
            let mut result = CallToolResult::error(vec![ContentBlock::text(error.to_string())]);
            result.structured_content = Some(Response::Error(error).to_json());
            result
        }
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(self.inner.implementation.clone())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let span = tracing::info_span!("mcp.request", method = "tools/list", client = %self.inner.client, tools = tracing::field::Empty);
        let _entered = span.enter();
        let (grant, credentials) = self.grant(&context)?;
        let tools: Vec<rmcp::model::Tool> = grant
            .tools()
            .tools()
            .filter_map(|tool| self.entry(tool))
            .collect();
        span.record("tools", tools.len());
        let mut result = ListToolsResult::with_all_items(tools);
        if is_stateless_revision(&context) {
            // The list depends on the credentials of the request: a shared cache must
            // not hand one token's list to another.
            result.cache_scope = Some(if credentials {
                CacheScope::Private
            } else {
                CacheScope::Public
            });
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let span = tracing::info_span!(
            "mcp.request",
            method = "tools/call",
            client = %self.inner.client,
            tool = %request.name,
            outcome = tracing::field::Empty,
            duration_us = tracing::field::Empty,
        );
        async {
            let (grant, _) = self.grant(&context)?;
            let arguments = match &request.arguments {
                Some(arguments) => serde_json::to_string(arguments)
                    .map_err(|error| ErrorData::invalid_params(error.to_string(), None))?,
                None => String::new(),
            };
            let started = Instant::now();
            let response = grant
                .tools()
                .call(&request.name, &arguments, grant.context())
                .await;
            let span = tracing::Span::current();
            span.record(
                "outcome",
                response.error().map_or("ok", crate::ToolError::kind),
            );
            span.record(
                "duration_us",
                u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
            );
            Ok(CallToolResponse::Complete(call_result(response)))
        }
        .instrument(span)
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolError;
    use serde_json::json;

    #[test]
    fn a_result_is_structured_content_and_its_text() {
        let result = call_result(Response::Result(json!({"id": 1})));
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            json!({
                "resultType": "complete",
                "content": [{"type": "text", "text": "{\"id\":1}"}],
                "structuredContent": {"id": 1},
                "isError": false,
            })
        );
    }

    #[test]
    fn a_tool_error_is_an_error_result_with_the_models_message() {
        let result = call_result(Response::Error(ToolError::failed("no task with id 7")));
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            json!({
                "resultType": "complete",
                "content": [{"type": "text", "text": "no task with id 7"}],
                "structuredContent": {"error": {"kind": "failed", "message": "no task with id 7"}},
                "isError": true,
            })
        );
    }
}

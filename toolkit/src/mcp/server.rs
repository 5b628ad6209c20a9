//! The rmcp server handler: `tools/list` and `tools/call` through the caller's grant.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Instant;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    ElicitRequest, ElicitRequestParams, Implementation, InputRequest, InputRequests,
    InputRequiredResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    RequestStateCodec, RequestStateError, SealOptions, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt as _};
use tracing::Instrument as _;

use super::{Access, Caller, Grant};
use crate::approval::{Decision, PendingApproval};
use crate::{Dialect, RegisteredTool, Response};

/// The key of the one input request an approval asks the client for.
const APPROVAL_INPUT: &str = "approval";

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
    /// Seals pending approvals into `requestState`; `None`: approvals are returned
    /// as results for the application to resume out of band.
    request_state: Option<Arc<RequestStateCodec>>,
}

impl McpServer {
    /// A server for clients of kind `client` (`internal`, `copilot`, ...) whose
    /// tools and context come from `access`, per request.
    pub fn new(client: impl Into<Arc<str>>, access: impl Access) -> Self {
        Self::with_access(client.into(), Arc::new(access), None)
    }

    pub(crate) fn with_access(
        client: Arc<str>,
        access: Arc<dyn Access>,
        request_state: Option<Arc<RequestStateCodec>>,
    ) -> Self {
        McpServer {
            inner: Arc::new(Inner {
                client,
                access,
                implementation: Implementation::new("toolkit", env!("CARGO_PKG_VERSION")),
                entries: RwLock::default(),
                request_state,
            }),
        }
    }

    /// Takes `approve` calls over MCP: a call that needs a human answers a
    /// 2026-07-28 client that can elicit with an input-required result, asking the
    /// user to accept or decline, and a `requestState` sealed with `key`
    /// (HMAC-SHA256, rmcp's codec) that binds the pending approval to the client
    /// kind, the principal, the tool and the arguments' digest, and expires with
    /// the pending approval. The client's retry with the user's answer signs the
    /// decision and runs the tool once; the approval store refuses a replay, in any
    /// process. Every process behind one endpoint needs the same `key` (at least
    /// 32 bytes) and the same approval key and store.
    ///
    /// Older clients, and clients that can't elicit, get the pending approval as
    /// the call's result (`{"pending_approval": {...}}`) for the application to
    /// resume out of band.
    pub fn approvals(self, key: impl Into<Vec<u8>>) -> Result<Self, RequestStateError> {
        let codec = Arc::new(RequestStateCodec::try_new(key)?);
        Ok(Self::with_access(
            Arc::clone(&self.inner.client),
            Arc::clone(&self.inner.access),
            Some(codec),
        ))
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
            extensions: parts.map(|parts| &parts.extensions),
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
                .map(|mut entry: rmcp::model::Tool| {
                    // The definition's strings live as long as the process (a
                    // `#[tool]`'s, or an interned runtime tool's): borrowed, the
                    // clone every `tools/list` makes copies no text.
                    // Only where the rendering kept them as they are.
                    if entry.name == tool.name {
                        entry.name = std::borrow::Cow::Borrowed(tool.name);
                    }
                    if entry.description.as_deref() == Some(tool.description) {
                        entry.description = Some(std::borrow::Cow::Borrowed(tool.description));
                    }
                    entry
                })
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

impl McpServer {
    /// The input-required result for a call left pending, when the client can
    /// answer one: a 2026-07-28 client that elicits, and a server with a key.
    fn ask_for_approval(
        &self,
        grant: &Grant,
        request: &CallToolRequestParams,
        pending: &PendingApproval,
        context: &RequestContext<RoleServer>,
    ) -> Option<InputRequiredResult> {
        let codec = self.inner.request_state.as_ref()?;
        let elicits = context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.elicitation.is_some());
        if !is_stateless_revision(context) || !elicits {
            return None;
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        let ttl = std::time::Duration::from_secs(pending.expires_at.saturating_sub(now).max(1));
        let bound = self.binding(grant, request);
        let sealed = codec
            .seal_json_with(
                pending,
                &SealOptions::new()
                    .associated_data(bound.as_bytes())
                    .ttl(ttl),
            )
            .map_err(|error| tracing::error!(%error, "could not seal a pending approval"))
            .ok()?;
        let message = format!(
            "Allow `{}` to run with {}? It has not run yet.",
            pending.tool,
            crate::approval::canonical_json(&pending.arguments)
        );
        let schema =
            serde_json::from_value(serde_json::json!({"type": "object", "properties": {}}))
                .map_err(|error| tracing::error!(%error, "could not build the approval form"))
                .ok()?;
        let question = InputRequest::Elicitation(ElicitRequest::new(
            ElicitRequestParams::FormElicitationParams {
                meta: None,
                message,
                requested_schema: schema,
            },
        ));
        let requests = InputRequests::from([(APPROVAL_INPUT.to_owned(), question)]);
        Some(InputRequiredResult::new(Some(requests), Some(sealed)))
    }

    /// What a sealed approval is bound to besides its own signature: this
    /// endpoint's client kind, the view's principal, the tool as called, and the
    /// digest of the arguments, so the state can't be replayed by another caller or
    /// for another call.
    fn binding(&self, grant: &Grant, request: &CallToolRequestParams) -> String {
        let arguments = request
            .arguments
            .clone()
            .map_or_else(|| serde_json::json!({}), serde_json::Value::Object);
        crate::approval::canonical_json(&serde_json::json!([
            "toolkit.mcp.approval.v1",
            &*self.inner.client,
            grant.tools().principal(),
            request.name,
            crate::approval::digest(&arguments),
        ]))
    }

    /// The retry of a call that was pending: opens the sealed approval, reads the
    /// user's answer, and resumes the call (once).
    async fn resume(
        &self,
        grant: &Grant,
        request: &CallToolRequestParams,
        sealed: &str,
    ) -> Result<Response, ErrorData> {
        let Some(codec) = &self.inner.request_state else {
            return Err(ErrorData::invalid_params(
                "this server issues no requestState",
                None,
            ));
        };
        let bound = self.binding(grant, request);
        let pending: PendingApproval =
            codec
                .open_json_with(sealed, bound.as_bytes())
                .map_err(|error| {
                    ErrorData::invalid_params(
                        format!("the requestState is not valid here: {error}"),
                        None,
                    )
                })?;
        let answer = request
            .input_responses
            .as_ref()
            .and_then(|responses| responses.get(APPROVAL_INPUT))
            .and_then(|answer| answer.get("action"))
            .and_then(serde_json::Value::as_str);
        let decision = match answer {
            Some("accept") => Decision::Approve,
            Some("decline") => Decision::Deny("the user declined the call".to_owned()),
            Some("cancel") => Decision::Deny("the user dismissed the approval request".to_owned()),
            _ => {
                return Err(ErrorData::invalid_params(
                    format!("the retry carries no answer to the `{APPROVAL_INPUT}` input request"),
                    None,
                ));
            }
        };
        Ok(grant
            .tools()
            .resume(&pending, decision, grant.context())
            .await)
    }
}

/// The outcome a span records: `ok`, `pending_approval`, or the error's kind.
fn outcome(response: &Response) -> &'static str {
    match response {
        Response::Result(_) => "ok",
        Response::Error(error) => error.kind(),
        Response::Pending(_) => "pending_approval",
        Response::Preview(_) => "requires_confirmation",
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
        // The tool has not run, so its output schema does not apply (clients check
        // it on results): an error result saying so, with the pending approval for
        // an application that resumes it out of band.
        Response::Pending(pending) => {
            let message = crate::ToolError::ApprovalRequired {
                tool: pending.tool.clone(),
            }
            .to_string();
            let mut result = CallToolResult::error(vec![ContentBlock::text(message)]);
            result.structured_content = Some(Response::Pending(pending).to_json());
            result
        }
        Response::Error(error) => {
            let mut result = CallToolResult::error(vec![ContentBlock::text(error.to_string())]);
            result.structured_content = Some(Response::Error(error).to_json());
            result
        }
        // A `confirm` tool called without `confirmed: true` has not acted either:
        // like a pending approval, its preview does not fit the output schema that
        // clients check results against, so it is flagged, with the preview (message
        // and items) as the text the model reads and as structured content.
        Response::Preview(preview) => {
            let json = preview.to_json();
            let mut result = CallToolResult::error(vec![ContentBlock::text(json.to_string())]);
            result.structured_content = Some(json);
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
            let response = match &request.request_state {
                Some(sealed) => self.resume(&grant, &request, sealed).await?,
                None => {
                    let response = grant
                        .tools()
                        .call(&request.name, &arguments, grant.context())
                        .await;
                    if let Response::Pending(pending) = &response
                        && let Some(input) =
                            self.ask_for_approval(&grant, &request, pending, &context)
                    {
                        tracing::Span::current().record("outcome", "input_required");
                        return Ok(CallToolResponse::InputRequired(input));
                    }
                    response
                }
            };
            let span = tracing::Span::current();
            span.record("outcome", outcome(&response));
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

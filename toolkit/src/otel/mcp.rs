//! The span of every MCP request and notification a server receives (the MCP
//! semantic conventions' `mcp.server` span) and its duration metric.
//!
//! [`McpSpans`] wraps an rmcp server handler and forwards every method of
//! [`ServerHandler`] to it, each inside its span: rmcp's HTTP transport takes a
//! `ServerHandler`, not any `Service`, so this is the one place that sees every
//! method, whichever the inner handler serves.

// Logging and subscriptions are deprecated in rmcp for the 2026-07-28 revision;
// the wrapper forwards them for the clients that still use them.
#![allow(deprecated)]

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use opentelemetry::KeyValue;
use opentelemetry::propagation::Extractor;
use opentelemetry::trace::TraceContextExt as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CancelledNotificationParam,
    CompleteRequestParams, CompleteResult, CustomNotification, CustomRequest, CustomResult,
    DiscoverResult, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams,
    GetSkillResult, GetTaskParams, GetTaskResult, InitializeRequestParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult,
    ListToolsResult, MetaObject, PaginatedRequestParams, ProgressNotificationParam,
    ProtocolVersion, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult,
    ReadResourceRequestParams, ReadResourceResponse, ServerConfig, SetLevelRequestParams,
    SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tracing::Instrument as _;
use tracing::field::Empty;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

use super::{MAX_DESCRIPTION_BYTES, RequestId, cut, instruments};

/// How clients reach a server: the spans' `network.transport` (and
/// `network.protocol.name` for HTTP).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// Standard input and output of a process (`pipe`).
    Stdio,
    /// Streamable HTTP (`tcp`, `http`).
    Http,
}

impl Transport {
    fn network(self) -> &'static str {
        match self {
            Transport::Stdio => "pipe",
            Transport::Http => "tcp",
        }
    }
}

/// An rmcp server handler whose every request and notification runs in an
/// `mcp.server` span (see [`otel`](super)), and whose requests are timed in
/// `mcp.server.operation.duration`.
///
/// [`McpHttp`](crate::mcp::McpHttp) and
/// [`McpServer::serve_stdio`](crate::mcp::McpServer::serve_stdio) wrap their
/// server in it; wrap an [`McpServer`](crate::mcp::McpServer) served over another
/// rmcp transport the same way:
///
/// ```no_run
/// # async fn run(server: toolkit::mcp::McpServer) -> Result<(), Box<dyn std::error::Error>> {
/// use rmcp::ServiceExt as _;
/// use toolkit::otel::{McpSpans, Transport};
///
/// let running = McpSpans::new(server, Transport::Stdio)
///     .serve(rmcp::transport::stdio())
///     .await?;
/// running.waiting().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct McpSpans<S> {
    inner: S,
    transport: Transport,
    client: Option<Arc<str>>,
}

impl<S> McpSpans<S> {
    /// `server`'s methods, each in its span, for clients reaching it over
    /// `transport`.
    pub fn new(server: S, transport: Transport) -> Self {
        McpSpans {
            inner: server,
            transport,
            client: None,
        }
    }

    /// Names the client kind the server answers for (`toolkit.client`).
    #[must_use]
    pub fn client(mut self, client: impl Into<Arc<str>>) -> Self {
        self.client = Some(client.into());
        self
    }

    /// The wrapped server.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// The span of one request or notification, its parent the client's span
    /// named in `meta`.
    fn span(
        &self,
        method: &'static str,
        id: Option<&rmcp::model::RequestId>,
        meta: &MetaObject,
        version: Option<ProtocolVersion>,
    ) -> tracing::Span {
        let span = tracing::info_span!(
            target: "toolkit::otel",
            parent: None,
            "mcp.server",
            otel.name = method,
            otel.kind = "server",
            otel.status_code = Empty,
            otel.status_description = Empty,
            mcp.method.name = method,
            jsonrpc.request.id = Empty,
            mcp.protocol.version = Empty,
            network.transport = self.transport.network(),
            network.protocol.name = Empty,
            gen_ai.operation.name = Empty,
            gen_ai.tool.name = Empty,
            error.type = Empty,
            rpc.response.status_code = Empty,
            toolkit.client = Empty,
        );
        if span.is_disabled() {
            return span;
        }
        if let Some(id) = id {
            span.record(
                "jsonrpc.request.id",
                crate::echo::echo(&id.to_string()).as_str(),
            );
        }
        if let Some(version) = version {
            span.record(
                "mcp.protocol.version",
                crate::echo::echo(version.as_str()).as_str(),
            );
        }
        if self.transport == Transport::Http {
            span.record("network.protocol.name", "http");
        }
        if method == "tools/call" {
            span.record("gen_ai.operation.name", "execute_tool");
        }
        if let Some(client) = &self.client {
            span.record("toolkit.client", &**client);
        }
        // The conventions: the context in `params._meta` is the parent; the one
        // current when the message arrived (an HTTP server span) is linked.
        let ambient = opentelemetry::Context::current();
        let remote = opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.extract(&Meta(meta))
        });
        let parent = if remote.span().span_context().is_valid() {
            let link = ambient.span().span_context().clone();
            if link.is_valid() {
                span.add_link(link);
            }
            remote
        } else {
            ambient
        };
        if let Err(error) = span.set_parent(parent) {
            tracing::debug!(%error, "an MCP span's parent was not set");
        }
        span
    }

    /// Runs `run` (the inner handler's method) inside the span of request
    /// `method`; records its outcome on the span and the duration metric.
    async fn request<T, F>(
        &self,
        method: &'static str,
        tool: Option<&str>,
        context: RequestContext<RoleServer>,
        run: impl FnOnce(RequestContext<RoleServer>) -> F,
        tool_answer: fn(&T) -> Option<ToolAnswer>,
    ) -> Result<T, ErrorData>
    where
        F: Future<Output = Result<T, ErrorData>>,
    {
        let version = context.protocol_version();
        let span = self.span(method, Some(&context.id), &context.meta, version.clone());
        let instruments = instruments();
        if span.is_disabled() && instruments.is_none() {
            // Nothing would record it: the handler runs as it is.
            return run(context).await;
        }
        let started = Instant::now();
        let result = run(context).instrument(span.clone()).await;
        let answer = result.as_ref().ok().and_then(tool_answer);
        // Only a tool the caller has is named: the name is the client's text.
        let tool = tool.filter(|_| answer.is_some_and(|answer| answer.known));
        let error_type: Option<Cow<'static, str>> = match &result {
            Err(error) => Some(error.code.0.to_string().into()),
            Ok(_) if answer.is_some_and(|answer| answer.failed) => Some("tool_error".into()),
            Ok(_) => None,
        };
        if let Some(tool) = tool {
            // Named once the tool is known to be the caller's (the layer applies
            // `otel.name` only before a span starts).
            span.context()
                .span()
                .update_name(format!("{method} {tool}"));
            span.record("gen_ai.tool.name", tool);
        }
        if let Some(error_type) = &error_type {
            span.record("error.type", &**error_type);
            span.record("otel.status_code", "error");
        }
        if let Err(error) = &result {
            span.record("rpc.response.status_code", error.code.0.to_string());
            span.record("otel.status_description", status_description(error));
        }
        if let Some(instruments) = instruments {
            let mut attributes = vec![
                KeyValue::new("mcp.method.name", method),
                KeyValue::new("network.transport", self.transport.network()),
            ];
            if let Some(tool) = tool {
                attributes.push(KeyValue::new("gen_ai.tool.name", tool.to_owned()));
            }
            if method == "tools/call" {
                attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
            }
            if let Some(version) = version.filter(|version| {
                ProtocolVersion::KNOWN_VERSIONS
                    .iter()
                    .any(|known| known.as_str() == version.as_str())
            }) {
                attributes.push(KeyValue::new(
                    "mcp.protocol.version",
                    version.as_str().to_owned(),
                ));
            }
            if let Some(error_type) = error_type {
                attributes.push(KeyValue::new("error.type", error_type.clone()));
                if result.is_err() {
                    attributes.push(KeyValue::new("rpc.response.status_code", error_type));
                }
            }
            instruments
                .mcp_duration
                .record(started.elapsed().as_secs_f64(), &attributes);
        }
        result
    }

    /// Runs `run` inside the span of notification `method`.
    async fn notification<F>(
        &self,
        method: &'static str,
        context: NotificationContext<RoleServer>,
        run: impl FnOnce(NotificationContext<RoleServer>) -> F,
    ) where
        F: Future<Output = ()>,
    {
        let span = self.span(method, None, &context.meta, None);
        let started = Instant::now();
        run(context).instrument(span).await;
        if let Some(instruments) = instruments() {
            instruments.mcp_duration.record(
                started.elapsed().as_secs_f64(),
                &[
                    KeyValue::new("mcp.method.name", method),
                    KeyValue::new("network.transport", self.transport.network()),
                ],
            );
        }
    }
}

/// `params._meta` as the propagator's carrier: its string values by key.
struct Meta<'a>(&'a MetaObject);

impl Extractor for Meta<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(serde_json::Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// The `_meta` key of toolkit's error results (`crate::mcp::META_ERROR`, whose
/// module uses this one: the test below keeps the two equal).
const META_ERROR: &str = "toolkit/error";

/// What a `tools/call` answer says of the tool.
#[derive(Clone, Copy)]
struct ToolAnswer {
    /// A tool the caller has answered (toolkit answers a name that is no tool's
    /// with an error result whose `_meta` says `unknown_tool`).
    known: bool,
    /// The result is an error (`isError: true`).
    failed: bool,
}

/// Not a tool call.
fn no_tool<T>(_: &T) -> Option<ToolAnswer> {
    None
}

/// What a `tools/call` answer says of the tool.
#[allow(clippy::unnecessary_wraps)] // the shape `McpSpans::request` takes for every method
fn tool_answer(response: &CallToolResponse) -> Option<ToolAnswer> {
    Some(match response {
        CallToolResponse::Complete(result) => {
            let unknown = result
                .meta
                .as_ref()
                .and_then(|meta| meta.get(META_ERROR))
                .and_then(|error| error.get("kind"))
                .and_then(serde_json::Value::as_str)
                == Some("unknown_tool");
            ToolAnswer {
                known: !unknown,
                failed: result.is_error == Some(true),
            }
        }
        // Asked for input, or running as a task: not failed yet.
        _ => ToolAnswer {
            known: true,
            failed: false,
        },
    })
}

/// Puts the MCP request's id in a tool call's context: the run's
/// `gen_ai.tool.call.id` when the context names no [`CallId`](crate::call::CallId).
pub(crate) fn equip(ctx: &mut crate::context::Context, context: &RequestContext<RoleServer>) {
    ctx.insert(RequestId(context.id.to_string()));
}

impl<S: ServerHandler> ServerHandler for McpSpans<S> {
    async fn ping(&self, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.request("ping", None, context, |c| self.inner.ping(c), no_tool)
            .await
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        self.request(
            "initialize",
            None,
            context,
            |c| self.inner.initialize(request, c),
            no_tool,
        )
        .await
    }

    fn negotiate_initialize(
        &self,
        request: &InitializeRequestParams,
    ) -> Result<InitializeResult, ErrorData> {
        self.inner.negotiate_initialize(request)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.inner.supported_protocol_versions()
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        self.request(
            "server/discover",
            None,
            context,
            |c| self.inner.discover(c),
            no_tool,
        )
        .await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.request(
            "completion/complete",
            None,
            context,
            |c| self.inner.complete(request, c),
            no_tool,
        )
        .await
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.request(
            "logging/setLevel",
            None,
            context,
            |c| self.inner.set_level(request, c),
            no_tool,
        )
        .await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.request(
            "prompts/get",
            None,
            context,
            |c| self.inner.get_prompt(request, c),
            no_tool,
        )
        .await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.request(
            "prompts/list",
            None,
            context,
            |c| self.inner.list_prompts(request, c),
            no_tool,
        )
        .await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.request(
            "resources/list",
            None,
            context,
            |c| self.inner.list_resources(request, c),
            no_tool,
        )
        .await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.request(
            "resources/templates/list",
            None,
            context,
            |c| self.inner.list_resource_templates(request, c),
            no_tool,
        )
        .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.request(
            "resources/read",
            None,
            context,
            |c| self.inner.read_resource(request, c),
            no_tool,
        )
        .await
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.inner.accepted_subscription_filter(requested)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        // A subscription lives as long as the client listens: no span of its
        // own, which would stay open as long.
        self.inner.listen(context).await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.request(
            "resources/subscribe",
            None,
            context,
            |c| self.inner.subscribe(request, c),
            no_tool,
        )
        .await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.request(
            "resources/unsubscribe",
            None,
            context,
            |c| self.inner.unsubscribe(request, c),
            no_tool,
        )
        .await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.clone();
        self.request(
            "tools/call",
            Some(&name),
            context,
            |c| self.inner.call_tool(request, c),
            tool_answer,
        )
        .await
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.request(
            "tools/list",
            None,
            context,
            |c| self.inner.list_tools(request, c),
            no_tool,
        )
        .await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.get_tool(name)
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        // The method is the client's text: named only when the conventions know it.
        let method = known_method(&request.method);
        self.request(
            method,
            None,
            context,
            |c| self.inner.on_custom_request(request, c),
            no_tool,
        )
        .await
    }

    async fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        context: NotificationContext<RoleServer>,
    ) {
        self.notification("notifications/cancelled", context, |c| {
            self.inner.on_cancelled(notification, c)
        })
        .await;
    }

    async fn on_progress(
        &self,
        notification: ProgressNotificationParam,
        context: NotificationContext<RoleServer>,
    ) {
        self.notification("notifications/progress", context, |c| {
            self.inner.on_progress(notification, c)
        })
        .await;
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.notification("notifications/initialized", context, |c| {
            self.inner.on_initialized(c)
        })
        .await;
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        self.notification("notifications/roots/list_changed", context, |c| {
            self.inner.on_roots_list_changed(c)
        })
        .await;
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        context: NotificationContext<RoleServer>,
    ) {
        let method = known_method(&notification.method);
        self.notification(method, context, |c| {
            self.inner.on_custom_notification(notification, c)
        })
        .await;
    }

    fn get_info(&self) -> ServerConfig {
        self.inner.get_info()
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.request(
            "tasks/get",
            None,
            context,
            |c| self.inner.get_task(request, c),
            no_tool,
        )
        .await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.request(
            "tasks/update",
            None,
            context,
            |c| self.inner.update_task(request, c),
            no_tool,
        )
        .await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.request(
            "tasks/cancel",
            None,
            context,
            |c| self.inner.cancel_task(request, c),
            no_tool,
        )
        .await
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        self.request(
            "skills/list",
            None,
            context,
            |c| self.inner.list_skills(request, c),
            no_tool,
        )
        .await
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        self.request(
            "skills/get",
            None,
            context,
            |c| self.inner.get_skill(request, c),
            no_tool,
        )
        .await
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.request(
            "resources/directory/read",
            None,
            context,
            |c| self.inner.read_resource_directory(request, c),
            no_tool,
        )
        .await
    }
}

/// `method` when the MCP conventions (or the protocol) name it, else `_OTHER`:
/// a custom method is the client's text, and span names and metric attributes
/// must not grow with it.
fn known_method(method: &str) -> &'static str {
    const KNOWN: [&str; 31] = [
        "completion/complete",
        "elicitation/create",
        "initialize",
        "logging/setLevel",
        "notifications/cancelled",
        "notifications/initialized",
        "notifications/message",
        "notifications/progress",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
        "notifications/roots/list_changed",
        "notifications/tools/list_changed",
        "ping",
        "prompts/get",
        "prompts/list",
        "resources/list",
        "resources/read",
        "resources/subscribe",
        "resources/templates/list",
        "resources/unsubscribe",
        "roots/list",
        "sampling/createMessage",
        "tools/call",
        "tools/list",
        "server/discover",
        "subscriptions/listen",
        "tasks/get",
        "tasks/update",
        "tasks/cancel",
        "resources/directory/read",
    ];
    KNOWN
        .iter()
        .copied()
        .find(|known| *known == method)
        .unwrap_or(super::OTHER)
}

/// A JSON-RPC error's status description: its message, cut; for invalid params,
/// whose message may quote them (a tool call's arguments, as serde saw them),
/// the code's own words.
fn status_description(error: &ErrorData) -> &str {
    if error.code == rmcp::model::ErrorCode::INVALID_PARAMS {
        "invalid params"
    } else {
        cut(&error.message, MAX_DESCRIPTION_BYTES)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalid_params_status_quotes_no_params() {
        let refused = ErrorData::invalid_params(
            "invalid params for `tools/call`: invalid type: string \"SECRET-7f3a9\", expected a map",
            None,
        );
        assert_eq!(status_description(&refused), "invalid params");
        let lacking = ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            "resources/list",
            None,
        );
        assert_eq!(status_description(&lacking), "resources/list");
    }

    #[test]
    fn the_error_key_is_the_servers() {
        assert_eq!(META_ERROR, crate::mcp::META_ERROR);
    }

    #[test]
    fn a_method_the_conventions_do_not_name_is_other() {
        assert_eq!(known_method("tools/call"), "tools/call");
        assert_eq!(
            known_method("notifications/cancelled"),
            "notifications/cancelled"
        );
        assert_eq!(known_method("x/\u{202e}evil"), "_OTHER");
        assert_eq!(known_method(""), "_OTHER");
    }
}

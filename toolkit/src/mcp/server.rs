//! The rmcp server handler: `tools/list` and `tools/call` through the caller's grant.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, PoisonError, RwLock};
use std::task::Poll;
use std::time::Instant;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, ElicitRequest, ElicitRequestParams,
    Implementation, InputRequest, InputRequests, InputRequiredResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, RequestStateCodec, RequestStateError, SealOptions,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt as _};
use tracing::Instrument as _;

use super::apps::{self, Apps, AppsOn};
use super::ask::{Ask, Capability, Declared, Refusal};
use super::result::{APPROVAL_INPUT, approval_question, call_result};
use super::{Access, Caller, Grant};
use crate::approval::{Decision, PendingApproval};
use crate::registry::RegisteredTool;
use crate::render::Dialect;
use crate::response::Response;

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
    /// The least severe log level the client asked for (`logging/setLevel`): the
    /// session's, shared by the clones serving one connection; 0 sends every
    /// level (see [`super::request::level_rank`]).
    log_level: Arc<std::sync::atomic::AtomicU8>,
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
    /// Whether the transport carries a client's answer to a request this server
    /// sends during a call (stdio, HTTP with sessions); the stateless HTTP
    /// endpoints do not.
    server_requests: bool,
    /// MCP Apps cards, for clients that declare the extension.
    apps: Option<Apps>,
}

impl McpServer {
    /// A server for clients of kind `client` (`internal`, `copilot`, ...) whose
    /// tools and context come from `access`, per request.
    pub fn new(client: impl Into<Arc<str>>, access: impl Access) -> Self {
        Self::with_access(client.into(), Arc::new(access), None, true)
    }

    pub(crate) fn with_access(
        client: Arc<str>,
        access: Arc<dyn Access>,
        request_state: Option<Arc<RequestStateCodec>>,
        server_requests: bool,
    ) -> Self {
        McpServer {
            inner: Arc::new(Inner {
                client,
                access,
                implementation: Implementation::new("toolkit", env!("CARGO_PKG_VERSION")),
                entries: RwLock::default(),
                request_state,
                server_requests,
                apps: None,
            }),
            log_level: Arc::default(),
        }
    }

    /// Serves MCP Apps cards (`io.modelcontextprotocol/ui`) to clients that
    /// declare the extension: a preview card for `confirm` tools and an approval
    /// card for `approve` tools, where the caller's view has approvals. Clients
    /// that don't declare it are served exactly as without. See
    /// [`apps`](super::apps).
    #[must_use]
    pub fn apps(self, apps: Apps) -> Self {
        Self::with_access(
            Arc::clone(&self.inner.client),
            Arc::clone(&self.inner.access),
            self.inner.request_state.clone(),
            self.inner.server_requests,
        )
        .with_apps(Some(apps))
    }

    /// This newly built server with `apps`.
    pub(crate) fn with_apps(mut self, apps: Option<Apps>) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.apps = apps;
        }
        self
    }

    /// The same server for a new connection (session): nothing the client set
    /// on another connection, such as its log level, carries over.
    #[must_use]
    pub(crate) fn for_new_session(&self) -> Self {
        McpServer {
            inner: Arc::clone(&self.inner),
            log_level: Arc::default(),
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
            self.inner.server_requests,
        )
        .with_apps(self.inner.apps.clone()))
    }

    /// The client kind this server answers for.
    #[must_use]
    pub fn client(&self) -> &str {
        &self.inner.client
    }

    /// Serves one client over this process's stdin and stdout until it
    /// disconnects: what Claude Desktop, Cursor and other local hosts start.
    ///
    /// # Errors
    /// The transport's.
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        #[cfg(feature = "otel")]
        let server = {
            let client = Arc::clone(&self.inner.client);
            crate::otel::McpSpans::new(self, crate::otel::Transport::Stdio).client(client)
        };
        #[cfg(not(feature = "otel"))]
        let server = self;
        let running = server
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
        let bearer = parts.and_then(super::bearer::request_bearer);
        let caller = Caller {
            client: &self.inner.client,
            bearer,
            headers,
            extensions: parts.map(|parts| &parts.extensions),
        };
        let grant = self.inner.access.grant(&caller).map_err(|error| {
            tracing::error!(
                client = %self.inner.client,
                error = %crate::error::with_causes(&error),
                "the access hook failed"
            );
            ErrorData::internal_error(
                format!("the server could not build the tool list: {error}"),
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
                    // A rich result is content blocks, not one JSON shape.
                    if entry
                        .output_schema
                        .as_deref()
                        .is_some_and(crate::content::is_contents_schema)
                    {
                        entry.output_schema = None;
                    }
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
    /// Puts what the transport knows of this request in the call's context: the
    /// client's progress token as a [`Progress`](crate::call::Progress), and the request
    /// itself as an [`McpRequest`](super::McpRequest).
    fn equip(
        &self,
        grant: &mut Grant,
        context: &RequestContext<RoleServer>,
        answers: BTreeMap<String, serde_json::Value>,
        then_task: bool,
    ) {
        let can_ask = self.inner.server_requests && !is_stateless_revision(context);
        if let Some(token) = context.meta.get_progress_token() {
            let peer = context.peer.clone();
            grant
                .context_mut()
                .insert(crate::progress::Progress::from_async(move |update| {
                    let peer = peer.clone();
                    let mut param =
                        rmcp::model::ProgressNotificationParam::new(token.clone(), update.progress);
                    param.total = update.total;
                    param.message = update.message;
                    async move {
                        if let Err(error) = peer.notify_progress(param).await {
                            tracing::debug!(%error, "a progress notification was not sent");
                        }
                    }
                }));
        }
        #[cfg(feature = "otel")]
        crate::otel::equip(grant.context_mut(), context);
        let request = super::McpRequest {
            peer: context.peer.clone(),
            can_ask,
            log_level: Arc::clone(&self.log_level),
        };
        let declared = Declared::of(context.client_capabilities().as_ref());
        let ask = if is_stateless_revision(context) {
            if self.inner.request_state.is_some() {
                Ask::rounds(answers, then_task, declared)
            } else {
                Ask::closed(
                    "this server can't ask the client for input: it seals no requestState \
                     (`McpServer::approvals` sets its key)",
                    declared,
                )
            }
        } else if can_ask {
            Ask::session(request.clone(), declared)
        } else {
            Ask::closed(
                "this transport carries no answer from the client during a call",
                declared,
            )
        };
        grant.context_mut().insert(ask);
        grant.context_mut().insert(request);
    }

    /// Runs one `tools/call`: resumes a sealed approval, refuses an alias, or
    /// dispatches; a call left pending asks for approval where the client can
    /// answer.
    async fn dispatch(
        &self,
        grant: &Grant,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        resumed: Option<&AskState>,
    ) -> Result<CallToolResponse, ErrorData> {
        // Arguments built in code may nest deeper than the stack: refused before
        // serializing them (whatever came as JSON text is within this bound).
        if let Some(arguments) = &request.arguments
            && let Err(error) = crate::dispatch::limits::check_members(
                arguments,
                crate::dispatch::limits::TEXT_DEPTH,
            )
        {
            return Ok(CallToolResponse::Complete(call_result(Response::Error(
                error,
            ))));
        }
        let apps = AppsOn::of(self.inner.apps.as_ref(), context);
        if let Some(apps) = apps
            && request.request_state.is_none()
            && let Some(result) = apps::call_app_tool(apps, grant, request).await
        {
            return Ok(CallToolResponse::Complete(result));
        }
        // The arguments arrive parsed (rmcp's `Map`) and are written back to text
        // once, for the dispatch every caller shares (`View::call` takes the
        // model's text). Kept on purpose: the typed parse is each tool's one
        // `Deserialize` instantiation, from text (a second one, from a `Value`,
        // would compile every tool's argument parser twice); a refused call's
        // message and path come from positions in that text, the same for every
        // provider; and writing a small map costs well under 1% of a request's
        // instructions here (BENCHMARKS.md, "The server under load").
        let arguments = match &request.arguments {
            Some(arguments) => serde_json::to_string(arguments)
                .map_err(|error| ErrorData::invalid_params(error.to_string(), None))?,
            None => String::new(),
        };
        let approval = request.request_state.as_ref().filter(|_| resumed.is_none());
        // An approved call whose tool asked its client in an earlier round: it
        // runs again, as approved then, with the answers.
        let approved = resumed.and_then(|state| state.approval.as_ref());
        let response = match (approval, approved) {
            (_, Some(pending)) => {
                let response = grant
                    .tools()
                    .resume(pending, Decision::Approve, grant.context())
                    .await;
                if let Some(asked) = self.asked(grant, request, resumed, Some(pending))? {
                    tracing::Span::current().record("outcome", "input_required");
                    return Ok(CallToolResponse::InputRequired(asked));
                }
                response
            }
            (Some(sealed), None) => {
                let (response, approved) = self.resume(grant, request, sealed).await?;
                if let Some(asked) = self.asked(grant, request, None, approved.as_ref())? {
                    tracing::Span::current().record("outcome", "input_required");
                    return Ok(CallToolResponse::InputRequired(asked));
                }
                response
            }
            // An alias is not listed, and not run over MCP: a host asks its user
            // for permission per listed name, and checks results against the
            // listed output schema, so a call by an unlisted name would bypass
            // both. The error names the tool to call.
            (None, None) if is_alias(grant.tools(), &request.name) => {
                Response::Error(crate::error::ToolError::UnknownTool {
                    name: request.name.to_string(),
                    suggestion: grant
                        .tools()
                        .get(&request.name)
                        .map(|tool| tool.name.to_owned()),
                })
            }
            (None, None) => {
                let response = grant
                    .tools()
                    .call(&request.name, &arguments, grant.context())
                    .await;
                if let Some(asked) = self.asked(grant, request, resumed, None)? {
                    tracing::Span::current().record("outcome", "input_required");
                    return Ok(CallToolResponse::InputRequired(asked));
                }
                match response {
                    Response::Pending(pending) => {
                        let requester_decides = grant.tools().requester_may_decide(&pending);
                        // A client that declared the tasks extension polls for the
                        // outcome instead (SEP-2663); others never get a task.
                        if let Some(mut created) =
                            self.task_for(grant, &pending, context, requester_decides)
                        {
                            apps::task_created(apps, grant, &pending, &mut created);
                            tracing::Span::current().record("outcome", "task");
                            return Ok(CallToolResponse::Task(created));
                        }
                        if let Some(input) = self.ask_for_approval(
                            grant,
                            request,
                            &pending,
                            context,
                            requester_decides,
                        ) {
                            tracing::Span::current().record("outcome", "input_required");
                            return Ok(CallToolResponse::InputRequired(input));
                        }
                        // A question asked in the same request holds it open until
                        // answered: worth it only when the answer decides.
                        if requester_decides {
                            self.elicit_approval(grant, pending, context).await
                        } else {
                            Response::Pending(pending)
                        }
                    }
                    other => other,
                }
            }
        };
        tracing::Span::current().record("outcome", outcome(&response));
        Ok(CallToolResponse::Complete(
            apps::result_for(apps, grant, request, response).await,
        ))
    }

    /// A pending approval asked of a 2025-11-25 client's user with
    /// `elicitation/create` in the same request, when the client can elicit and
    /// the transport carries its answer back; else the pending approval itself.
    /// The decision goes through the same signed, claimed resume as every other
    /// path: the tool runs at most once.
    async fn elicit_approval(
        &self,
        grant: &Grant,
        pending: Box<PendingApproval>,
        context: &RequestContext<RoleServer>,
    ) -> Response {
        let elicits = context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.elicitation.is_some());
        let Some(request) = grant.context().get::<super::McpRequest>() else {
            return Response::Pending(pending);
        };
        if !elicits || !request.can_ask() {
            return Response::Pending(pending);
        }
        let answer = request
            .elicit(
                approval_question(&pending),
                serde_json::json!({"type": "object", "properties": {}}),
            )
            .await;
        let decision = match answer.map(|answer| answer.action) {
            Ok(rmcp::model::ElicitationAction::Accept) => Decision::Approve,
            Ok(rmcp::model::ElicitationAction::Decline) => {
                Decision::Deny("the user declined the call".to_owned())
            }
            Ok(_) => Decision::Deny("the user dismissed the approval request".to_owned()),
            Err(error) => {
                tracing::info!(%error, "the approval could not be elicited; answered as pending");
                return Response::Pending(pending);
            }
        };
        grant
            .tools()
            .resume(&pending, decision, grant.context())
            .await
    }
}

impl McpServer {
    /// The task handle for a call left pending, when this server takes approvals
    /// and the client declared the tasks extension on this request.
    fn task_for(
        &self,
        grant: &Grant,
        pending: &PendingApproval,
        context: &RequestContext<RoleServer>,
        requester_decides: bool,
    ) -> Option<rmcp::model::CreateTaskResult> {
        self.inner.request_state.as_ref()?;
        if !declares_tasks(context) {
            return None;
        }
        // An `approve` tool may be a task unless it says `task = forbidden`.
        grant
            .tools()
            .get(&pending.tool)
            .filter(|tool| tool.task.allows_task())?;
        let (approvals, _) = super::task::approvals_of(grant.tools())?;
        Some(super::task::created(pending, requester_decides, approvals))
    }

    /// How this `tools/call` runs, by the tool's [`TaskSupport`](crate::declaration::TaskSupport)
    /// and what the request declared: a task where the tool may be one, the
    /// client declared the extension (in a revision that defines it), and the
    /// caller's view keeps approvals (the store tasks live in); refused where the
    /// tool must be a task and the client takes none; in the request otherwise.
    /// An `approve` call is made a task later, once it is left pending
    /// ([`McpServer::task_for`]); a retry with a `requestState` resumes one.
    fn task_mode(
        &self,
        grant: &Grant,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> TaskMode {
        let Some(tool) = grant
            .tools()
            .get(&request.name)
            .filter(|tool| tool.name == request.name)
        else {
            return TaskMode::Inline;
        };
        let declared = declares_tasks(context);
        let keeps_tasks = self.inner.request_state.is_some() && grant.tools().approvals().is_some();
        // Asked in rounds first, its retries too; a task once it is ready.
        if tool.asks_first
            && tool.task.allows_task()
            && tool.tier != crate::declaration::Tier::Approve
            && declared
            && keeps_tasks
        {
            return TaskMode::AsksFirst;
        }
        if request.request_state.is_some() {
            return TaskMode::Inline;
        }
        match tool.task {
            // Never run in the request: the tool said it cannot be. Telling the
            // client to declare the extension would not help either.
            crate::declaration::TaskSupport::Required if !keeps_tasks => TaskMode::NoStore,
            crate::declaration::TaskSupport::Required if !declared => TaskMode::Refused,
            crate::declaration::TaskSupport::Forbidden => TaskMode::Inline,
            _ if tool.tier == crate::declaration::Tier::Approve => TaskMode::Inline,
            _ if declared && keeps_tasks => TaskMode::Task,
            _ => TaskMode::Inline,
        }
    }

    /// Creates the task of this call in the store and answers with its handle;
    /// it runs in the background, here, and the client polls `tasks/get` on any
    /// replica. Arguments the tool would refuse are answered at once, as the call
    /// would have been, and make no task.
    async fn start_task(
        &self,
        grant: Grant,
        request: &CallToolRequestParams,
        declared: Declared,
        gathered: BTreeMap<String, (serde_json::Value, serde_json::Value)>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = match &request.arguments {
            Some(arguments) => serde_json::to_string(arguments)
                .map_err(|error| ErrorData::invalid_params(error.to_string(), None))?,
            None => String::new(),
        };
        let Some(tool) = grant.tools().get(&request.name) else {
            return Err(ErrorData::internal_error("the tool left the view", None));
        };
        if let Err(error) = (tool.validate)(&arguments) {
            tracing::Span::current().record("outcome", error.kind());
            return Ok(CallToolResponse::Complete(call_result(Response::Error(
                error,
            ))));
        }
        let Some((approvals, principal)) = super::task::approvals_of(grant.tools()) else {
            return Err(ErrorData::internal_error(
                "this server keeps no tasks",
                None,
            ));
        };
        check_gathered(&gathered)?;
        // The answers the rounds before gathered are kept with the task, as its
        // tool's answered questions: its run (here, or on the replica that
        // takes it over) finds them. Kept with the task or not at all: a store
        // failing half-way leaves no task that could run without them.
        let answered: Vec<crate::approval::TaskRequest> = gathered
            .into_iter()
            .map(|(key, (asked, answer))| {
                crate::approval::TaskRequest::answered(key, asked, answer)
            })
            .collect();
        let record = match approvals
            .create_task_answered(
                principal,
                grant.tools().label(),
                tool.name,
                &arguments,
                &answered,
            )
            .await
        {
            Ok(record) => record,
            Err(crate::approval::TaskError::Arguments(error)) => {
                return Ok(CallToolResponse::Complete(call_result(Response::Error(
                    error,
                ))));
            }
            Err(error @ crate::approval::TaskError::TooLarge(_)) => {
                return Err(ErrorData::invalid_params(error.to_string(), None));
            }
            // The store's own words stay in the log (`From<ApprovalError>`).
            Err(crate::approval::TaskError::Approval(error)) => {
                return Err(ErrorData::internal_error(
                    format!(
                        "the task could not be created: {}",
                        crate::error::ToolError::from(error)
                    ),
                    None,
                ));
            }
        };
        let created = super::task::created_run(&record);
        tracing::Span::current().record("outcome", "task");
        super::task::run_in_background(grant, record, declared, true);
        Ok(CallToolResponse::Task(created))
    }

    /// The input-required result for a call left pending, when the client can
    /// answer one: a 2026-07-28 client that elicits, and a server with a key.
    ///
    /// When the policy leaves the call to someone else, the client is still given
    /// the sealed state, and its user is told so: their later "yes" runs what the
    /// approver decided (and nothing before that), their "no" never runs it.
    fn ask_for_approval(
        &self,
        grant: &Grant,
        request: &CallToolRequestParams,
        pending: &PendingApproval,
        context: &RequestContext<RoleServer>,
        requester_decides: bool,
    ) -> Option<InputRequiredResult> {
        let codec = self.inner.request_state.as_ref()?;
        let elicits = context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.elicitation.is_some());
        if !is_stateless_revision(context) || !elicits {
            return None;
        }
        // No expiry of the seal's own: rmcp would check it on the clock of the
        // replica that opens the state, and a replica whose clock runs ahead
        // would refuse a state the store still holds valid. The sealed pending
        // approval carries its expiry, which the answer's decision checks on the
        // approval store's clock, as every other time decision does.
        let bound = self.binding(grant, request);
        let sealed = codec
            .seal_json_with(
                pending,
                &SealOptions::new().associated_data(bound.as_bytes()),
            )
            .map_err(|error| tracing::error!(%error, "could not seal a pending approval"))
            .ok()?;
        let message = if requester_decides {
            approval_question(pending)
        } else {
            format!(
                "`{}` with {} waits for an approver's decision; it has not run. Answer \
                 accept once they have approved it, and it runs as they decided.",
                pending.tool,
                crate::approval::canonical_json(&pending.arguments)
            )
        };
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
        self.bound_as("toolkit.mcp.approval.v1", grant, request)
    }

    /// The binding of a sealed state under `label`: the client kind, the
    /// principal, the tool and the digest of the arguments.
    fn bound_as(&self, label: &str, grant: &Grant, request: &CallToolRequestParams) -> String {
        let arguments = request
            .arguments
            .clone()
            .map_or_else(|| serde_json::json!({}), serde_json::Value::Object);
        crate::approval::canonical_json(&serde_json::json!([
            label,
            &*self.inner.client,
            grant.tools().principal(),
            request.name,
            crate::approval::digest(&arguments),
        ]))
    }

    /// The retry of a call that was pending: opens the sealed approval, reads the
    /// user's answer, and resumes the call (once). With the response, the
    /// pending approval when the answer was a "yes": its tool may have asked
    /// the client, and the next round runs it again, as approved.
    async fn resume(
        &self,
        grant: &Grant,
        request: &CallToolRequestParams,
        sealed: &str,
    ) -> Result<(Response, Option<PendingApproval>), ErrorData> {
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
        let approves = decision == Decision::Approve;
        let response = grant
            .tools()
            .resume(&pending, decision, grant.context())
            .await;
        Ok((response, approves.then_some(pending)))
    }
}

impl McpServer {
    /// The state of the earlier rounds of a call whose tool asked the client
    /// ([`Ask`]), when the retry's `requestState` is one (sealed here, for this
    /// caller, tool and arguments); `None` for a call that brings none, or
    /// another kind (an approval's, which [`McpServer::resume`] opens, and which
    /// refuses one that is neither).
    fn open_asked(
        &self,
        grant: &Grant,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Option<AskState> {
        let sealed = request.request_state.as_deref()?;
        let codec = self.inner.request_state.as_ref()?;
        if !is_stateless_revision(context) {
            return None;
        }
        let bound = self.ask_binding(grant, request);
        codec.open_json_with(sealed, bound.as_bytes()).ok()
    }

    /// The input-required result of a run whose tool asked the client and
    /// lacks an answer: its requests, and the answers it used sealed for the
    /// next round. A refusal the tool's requests earned (a capability the
    /// client did not declare, an answer that does not fit) is the call's
    /// protocol error instead. `None`: the tool asked nothing unanswered.
    ///
    /// `approved`: the call is an approved `approve` call, whose next round
    /// runs it again as approved (kept in the sealed state).
    fn asked(
        &self,
        grant: &Grant,
        request: &CallToolRequestParams,
        resumed: Option<&AskState>,
        approved: Option<&PendingApproval>,
    ) -> Result<Option<InputRequiredResult>, ErrorData> {
        let Some(ask) = grant.context().get::<Ask>() else {
            return Ok(None);
        };
        if ask.is_ready() {
            // The call becomes a task ([`McpServer::run_call`]).
            return Ok(None);
        }
        let round = ask.take_round();
        match round.refused {
            Some(Refusal::Missing(capability)) => {
                return Err(missing_capability(capability));
            }
            Some(Refusal::Invalid(message)) => {
                return Err(ErrorData::invalid_params(message, None));
            }
            None => {}
        }
        if round.asked.is_empty() {
            return Ok(None);
        }
        let Some(codec) = &self.inner.request_state else {
            return Ok(None);
        };
        let number = resumed.map_or(0, |state| state.round).saturating_add(1);
        if number > super::ask::MAX_ROUNDS {
            return Err(ErrorData::invalid_params(
                format!(
                    "the tool asked the client for input more than {} rounds",
                    super::ask::MAX_ROUNDS
                ),
                None,
            ));
        }
        let state = AskState {
            round: number,
            answers: round.used,
            approval: approved.cloned(),
        };
        let bytes = serde_json::to_string(&state.answers).map_or(usize::MAX, |text| text.len());
        if bytes > super::ask::MAX_ANSWER_BYTES {
            return Err(ErrorData::invalid_params(
                format!(
                    "the answers this call gathered are {bytes} bytes; at most {} are kept \
                     between rounds",
                    super::ask::MAX_ANSWER_BYTES
                ),
                None,
            ));
        }
        let bound = self.ask_binding(grant, request);
        let sealed = codec
            .seal_json_with(
                &state,
                &SealOptions::new().associated_data(bound.as_bytes()),
            )
            .map_err(|error| {
                tracing::error!(%error, "could not seal a call's input round");
                ErrorData::internal_error("could not seal the requestState", None)
            })?;
        Ok(Some(InputRequiredResult::new(
            Some(round.asked),
            Some(sealed),
        )))
    }

    /// What a sealed input round is bound to: as an approval's state
    /// ([`McpServer::binding`]), under its own label, so neither opens as the
    /// other.
    fn ask_binding(&self, grant: &Grant, request: &CallToolRequestParams) -> String {
        self.bound_as("toolkit.mcp.ask.v1", grant, request)
    }
}

/// Refuses (`-32602`) answers gathered in rounds that a task could not keep
/// as its answered questions, before the task is made: more than
/// [`MAX_TASK_REQUESTS`](crate::approval::MAX_TASK_REQUESTS), or one larger
/// than [`MAX_TASK_ANSWER_BYTES`](crate::approval::MAX_TASK_ANSWER_BYTES).
fn check_gathered(
    gathered: &BTreeMap<String, (serde_json::Value, serde_json::Value)>,
) -> Result<(), ErrorData> {
    if gathered.len() > crate::approval::MAX_TASK_REQUESTS {
        return Err(ErrorData::invalid_params(
            format!(
                "the tool gathered {} answers before its task; a task keeps at most {}",
                gathered.len(),
                crate::approval::MAX_TASK_REQUESTS
            ),
            None,
        ));
    }
    for (key, (_, answer)) in gathered {
        let bytes = answer.to_string().len();
        if bytes > crate::approval::MAX_TASK_ANSWER_BYTES {
            return Err(ErrorData::invalid_params(
                format!(
                    "the answer to `{key}` is {bytes} bytes; a task keeps at most {}",
                    crate::approval::MAX_TASK_ANSWER_BYTES
                ),
                None,
            ));
        }
    }
    Ok(())
}

/// The earlier rounds of a call whose tool asked the client, sealed in its
/// `requestState`: how many, and the answers the tool used.
#[derive(serde::Serialize, serde::Deserialize)]
struct AskState {
    /// The rounds so far.
    round: u32,
    /// The answers of earlier rounds, by request key.
    answers: BTreeMap<String, serde_json::Value>,
    /// The pending approval of an `approve` call its requester's "yes" ran
    /// (or let run, as an approver decided), whose tool then asked: the next
    /// round runs it again as THE recorded decision says (the store's claim
    /// still runs it to one outcome). Sealed only after that "yes".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    approval: Option<PendingApproval>,
}

/// The answers a run of the tool has: the earlier rounds' (kept), then the
/// retry's `inputResponses` (answers to requests it makes again).
fn answers_of(
    resumed: Option<&AskState>,
    request: &CallToolRequestParams,
) -> BTreeMap<String, serde_json::Value> {
    let mut answers = resumed
        .map(|state| state.answers.clone())
        .unwrap_or_default();
    // A retry that answers a sealed approval: its `approval` answer is the
    // server's question, not the tool's.
    let approves = resumed.is_none() && request.request_state.is_some();
    if let Some(responses) = &request.input_responses {
        for (key, answer) in responses {
            if approves && key == APPROVAL_INPUT {
                continue;
            }
            answers.entry(key.clone()).or_insert_with(|| answer.clone());
        }
    }
    answers
}

/// Keeps a `tasks/update`'s answers to the questions of a task's tool (or of
/// an approved call's run, `whose`); an answer to no question, or to one
/// answered before, is ignored, as the specification asks; so is the answer
/// under `skip` (the server's own question's).
async fn keep_answers(
    approvals: &crate::approval::Approvals,
    whose: crate::approval::Asker<'_>,
    responses: &rmcp::model::InputResponses,
    skip: Option<&str>,
) -> Result<(), ErrorData> {
    let answers: Vec<(&str, &serde_json::Value)> = responses
        .iter()
        .map(|(key, answer)| (key.as_str(), answer))
        .filter(|(key, _)| Some(*key) != skip)
        .collect();
    match approvals.answer_all(whose, &answers).await {
        Ok(_) => Ok(()),
        Err(error @ crate::approval::TaskAnswerError::TooLarge(..)) => {
            Err(ErrorData::invalid_params(error.to_string(), None))
        }
        Err(error) => {
            tracing::warn!(%error, "a task's answer could not be kept");
            Err(ErrorData::internal_error(error.to_string(), None))
        }
    }
}

/// `-32021`: the tool asked for something the client did not declare it
/// answers, named under `data.requiredCapabilities`.
fn missing_capability(capability: Capability) -> ErrorData {
    ErrorData::new(
        rmcp::model::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!(
            "this tool asks the client for `{}`, a capability it did not declare",
            capability.key()
        ),
        Some(serde_json::json!({
            "requiredCapabilities": {capability.key(): {}}
        })),
    )
}

/// How a `tools/call` runs ([`McpServer::task_mode`]).
enum TaskMode {
    /// In the request, answered with its result.
    Inline,
    /// As a task, answered with its handle.
    Task,
    /// In the request while the tool asks its client (input-required rounds),
    /// then as a task once it is ready ([`Ask::ready`]): an `asks_first` tool.
    AsksFirst,
    /// Not at all: the tool must be a task, and the client takes none (`-32021`).
    Refused,
    /// Not at all: the tool must be a task, and the caller's view keeps no
    /// tasks (no approvals, so no store): `-32603`, saying so.
    NoStore,
}

/// The request methods of the protocol: rmcp parses their params into typed
/// requests, so one that reaches [`ServerHandler::on_custom_request`] has params
/// that don't fit.
/// Only the methods this server has: resources, prompts and completions are
/// not found, whatever their params.
const PROTOCOL_METHODS: [&str; 8] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "logging/setLevel",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
];

/// Methods the 2026-07-28 revision removed (no session to initialize or to keep
/// a log level in; a request carries its log level in `_meta`): not found on a
/// request of that revision, which the transport answers with HTTP 404.
const REMOVED_IN_2026_07_28: [&str; 2] = ["initialize", "logging/setLevel"];

/// What is wrong with the `taskId` of a `tasks/*` request, if anything is.
fn task_id_problem(request: &rmcp::model::CustomRequest) -> Option<String> {
    let params = request
        .params
        .as_ref()
        .and_then(serde_json::Value::as_object);
    match params.and_then(|params| params.get("taskId")) {
        Some(serde_json::Value::String(_)) => None,
        Some(_) => Some("`taskId` must be a string".to_owned()),
        None => Some("missing field `taskId`".to_owned()),
    }
}

/// `-32601 method not found`, naming the method (rmcp's wording for the methods
/// it does not route).
fn method_not_found(method: &str) -> ErrorData {
    ErrorData::new(
        rmcp::model::ErrorCode::METHOD_NOT_FOUND,
        method.to_owned(),
        None,
    )
}

/// Whether `name` is an alias (not the name) of a tool in `tools`.
fn is_alias(tools: &dyn super::ToolSet, name: &str) -> bool {
    tools.get(name).is_some_and(|tool| tool.name != name)
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

/// Whether the request may be answered with a task handle (SEP-2663): it
/// negotiated a revision the Tasks extension is defined for (2026-07-28 or
/// later) and declared the extension. A client of an earlier revision that
/// declares it anyway (its `initialize` carried the extension's key) speaks the
/// 2025-11-25 experimental tasks, whose handle has another shape: it gets the
/// plain result, as the specification asks of a client that did not declare the
/// extension ("A server MUST NOT return `CreateTaskResult` to a client that did
/// not include the extension capability on its request",
/// <https://modelcontextprotocol.github.io/ext-tasks/specification/draft/tasks.html>).
pub(super) fn declares_tasks(context: &RequestContext<RoleServer>) -> bool {
    is_stateless_revision(context)
        && context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.supports_tasks())
}

/// `-32602 invalid params`: no task of the caller's has this id (never made,
/// another principal's or view's, expired, or no id of ours).
fn no_task(task_id: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("no task `{}` here", crate::echo::echo(task_id)),
        None,
    )
}

/// `-32021 missing required client capability` unless the request
/// [declares the Tasks extension](declares_tasks): what `tasks/get`,
/// `tasks/update` and `tasks/cancel` answer a client that did not, the missing
/// capability under `data.requiredCapabilities` (SEP-2663, "Protocol Errors").
pub(super) fn tasks_declared(context: &RequestContext<RoleServer>) -> Result<(), ErrorData> {
    if declares_tasks(context) {
        return Ok(());
    }
    Err(missing_tasks_extension())
}

/// `-32603`: `tool` runs only as a task, and this server keeps no tasks for
/// the caller (it has no request-state key, or the caller's view no approvals,
/// whose store keeps tasks). Answered per call, never at start: which tools a
/// server serves is decided per caller by its views, so a program may well
/// hold such a tool and a server (a public one, say) whose views never reach
/// it; the tool never runs inside the request.
fn no_task_store(tool: &str) -> ErrorData {
    ErrorData::internal_error(
        format!(
            "`{}` runs only as a task, and this server keeps no tasks for you",
            crate::echo::echo(tool)
        ),
        None,
    )
}

/// `-32021`: the request needs the Tasks extension, which the client did not
/// declare on it (or declared for a revision that does not define it).
pub(super) fn missing_tasks_extension() -> ErrorData {
    ErrorData::new(
        rmcp::model::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!(
            "this needs the `{}` extension, declared on the request by a client of \
             revision 2026-07-28 or later",
            rmcp::model::TASKS_EXTENSION_ID
        ),
        Some(serde_json::json!({
            "requiredCapabilities": {
                "extensions": {rmcp::model::TASKS_EXTENSION_ID: {}}
            }
        })),
    )
}

/// Whether the request negotiated the stateless 2026-07-28 revision or later,
/// where list results carry caching hints.
fn is_stateless_revision(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

impl McpServer {
    /// One `tools/call`, in its span: the grant, the dispatch, and the
    /// client's cancellation of a call still running.
    async fn run_call(
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
        // Timed only for a span that records it.
        let timed = !span.is_disabled();
        async {
            let (mut grant, _) = self.grant(&context)?;
            match self.task_mode(&grant, &request, &context) {
                TaskMode::Inline => {}
                TaskMode::Refused => return Err(missing_tasks_extension()),
                TaskMode::NoStore => return Err(no_task_store(&request.name)),
                TaskMode::Task => {
                    let declared = Declared::of(context.client_capabilities().as_ref());
                    return self
                        .start_task(grant, &request, declared, BTreeMap::new())
                        .await;
                }
                TaskMode::AsksFirst => {
                    return self.ask_then_task(grant, &request, &context).await;
                }
            }
            let resumed = self.open_asked(&grant, &request, &context);
            let answers = answers_of(resumed.as_ref(), &request);
            self.equip(&mut grant, &context, answers, false);
            let started = timed.then(Instant::now);
            let mut work =
                std::pin::pin!(self.dispatch(&grant, &request, &context, resumed.as_ref()));
            // Most calls finish at their first poll, before any cancellation
            // could name them: only a call still running is registered.
            let first = std::future::poll_fn(|cx| Poll::Ready(work.as_mut().poll(cx))).await;
            let answer = match first {
                Poll::Ready(answer) => answer,
                Poll::Pending => self.run_cancellable(work, &context).await,
            };
            if let Some(started) = started {
                tracing::Span::current().record(
                    "duration_us",
                    u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
                );
            }
            answer
        }
        .instrument(span)
        .await
    }

    /// A call of an `asks_first` tool from a client that takes tasks: run in
    /// the request, answered with its input-required rounds while the tool
    /// asks; once the tool is ready ([`Ask::ready`]) with every answer, the
    /// call becomes a task that keeps the answers gathered, and its handle is
    /// the answer. A tool that ends before it is ready answers as it ended.
    async fn ask_then_task(
        &self,
        mut grant: Grant,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let resumed = self.open_asked(&grant, request, context);
        let answers = answers_of(resumed.as_ref(), request);
        self.equip(&mut grant, context, answers, true);
        let answer = self
            .run_cancellable(
                std::pin::pin!(self.dispatch(&grant, request, context, resumed.as_ref())),
                context,
            )
            .await;
        let ready = grant.context().get::<Ask>().and_then(Ask::take_ready);
        match ready {
            Some(gathered) => {
                // The task's grant, as a call that is a task at once has it:
                // nothing of this request's (its `Ask`, progress, peer).
                let (grant, _) = self.grant(context)?;
                let declared = Declared::of(context.client_capabilities().as_ref());
                self.start_task(grant, request, declared, gathered).await
            }
            None => answer,
        }
    }

    /// Finishes a call that did not finish at its first poll, unless the client
    /// cancels it first: over stateless HTTP a client's `notifications/cancelled`
    /// comes as a request of its own, which [`McpHttp`](super::McpHttp) delivers
    /// here (rmcp drops it); on any transport the client may go away.
    async fn run_cancellable(
        &self,
        work: std::pin::Pin<&mut impl Future<Output = Result<CallToolResponse, ErrorData>>>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let registration = context
            .extensions
            .get::<::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<super::cancel::Cancellable>())
            .map(|cancellable| cancellable.register(&context.id));
        let by_notification = async {
            match &registration {
                Some(registration) => registration.cancelled().await,
                None => std::future::pending().await,
            }
        };
        let cancelled = std::pin::pin!(async {
            futures_util::future::select(
                std::pin::pin!(context.ct.cancelled()),
                std::pin::pin!(by_notification),
            )
            .await;
        });
        match futures_util::future::select(work, cancelled).await {
            futures_util::future::Either::Left((answer, _)) => answer,
            // The client cancelled (`notifications/cancelled`) or went away: the
            // tool's future is dropped here, at the await it was suspended on, so
            // its destructors run and nothing after that point happens.
            futures_util::future::Either::Right(((), _)) => {
                tracing::Span::current().record("outcome", "cancelled");
                Err(ErrorData::new(
                    rmcp::model::ErrorCode(-32800),
                    "the request was cancelled",
                    None,
                ))
            }
        }
    }
}

impl ServerHandler for McpServer {
    #[allow(deprecated)] // logging: see `McpRequest`
    fn get_info(&self) -> ServerConfig {
        // Logging: tools send `notifications/message` through `McpRequest::log`.
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging();
        // Tasks (of `approve` calls and of tools declared `task = ...`), where
        // this server takes them.
        let mut capabilities = if self.inner.request_state.is_some() {
            capabilities.enable_tasks().build()
        } else {
            capabilities.build()
        };
        if self.inner.apps.is_some() {
            apps::declare(&mut capabilities);
        }
        ServerConfig::new(capabilities).with_server_info(self.inner.implementation.clone())
    }

    /// Kept for the session (stdio; an HTTP connection with sessions): log
    /// messages less severe than `level` are no longer sent. The 2026-07-28
    /// revision removed the method.
    #[allow(deprecated)] // logging: see `McpRequest`
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if is_stateless_revision(&context) {
            return Err(method_not_found("logging/setLevel"));
        }
        self.log_level.store(
            super::request::level_rank(request.level),
            std::sync::atomic::Ordering::Relaxed,
        );
        Ok(())
    }

    /// rmcp hands over a request whose params don't fit the method's type as a
    /// custom request: a method of the protocol with bad params is `-32602 invalid
    /// params` (JSON-RPC's code for it), not `-32601 method not found`.
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        let method = request.method.as_str();
        if !PROTOCOL_METHODS.contains(&method)
            || is_stateless_revision(&context) && REMOVED_IN_2026_07_28.contains(&method)
        {
            return Err(method_not_found(method));
        }
        let problem = match request.method.as_str() {
            "tools/call" => request
                .params_as::<CallToolRequestParams>()
                .err()
                .map(|error| error.to_string()),
            "tasks/get" => task_id_problem(&request).or_else(|| {
                request
                    .params_as::<rmcp::model::GetTaskParams>()
                    .err()
                    .map(|error| error.to_string())
            }),
            "tasks/update" => task_id_problem(&request).or_else(|| {
                request
                    .params_as::<rmcp::model::UpdateTaskParams>()
                    .err()
                    .map(|error| error.to_string())
            }),
            "tasks/cancel" => task_id_problem(&request).or_else(|| {
                request
                    .params_as::<rmcp::model::CancelTaskParams>()
                    .err()
                    .map(|error| error.to_string())
            }),
            _ => None,
        };
        let message = match problem {
            Some(problem) => format!("invalid params for `{}`: {problem}", request.method),
            None => format!("invalid params for `{}`", request.method),
        };
        Err(ErrorData::invalid_params(message, None))
    }

    /// A task (an `approve` call) of the caller's principal, from the approval
    /// store: any replica answers. A task found approved and not run is run here,
    /// in the background, once across the fleet.
    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        tasks_declared(&context)?;
        let (grant, _) = self.grant(&context)?;
        if super::task::is_run(&request.task_id) {
            let Some((approvals, status)) = super::task::find_run(&grant, &request.task_id).await?
            else {
                return Err(no_task(&request.task_id));
            };
            let mut task = super::task::detailed_run(&status);
            let meta = super::task::run_meta(&status);
            if let Some(waiting) = super::task::waiting_on(approvals, &status).await? {
                task = super::task::asking(task, &status.record.tool, waiting);
            }
            // Nobody runs it (its replica died, or it never started): run here,
            // once across the fleet (the store's claim decides who).
            if matches!(status.state, crate::approval::TaskState::Unclaimed { .. }) {
                let declared = Declared::of(context.client_capabilities().as_ref());
                super::task::run_in_background(grant, status.record, declared, false);
            }
            let mut result = rmcp::model::GetTaskResult::new(task);
            result.meta = meta;
            return Ok(result);
        }
        let Some((approvals, status)) = super::task::find(&grant, &request.task_id).await? else {
            return Err(no_task(&request.task_id));
        };
        let mut task = super::task::detailed(&status);
        // Its approved run waits for the client's answer: the task asks it.
        if let Some(waiting) = super::task::call_waiting_on(approvals, &status).await? {
            task = super::task::asking(task, &status.pending.tool, waiting);
        }
        if status.state == crate::approval::CallState::Approved {
            let declared = Declared::of(context.client_capabilities().as_ref());
            super::task::in_background(grant, status.pending, None, declared);
        }
        Ok(rmcp::model::GetTaskResult::new(task))
    }

    /// The requester's answer to a task's approval question: a "yes" where the
    /// policy lets it decide, a "no" always (recorded, so the call never runs,
    /// whoever approves it); the next `tasks/get` tells. Answers to nothing
    /// outstanding are ignored.
    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        tasks_declared(&context)?;
        let (grant, _) = self.grant(&context)?;
        if super::task::is_run(&request.task_id) {
            let Some((approvals, status)) = super::task::find_run(&grant, &request.task_id).await?
            else {
                return Err(no_task(&request.task_id));
            };
            // Each answer is kept for the request its tool made; an answer to
            // no request of the task, or to one answered before, is ignored,
            // as the specification asks.
            return keep_answers(
                approvals,
                crate::approval::Asker::task(&status.record),
                &request.input_responses,
                None,
            )
            .await;
        }
        let Some((approvals, status)) = super::task::find(&grant, &request.task_id).await? else {
            return Err(no_task(&request.task_id));
        };
        // Answers to the questions its approved run asks (any key but the
        // approval's), kept as a task's are.
        keep_answers(
            approvals,
            approvals.call_asker(&status.pending),
            &request.input_responses,
            Some(APPROVAL_INPUT),
        )
        .await?;
        let Some(decision) = super::task::answer(&request.input_responses) else {
            return Ok(());
        };
        let asked = status.state
            == crate::approval::CallState::Waiting {
                requester_decides: true,
            };
        // The requester's "no" is recorded whoever else decides and whatever the
        // policy lets the requester decide, as its elicitation answer is: a call
        // its requester declined never runs. A "yes" counts only where asked.
        let declines = matches!(decision, Decision::Deny(_));
        if asked || (declines && !status.state.is_final()) {
            let declared = Declared::of(context.client_capabilities().as_ref());
            super::task::in_background(grant, status.pending, Some(decision), declared);
        }
        Ok(())
    }

    /// Withdraws a task's call unless it ran or runs now, or stops its run; the
    /// next `tasks/get` tells. An id that is no task of the caller's (unknown,
    /// another principal's, beyond its view) is `-32602 no task .. here`, as the
    /// extension asks and as `tasks/get` answers, whichever kind of id it is.
    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        tasks_declared(&context)?;
        let (grant, _) = self.grant(&context)?;
        if super::task::is_run(&request.task_id) {
            let Some((approvals, status)) = super::task::find_run(&grant, &request.task_id).await?
            else {
                return Err(no_task(&request.task_id));
            };
            // Over already (its tool answered first): acknowledged, and it stays
            // as it ended; the next `tasks/get` tells.
            if let Err(error) = approvals
                .cancel_task(&status.record.principal, &status.record.id)
                .await
            {
                tracing::warn!(%error, "a task could not be cancelled");
                return Err(ErrorData::internal_error(
                    crate::error::ToolError::from(error).to_string(),
                    None,
                ));
            }
            return Ok(());
        }
        let Some((approvals, status)) = super::task::find(&grant, &request.task_id).await? else {
            return Err(no_task(&request.task_id));
        };
        if let Err(error) = approvals.withdraw(&status.pending).await {
            tracing::warn!(%error, "a task could not be withdrawn");
            return Err(ErrorData::internal_error(
                crate::error::ToolError::from(error).to_string(),
                None,
            ));
        }
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let span = tracing::info_span!("mcp.request", method = "tools/list", client = %self.inner.client, tools = tracing::field::Empty);
        let _entered = span.enter();
        let (grant, credentials) = self.grant(&context)?;
        let mut tools: Vec<rmcp::model::Tool> = grant
            .tools()
            .tools()
            .filter_map(|tool| self.entry(tool))
            .collect();
        if let Some(apps) = AppsOn::of(self.inner.apps.as_ref(), &context) {
            apps::list_tools(apps, &grant, &mut tools);
        }
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

    /// The MCP Apps cards of the caller's tools, for a client that declared the
    /// extension (none for others); not found on a server without Apps.
    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, ErrorData> {
        if self.inner.apps.is_none() {
            return Err(method_not_found("resources/list"));
        }
        let (grant, _) = self.grant(&context)?;
        let apps = AppsOn::of(self.inner.apps.as_ref(), &context);
        Ok(rmcp::model::ListResourcesResult::with_all_items(
            apps::list_resources(apps, &grant),
        ))
    }

    /// One MCP Apps card of the caller's tools.
    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        if self.inner.apps.is_none() {
            return Err(method_not_found("resources/read"));
        }
        let (grant, _) = self.grant(&context)?;
        let apps = AppsOn::of(self.inner.apps.as_ref(), &context);
        apps::read_resource(apps, &grant, &request.uri).map(Into::into)
    }

    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + Send + '_ {
        // Boxed: rmcp holds every handler's future in one per-request value the
        // size of the largest, moved into the tasks it spawns, so the call's
        // state (the grant, approvals, elicitation) inline would be copied on
        // every request, `tools/list` too.
        Box::pin(self.run_call(request, context))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ToolError;
    use serde_json::json;

    /// `render_result`'s MCP dialect (for applications that relay results
    /// themselves) is what this server sends.
    #[test]
    fn the_mcp_dialect_is_the_servers_result() {
        use crate::content::{Audio, Contents, EmbeddedResource, Image, ResourceLink};
        let rich = Contents::new()
            .text("Sales:")
            .image(Image::new("UE5H", "image/png"))
            .audio(Audio::new("UklGRg==", "audio/wav"))
            .resource_link(ResourceLink::new("file:///q3.csv", "q3.csv"))
            .resource(EmbeddedResource::blob(
                "file:///q3.pdf",
                "application/pdf",
                "JVBERg==",
            ))
            .structured(json!({"total": 3}));
        let preview = crate::preview::Preview::new("Delete 2 tasks")
            .item("task 1")
            .item("task 2");
        for response in [
            Response::Result(serde_json::to_value(&rich).unwrap()),
            Response::Result(json!({"id": 7})),
            Response::Result(json!("line one\nsaid \"two\"")),
            Response::Error(ToolError::failed("no such task")),
            Response::Preview(preview),
        ] {
            let mut sent = serde_json::to_value(call_result(response.clone())).unwrap();
            if let serde_json::Value::Object(sent) = &mut sent {
                sent.remove("resultType");
            }
            let rendered = crate::render::render_result(Dialect::Mcp, "call_1", "t", &response);
            assert_eq!(rendered.message, sent);
        }
    }

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

    /// An array is structured content as it is (2026-07-28 allows any JSON
    /// value; rmcp drops it for older clients, see `plain_result`).
    #[test]
    fn an_array_result_is_structured_content_and_its_text() {
        let result = call_result(Response::Result(json!([{"id": 1}, 2])));
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            json!({
                "resultType": "complete",
                "content": [{"type": "text", "text": "[{\"id\":1},2]"}],
                "structuredContent": [{"id": 1}, 2],
                "isError": false,
            })
        );
    }

    /// A string result is its own text (newlines and quotes as they are), with
    /// no `structuredContent` (an object in MCP).
    #[test]
    fn a_plain_string_is_its_own_text_and_no_structured_content() {
        let result = call_result(Response::Result(json!("line one\nsaid \"two\"")));
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            json!({
                "resultType": "complete",
                "content": [{"type": "text", "text": "line one\nsaid \"two\""}],
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
                "isError": true,
                "_meta": {"toolkit/error": {"kind": "failed", "message": "no task with id 7"}},
            })
        );
    }

    #[test]
    fn a_preview_is_flagged_and_carries_no_structured_content() {
        let mut preview = crate::preview::Preview::new("Delete 1 task?");
        preview.items.push(json!({"id": 7}));
        let result = call_result(Response::Preview(preview));
        let body = json!({"requires_confirmation": true, "message": "Delete 1 task?", "items": [{"id": 7}]});
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            json!({
                "resultType": "complete",
                "content": [{"type": "text", "text": body.to_string()}],
                "isError": true,
                "_meta": {"toolkit/preview": body},
            })
        );
    }
}

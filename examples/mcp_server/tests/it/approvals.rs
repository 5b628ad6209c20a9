//! `approve` over MCP: the 2026-07-28 input-required result with a sealed
//! `requestState`, answered by the client's user, run once; MCP Tasks (SEP-2663)
//! for clients that declare them, polled to the outcome; and two server processes
//! sharing one SQLite approval store.

use crate::common;

use std::collections::BTreeMap;
use std::io::BufRead as _;
use std::process::{Child, Command, Stdio};

use common::{call, stateless, text};
use example_assistant::AssistantState;
use example_mcp_server::Settings;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    CreateTaskResult, ElicitRequestParams, ElicitResult, ElicitationAction, ErrorCode,
    GetTaskParams, GetTaskResult, Implementation, InputRequiredResult, ProtocolVersion, TaskStatus,
    UpdateTaskParams,
};
use rmcp::service::{RequestContext, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt as _, ErrorData, RoleClient};
use serde_json::json;

/// A principal the test application names.
fn p(name: &str) -> toolkit::Principal {
    toolkit::Principal::local(name).expect("a principal")
}

/// A client whose user accepts (or declines) every approval it is asked for.
#[derive(Clone)]
struct User {
    accepts: bool,
}

impl ClientHandler for User {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("approval-test", "0.0.0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams { message, .. } = &request else {
            panic!("an approval is a form: {request:?}");
        };
        assert_eq!(
            message,
            r#"Allow `delete_memories` to run with {"ids":[1]}? It has not run yet."#
        );
        Ok(ElicitResult::new(if self.accepts {
            ElicitationAction::Accept
        } else {
            ElicitationAction::Decline
        }))
    }
}

async fn connect(
    url: &str,
    user: User,
    lifecycle: ClientLifecycleMode,
) -> RunningService<RoleClient, User> {
    let config =
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header("internal-token");
    user.serve_with_lifecycle(
        StreamableHttpClientTransport::from_config(config),
        lifecycle,
    )
    .await
    .unwrap()
}

async fn serve_in_process() -> String {
    serve_with(Settings::ephemeral().unwrap()).await
}

async fn serve_with(settings: Settings) -> String {
    let router = example_mcp_server::http_router(
        AssistantState::new(),
        settings,
        ["internal-token", "copilot-token", "external-token"],
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}/mcp/internal")
}

async fn remember<C: ClientHandler>(client: &RunningService<RoleClient, C>) {
    let created = client
        .call_tool(call(
            "create_memories",
            json!({"memories": [{"content": "Ada takes her tea black"}]}),
        ))
        .await
        .unwrap();
    assert_eq!(created.is_error, Some(false), "{created:?}");
}

fn forget() -> CallToolRequestParams {
    call("delete_memories", json!({"ids": [1]}))
}

async fn ask(client: &RunningService<RoleClient, User>) -> InputRequiredResult {
    match client.call_tool_once(forget()).await.unwrap() {
        CallToolResponse::InputRequired(input) => input,
        other => panic!("an approve tool asks first: {other:?}"),
    }
}

fn answer(input: &InputRequiredResult, action: &str) -> CallToolRequestParams {
    let mut retry = forget();
    retry.request_state.clone_from(&input.request_state);
    retry.input_responses = Some(BTreeMap::from([(
        "approval".to_owned(),
        json!({"action": action}),
    )]));
    retry
}

async fn complete(
    client: &RunningService<RoleClient, User>,
    params: CallToolRequestParams,
) -> rmcp::model::CallToolResult {
    match client.call_tool_once(params).await.unwrap() {
        CallToolResponse::Complete(result) => result,
        other => panic!("the retry completes: {other:?}"),
    }
}

#[tokio::test]
async fn the_users_approval_runs_the_tool_and_a_decline_does_not() {
    let url = serve_in_process().await;
    let user = connect(&url, User { accepts: true }, stateless()).await;
    remember(&user).await;
    // rmcp's client drives the input-required round itself.
    let deleted = user.call_tool(forget()).await.unwrap();
    assert_eq!(deleted.is_error, Some(false), "{deleted:?}");
    let gone = user
        .call_tool(call("get_memories", json!({"id": 1})))
        .await
        .unwrap();
    assert_eq!(text(&gone), "no memory with id 1");

    let url = serve_in_process().await;
    let refuser = connect(&url, User { accepts: false }, stateless()).await;
    remember(&refuser).await;
    let denied = refuser.call_tool(forget()).await.unwrap();
    assert_eq!(denied.is_error, Some(true));
    assert_eq!(text(&denied), common_denied());
    let kept = refuser
        .call_tool(call("get_memories", json!({"id": 1})))
        .await
        .unwrap();
    assert_eq!(
        kept.structured_content
            .as_ref()
            .and_then(|memories| memories.as_array())
            .map(Vec::len),
        Some(1)
    );
}

/// What a replay of a call that ran is told: that it ran, with its result.
fn already_ran() -> String {
    toolkit::ToolError::AlreadyRan {
        outcome: r#"with the result {"deleted":[1]}"#.to_owned(),
    }
    .to_string()
}

/// A 2025-11-25 client over a transport that carries its answers (stdio here):
/// the pending approval is asked of its user with `elicitation/create` in the same
/// request, and the answer resumes the call through the signed, claimed path.
#[tokio::test]
async fn a_handshake_client_that_elicits_is_asked_in_the_same_request() {
    for accepts in [true, false] {
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        let server = example_mcp_server::stdio_server(
            "internal",
            AssistantState::new(),
            Settings::ephemeral().unwrap(),
        );
        tokio::spawn(async move {
            if let Ok(running) = rmcp::ServiceExt::serve(server, server_io).await {
                let _ = running.waiting().await;
            }
        });
        let client = User { accepts }
            .serve_with_lifecycle(client_io, ClientLifecycleMode::Initialize)
            .await
            .unwrap();
        remember(&client).await;
        let result = client.call_tool(forget()).await.unwrap();
        let after = client
            .call_tool(call("get_memories", json!({"id": 1})))
            .await
            .unwrap();
        if accepts {
            assert_eq!(result.is_error, Some(false), "{result:?}");
            assert_eq!(result.structured_content, Some(json!({"deleted": [1]})));
            assert_eq!(text(&after), "no memory with id 1");
        } else {
            assert_eq!(result.is_error, Some(true), "{result:?}");
            assert_eq!(text(&result), common_denied());
            assert_eq!(after.is_error, Some(false), "{after:?}");
        }
    }
}

fn common_denied() -> String {
    toolkit::ToolError::Denied {
        message: "the user declined the call".to_owned(),
    }
    .to_string()
}

#[tokio::test]
async fn an_approval_runs_once_and_binds_its_arguments() {
    let url = serve_in_process().await;
    let client = connect(&url, User { accepts: true }, stateless()).await;
    remember(&client).await;
    let input = ask(&client).await;
    let question = serde_json::to_value(&input.input_requests).unwrap();
    assert_eq!(question["approval"]["method"], "elicitation/create");

    let first = complete(&client, answer(&input, "accept")).await;
    assert_eq!(first.is_error, Some(false), "{first:?}");
    let replay = complete(&client, answer(&input, "accept")).await;
    assert_eq!(replay.is_error, Some(true));
    assert_eq!(text(&replay), already_ran());

    // The sealed state is bound to the arguments it was issued for.
    let input = ask(&client).await;
    let mut other = answer(&input, "accept");
    other.arguments = Some(json!({"ids": [2]}).as_object().unwrap().clone());
    let refused = client.call_tool_once(other).await.unwrap_err();
    let ServiceError::McpError(error) = refused else {
        panic!("a protocol error: {refused:?}");
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    // Without the user's answer there is nothing to resume.
    let unanswered = {
        let mut retry = answer(&input, "accept");
        retry.input_responses = None;
        client.call_tool_once(retry).await.unwrap_err()
    };
    assert!(
        matches!(unanswered, ServiceError::McpError(ref error) if error.code == ErrorCode::INVALID_PARAMS)
    );
}

#[tokio::test]
async fn an_older_client_gets_the_pending_approval_as_the_result() {
    let url = serve_in_process().await;
    let client = connect(
        &url,
        User { accepts: true },
        ClientLifecycleMode::Initialize,
    )
    .await;
    remember(&client).await;
    let pending = client.call_tool(forget()).await.unwrap();
    // The tool has not run: an error result, so its output schema is not applied.
    assert_eq!(pending.is_error, Some(true));
    assert_eq!(
        text(&pending),
        "`delete_memories` waits for a person's approval; it has not run"
    );
    // No structured content: it would have to match the tool's output schema.
    assert_eq!(pending.structured_content, None);
    let meta = pending.meta.unwrap();
    let body = &meta.0[toolkit::mcp::META_PENDING_APPROVAL];
    assert_eq!(body["tool"], "delete_memories");
    assert_eq!(body["principal"], "local|internal");
    assert_eq!(body["arguments"], json!({"ids": [1]}));
}

/// A server process of the example, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The keys every process sharing a store is given (test values).
const SHARED_APPROVAL_KEY: &str = "approval key shared by the test processes";
const SHARED_REQUEST_STATE_KEY: &str = "request-state key shared by the test processes";

#[test]
fn a_shared_store_without_shared_keys_refuses_to_start() {
    let store = std::env::temp_dir().join(format!("mcp-no-keys-{}.sqlite3", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_mcp_server"))
        .args(["http", "--addr", "127.0.0.1:0", "--approvals-db"])
        .arg(&store)
        .env("MCP_TOKEN_INTERNAL", "internal-token")
        .env_remove("MCP_APPROVAL_KEY")
        .env("MCP_REQUEST_STATE_KEY", SHARED_REQUEST_STATE_KEY)
        .output()
        .expect("the example binary runs");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr).trim_end(),
        "mcp_server: --approvals-db needs MCP_APPROVAL_KEY, the same in every process sharing \
         the store (at least 32 bytes; `openssl rand -hex 32` makes one)"
    );
    assert!(output.stdout.is_empty());
    let short = Command::new(env!("CARGO_BIN_EXE_mcp_server"))
        .args(["stdio"])
        .env("MCP_APPROVAL_KEY", "short")
        .output()
        .expect("the example binary runs");
    assert_eq!(short.status.code(), Some(2));
    let _ = std::fs::remove_file(&store);
}

fn start_process(store: &std::path::Path) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp_server"))
        .args(["http", "--addr", "127.0.0.1:0", "--approvals-db"])
        .arg(store)
        .env("MCP_TOKEN_INTERNAL", "internal-token")
        .env("MCP_APPROVAL_KEY", SHARED_APPROVAL_KEY)
        .env("MCP_REQUEST_STATE_KEY", SHARED_REQUEST_STATE_KEY)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the example binary starts");
    let stdout = child.stdout.take().expect("piped");
    // Held before anything can fail: a server that never says where it listens is
    // stopped too, not left serving.
    let mut server = Server {
        child,
        url: String::new(),
    };
    let mut line = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .unwrap();
    let base = line
        .trim()
        .strip_prefix("listening on ")
        .expect("the address line");
    server.url = format!("{base}/mcp/internal");
    server
}

#[tokio::test]
async fn two_processes_share_one_approval_store_and_the_tool_runs_once() {
    let store = std::env::temp_dir().join(format!(
        "toolkit-mcp-approvals-{}.sqlite3",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&store);
    let (a, b) = (start_process(&store), start_process(&store));
    let on_a = connect(&a.url, User { accepts: true }, stateless()).await;
    let on_b = connect(&b.url, User { accepts: true }, stateless()).await;
    // Each process has its own stores: give both the memory to delete.
    remember(&on_a).await;
    remember(&on_b).await;

    // Asked on A, approved and resumed on B: it runs there.
    let input = ask(&on_a).await;
    let resumed = complete(&on_b, answer(&input, "accept")).await;
    assert_eq!(resumed.is_error, Some(false), "{resumed:?}");
    assert_eq!(resumed.structured_content, Some(json!({"deleted": [1]})));
    // Replayed on A (or B): refused by the shared store, nothing runs.
    for client in [&on_a, &on_b] {
        let replay = complete(client, answer(&input, "accept")).await;
        assert_eq!(text(&replay), already_ran());
    }
    let on_a_still = on_a
        .call_tool(call("get_memories", json!({"id": 1})))
        .await
        .unwrap();
    assert_eq!(
        on_a_still
            .structured_content
            .as_ref()
            .and_then(|m| m.as_array())
            .map(Vec::len),
        Some(1)
    );
    drop((a, b));
    let _ = std::fs::remove_file(&store);
}

/// A client that declares the MCP Tasks extension (SEP-2663) on its calls, and
/// elicitation; it is never asked anything in the same request.
#[derive(Clone)]
struct TaskClient;

impl ClientHandler for TaskClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder()
                .enable_elicitation()
                .enable_tasks()
                .build(),
            Implementation::new("task-test", "0.0.0"),
        )
    }
}

async fn connect_tasks(url: &str) -> RunningService<RoleClient, TaskClient> {
    let token = if url.ends_with("/copilot") {
        "copilot-token"
    } else {
        "internal-token"
    };
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token);
    TaskClient
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(config),
            stateless(),
        )
        .await
        .unwrap()
}

async fn task_of(client: &RunningService<RoleClient, TaskClient>) -> CreateTaskResult {
    match client.call_tool_once(forget()).await.unwrap() {
        CallToolResponse::Task(task) => task,
        other => panic!("a client with tasks gets a task: {other:?}"),
    }
}

async fn get_task(client: &RunningService<RoleClient, TaskClient>, id: &str) -> GetTaskResult {
    client.get_task(GetTaskParams::new(id)).await.unwrap()
}

/// Polls task `id` until it is `status` (five seconds at most).
async fn poll(
    client: &RunningService<RoleClient, TaskClient>,
    id: &str,
    status: TaskStatus,
) -> serde_json::Value {
    for _ in 0..100 {
        let task = get_task(client, id).await;
        if task.task.status() == status {
            return without_times(&task);
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!(
        "task {id} never became {status:?}: {:?}",
        get_task(client, id).await
    );
}

/// A task's JSON without its two timestamps (checked to be ISO 8601 UTC).
fn without_times(task: &impl serde::Serialize) -> serde_json::Value {
    let mut json = serde_json::to_value(task).unwrap();
    for key in ["createdAt", "lastUpdatedAt"] {
        let time = json[key].as_str().unwrap().to_owned();
        assert!(
            time.len() == 20 && time.ends_with('Z') && time.as_bytes()[10] == b'T',
            "{key}: {time}"
        );
        json.as_object_mut().unwrap().remove(key);
    }
    json
}

async fn memories<C: ClientHandler>(client: &RunningService<RoleClient, C>) -> usize {
    let got = client
        .call_tool(call("get_memories", json!({})))
        .await
        .unwrap();
    got.structured_content
        .as_ref()
        .and_then(|memories| memories.as_array())
        .map_or(0, Vec::len)
}

fn accept() -> BTreeMap<String, serde_json::Value> {
    BTreeMap::from([("approval".to_owned(), json!({"action": "accept"}))])
}

fn decline() -> BTreeMap<String, serde_json::Value> {
    BTreeMap::from([("approval".to_owned(), json!({"action": "decline"}))])
}

/// Over HTTP too, a client of the 2025-11-25 handshake that declares the Tasks
/// extension gets the plain result of an `approve` call (the pending approval),
/// never a 2026-07-28 task handle, and its `tasks/get` is `-32021`.
#[tokio::test]
async fn a_handshake_client_declaring_tasks_gets_no_task_over_http() {
    let url = serve_in_process().await;
    let config =
        StreamableHttpClientTransportConfig::with_uri(url.clone()).auth_header("internal-token");
    let client = TaskClient
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(config),
            ClientLifecycleMode::Initialize,
        )
        .await
        .unwrap();
    assert_eq!(
        client.peer_info().map(|info| info.protocol_version.clone()),
        Some(ProtocolVersion::V_2025_11_25)
    );
    remember(&client).await;
    let answer = client.call_tool_once(forget()).await.unwrap();
    let CallToolResponse::Complete(result) = answer else {
        panic!("a 2025-11-25 client gets no task handle: {answer:?}");
    };
    assert_eq!(
        text(&result),
        "`delete_memories` waits for a person's approval; it has not run"
    );
    let call_id = result.meta.as_ref().unwrap().0["toolkit/pending_approval"]["call_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let refused = client
        .get_task(GetTaskParams::new(&call_id))
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, ServiceError::McpError(error)
            if error.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY),
        "{refused:?}"
    );
    // Nothing ran: the memory is still there (a 2025-11-25 result carries no
    // array as structured content, so its text is read).
    let kept = client
        .call_tool(call("get_memories", json!({"id": 1})))
        .await
        .unwrap();
    assert!(text(&kept).contains("Ada takes her tea black"), "{kept:?}");
}

/// A tool declared `task = optional` (`search_gmail`) answers a client with tasks
/// with a task, polled to its result; another principal (the copilot endpoint's)
/// reads nothing of it and cancels nothing, whatever it knows of the id.
#[tokio::test]
async fn a_task_of_a_plain_tool_is_its_principals_alone() {
    let url = serve_in_process().await;
    let client = connect_tasks(&url).await;
    let created = match client
        .call_tool_once(call("search_gmail", json!({"query": "no such words"})))
        .await
        .unwrap()
    {
        CallToolResponse::Task(created) => created,
        other => panic!("a task tool answers a task client with a task: {other:?}"),
    };
    let id = created.task.task_id.clone();
    assert!(id.starts_with("task_"), "{id}");
    let done = poll(&client, &id, TaskStatus::Completed).await;
    assert_eq!(
        done["result"],
        json!({"resultType": "complete", "content": [{"type": "text", "text": "[]"}], "structuredContent": [], "isError": false})
    );

    let other = connect_tasks(&url.replace("/internal", "/copilot")).await;
    let refused = other.get_task(GetTaskParams::new(&id)).await.unwrap_err();
    assert!(
        matches!(&refused, ServiceError::McpError(error)
            if error.code == ErrorCode::INVALID_PARAMS && error.message == format!("no task `{id}` here")),
        "{refused:?}"
    );
    let refused = other
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, ServiceError::McpError(error) if error.code == ErrorCode::INVALID_PARAMS),
        "{refused:?}"
    );
    assert_eq!(poll(&client, &id, TaskStatus::Completed).await, done);
}

/// 24 hours to decide and 15 minutes to run it after: the task is kept that long.
const TASK_TTL_MS: u64 = (24 * 60 + 15) * 60 * 1000;

/// A client that declared the tasks extension gets a task for an `approve` call;
/// where the policy lets its user decide, the task asks them (`input_required`),
/// their answer comes with `tasks/update`, and the task is `completed` with the
/// tool's result, as `tools/call` would have answered it. Another principal's
/// `tasks/get` of the same id finds nothing.
#[tokio::test]
async fn a_client_with_tasks_answers_its_approval_and_polls_the_result() {
    let url = serve_in_process().await;
    let client = connect_tasks(&url).await;
    remember(&client).await;
    let created = task_of(&client).await;
    let id = created.task.task_id.clone();
    assert!(id.starts_with("approval_"), "{id}");
    assert_eq!(
        without_times(&created),
        json!({
            "resultType": "task",
            "taskId": id,
            "status": "input_required",
            "statusMessage": "`delete_memories` waits for your approval; it has not run",
            "ttlMs": TASK_TTL_MS,
            "pollIntervalMs": 5000,
        })
    );
    let asked = without_times(&get_task(&client, &id).await);
    assert_eq!(asked["resultType"], "complete");
    assert_eq!(asked["status"], "input_required");
    assert_eq!(
        asked["inputRequests"]["approval"]["method"],
        "elicitation/create"
    );
    assert_eq!(
        asked["inputRequests"]["approval"]["params"]["message"],
        r#"Allow `delete_memories` to run with {"ids":[1]}? It has not run yet."#
    );
    assert_eq!(memories(&client).await, 1, "nothing ran yet");

    client
        .update_task(UpdateTaskParams::new(&id, accept()))
        .await
        .unwrap();
    let done = poll(&client, &id, TaskStatus::Completed).await;
    assert_eq!(
        done,
        json!({
            "resultType": "complete",
            "taskId": id,
            "status": "completed",
            "statusMessage": "`delete_memories` ran",
            "ttlMs": TASK_TTL_MS,
            "pollIntervalMs": 1000,
            "result": {
                "resultType": "complete",
                "content": [{"type": "text", "text": "{\"deleted\":[1]}"}],
                "structuredContent": {"deleted": [1]},
                "isError": false,
            },
        })
    );
    assert_eq!(memories(&client).await, 0);
    // A second answer runs nothing: the task stays as it ended.
    client
        .update_task(UpdateTaskParams::new(&id, accept()))
        .await
        .unwrap();
    assert_eq!(poll(&client, &id, TaskStatus::Completed).await, done);

    // The copilot endpoint's principal is another: no such task there.
    let other = connect_tasks(&url.replace("/internal", "/copilot")).await;
    let refused = other.get_task(GetTaskParams::new(&id)).await.unwrap_err();
    assert!(
        matches!(&refused, ServiceError::McpError(error)
            if error.code == ErrorCode::INVALID_PARAMS && error.message == format!("no task `{id}` here")),
        "{refused:?}"
    );
}

/// Where the policy leaves the call to an approver, the task waits for them
/// (`input_required` with nothing to answer: the user's "yes" decides nothing),
/// and the approver's decision, made elsewhere, moves it: approved, the next poll
/// runs it and the task completes; denied, it fails with the reason; withdrawn
/// with `tasks/cancel`, it is cancelled and an approver's later "yes" runs nothing.
#[tokio::test]
async fn a_task_an_approver_decides_completes_fails_or_is_cancelled() {
    let settings = Settings::ephemeral().unwrap();
    let approvals = toolkit::approval::Approvals::new(
        toolkit::approval::ApprovalKey::new(example_mcp_server::random_secret().unwrap()).unwrap(),
        toolkit::approval::MemoryApprovalStore::new(),
    )
    .policy(toolkit::approval::Deciders::others());
    let approvals: &'static toolkit::approval::Approvals = Box::leak(Box::new(approvals));
    let url = serve_with(Settings {
        approvals,
        ..settings
    })
    .await;
    let client = connect_tasks(&url).await;
    remember(&client).await;
    let pending = |id: String| async move {
        approvals
            .status(&p("internal"), &id)
            .await
            .unwrap()
            .expect("stored")
            .pending
    };
    let decide = |id: String, decision: toolkit::approval::Decision| async move {
        approvals
            .decide_as(
                toolkit::registry(),
                &pending(id).await,
                decision,
                &p("operator"),
            )
            .await
    };

    let created = task_of(&client).await;
    let id = created.task.task_id.clone();
    let waiting = without_times(&get_task(&client, &id).await);
    assert_eq!(
        waiting,
        json!({
            "resultType": "complete",
            "taskId": id,
            "status": "input_required",
            "statusMessage": "`delete_memories` waits for an approver's decision; it has not run, and runs once they approve it",
            "ttlMs": TASK_TTL_MS,
            "pollIntervalMs": 5000,
            "inputRequests": {},
        })
    );
    // The requester's own "yes" is no decision here.
    client
        .update_task(UpdateTaskParams::new(&id, accept()))
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(without_times(&get_task(&client, &id).await), waiting);
    assert_eq!(memories(&client).await, 1);
    // The operator approves (in the inbox, which decides through the same call).
    decide(id.clone(), toolkit::approval::Decision::Approve)
        .await
        .unwrap();
    let done = poll(&client, &id, TaskStatus::Completed).await;
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"deleted": [1]}),
        "{done}"
    );
    assert_eq!(memories(&client).await, 0);

    remember(&client).await;
    let denied = task_of(&client).await.task.task_id;
    decide(
        denied.clone(),
        toolkit::approval::Decision::Deny("not that memory".to_owned()),
    )
    .await
    .unwrap();
    let reason = "a human denied this call: not that memory";
    assert_eq!(
        poll(&client, &denied, TaskStatus::Failed).await,
        json!({
            "resultType": "complete",
            "taskId": denied,
            "status": "failed",
            "statusMessage": reason,
            "ttlMs": TASK_TTL_MS,
            "pollIntervalMs": 1000,
            "error": {
                "code": -32603,
                "message": reason,
                "data": {"kind": "denied", "message": reason},
            },
        })
    );

    let cancelled = task_of(&client).await.task.task_id;
    client
        .cancel_task(CancelTaskParams::new(&cancelled))
        .await
        .unwrap();
    let seen = poll(&client, &cancelled, TaskStatus::Cancelled).await;
    assert_eq!(
        seen["statusMessage"],
        "`delete_memories` was withdrawn before it ran"
    );
    assert!(matches!(
        decide(cancelled.clone(), toolkit::approval::Decision::Approve).await,
        Err(toolkit::approval::ApprovalError::AlreadyDecided(_))
    ));
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(poll(&client, &cancelled, TaskStatus::Cancelled).await, seen);

    // The requester's own "no" is recorded, though the policy leaves the call to
    // an approver: the operator's later "yes" finds it decided, and nothing runs.
    let declined = task_of(&client).await.task.task_id;
    client
        .update_task(UpdateTaskParams::new(&declined, decline()))
        .await
        .unwrap();
    let told = poll(&client, &declined, TaskStatus::Failed).await;
    assert_eq!(
        told["statusMessage"], "a human denied this call: the user declined the call",
        "{told}"
    );
    assert!(matches!(
        decide(declined.clone(), toolkit::approval::Decision::Approve).await,
        Err(toolkit::approval::ApprovalError::AlreadyDecided(_))
    ));
    assert_eq!(
        memories(&client).await,
        1,
        "neither the denied, the cancelled nor the declined call ran"
    );
    // `tasks/cancel` of an unknown task is refused as `tasks/get` of it is.
    for refused in [
        client
            .cancel_task(CancelTaskParams::new("approval_none"))
            .await,
        client
            .get_task(GetTaskParams::new("approval_none"))
            .await
            .map(|_| ()),
    ] {
        assert_eq!(
            refused.unwrap_err().to_string(),
            "Mcp error: -32602: no task `approval_none` here"
        );
    }
}

/// Two processes sharing one SQLite approval store: a task asked on one is
/// answered on the other and polled to its end on the first; it ran once.
#[tokio::test]
async fn a_task_asked_on_one_process_completes_on_another() {
    let store =
        std::env::temp_dir().join(format!("toolkit-mcp-tasks-{}.sqlite3", std::process::id()));
    let _ = std::fs::remove_file(&store);
    let (a, b) = (start_process(&store), start_process(&store));
    let (on_a, on_b) = (connect_tasks(&a.url).await, connect_tasks(&b.url).await);
    remember(&on_a).await;
    remember(&on_b).await;
    let id = task_of(&on_a).await.task.task_id;
    assert_eq!(
        get_task(&on_b, &id).await.task.status(),
        TaskStatus::InputRequired
    );
    on_b.update_task(UpdateTaskParams::new(&id, accept()))
        .await
        .unwrap();
    let done = poll(&on_a, &id, TaskStatus::Completed).await;
    assert_eq!(done["result"]["structuredContent"], json!({"deleted": [1]}));
    // It ran once: on B, which was answered, or on A, whose poll found it approved
    // first (each process has its own memories).
    assert_eq!(memories(&on_a).await + memories(&on_b).await, 1);
    drop((a, b));
    let _ = std::fs::remove_file(&store);
}

/// The sealed `requestState` has no expiry of its own, which rmcp would check on
/// the clock of whichever replica opens it (one whose clock ran a day ahead
/// refused states the store still held valid): rmcp's sealed body starts with
/// its expiry, eight big-endian bytes of Unix milliseconds, zero for none. The
/// pending approval inside still expires, on the approval store's clock.
#[tokio::test]
async fn the_request_state_expires_on_the_approval_stores_clock_alone() {
    use base64::Engine as _;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    let settings = Settings::ephemeral().unwrap();
    // Seconds the store's clock is ahead of this machine's.
    let ahead = Arc::new(AtomicU64::new(0));
    let store = toolkit::approval::MemoryApprovalStore::new().clock({
        let ahead = Arc::clone(&ahead);
        move || {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs();
            now + ahead.load(Ordering::SeqCst)
        }
    });
    let approvals = toolkit::approval::Approvals::new(
        toolkit::approval::ApprovalKey::new(example_mcp_server::random_secret().unwrap()).unwrap(),
        store,
    )
    .policy(example_mcp_server::who_decides());
    let approvals: &'static toolkit::approval::Approvals = Box::leak(Box::new(approvals));
    let url = serve_with(Settings {
        approvals,
        ..settings
    })
    .await;
    let user = connect(&url, User { accepts: true }, stateless()).await;
    remember(&user).await;
    let input = ask(&user).await;
    let sealed = input.request_state.clone().unwrap();
    let [version, body, _tag]: [&str; 3] =
        sealed.split('.').collect::<Vec<_>>().try_into().unwrap();
    assert_eq!(version, "rs1");
    let body = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(body)
        .unwrap();
    assert_eq!(body[..8], [0; 8], "the seal carries an expiry of its own");
    // A day and an hour later on the store's clock, the pending approval (24 h)
    // has expired: the answer runs nothing.
    ahead.store(25 * 3600, Ordering::SeqCst);
    let refused = complete(&user, answer(&input, "accept")).await;
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    let told = text(&refused);
    assert!(
        told.starts_with("the approval was refused: it expired at ")
            && told.ends_with(" (Unix seconds); nothing ran"),
        "{told}"
    );
    assert_eq!(memories(&user).await, 1);
}

/// A task id with a NUL is no call id (`PostgreSQL`'s text can't hold one, and its
/// driver fails on one rather than find nothing): it is an unknown task, and the
/// store is not asked. Here the store fails every call, so a `tasks/get` that
/// reached it would be "the approval store failed"; an ordinary unknown id does.
#[tokio::test]
async fn a_task_id_with_a_nul_is_an_unknown_task_and_the_store_is_not_asked() {
    let settings = Settings::ephemeral().unwrap();
    let approvals = toolkit::approval::Approvals::new(
        toolkit::approval::ApprovalKey::new(example_mcp_server::random_secret().unwrap()).unwrap(),
        toolkit::testing::DownApprovalStore::new(),
    );
    let approvals: &'static toolkit::approval::Approvals = Box::leak(Box::new(approvals));
    let url = serve_with(Settings {
        approvals,
        ..settings
    })
    .await;
    let client = connect_tasks(&url).await;
    for id in ["approval_\u{0}", "\u{0}", "approval_1\u{0}' OR 1=1"] {
        // `tasks/get` and `tasks/cancel` alike: an unknown task, the store not asked.
        for refused in [
            client.get_task(GetTaskParams::new(id)).await.map(|_| ()),
            client.cancel_task(CancelTaskParams::new(id)).await,
        ] {
            let refused = refused.unwrap_err();
            assert!(
                matches!(&refused, ServiceError::McpError(error)
                    if error.code == ErrorCode::INVALID_PARAMS
                        && error.message == format!("no task `{}` here", id.replace('\u{0}', "\\u{0}"))),
                "{id:?}: {refused:?}"
            );
        }
    }
    // The control: an id without a NUL is looked up, and the store's failure told.
    let failed = client
        .get_task(GetTaskParams::new("approval_1"))
        .await
        .unwrap_err();
    assert!(
        matches!(&failed, ServiceError::McpError(error) if error.code == ErrorCode::INTERNAL_ERROR),
        "{failed:?}"
    );
}

//! The approval inbox mounted beside the MCP endpoints: a pending approval made by
//! a call of the `internal` view waits there for the operator, who alone (with the
//! inbox token) sees and decides it; and an MCP client waiting on a call (asked in
//! the same request with `elicitation/create`, or answering an input-required
//! result later) resumes with the decision made in the inbox, the tool running once.

use crate::common;

use std::collections::BTreeMap;

use axum::body::Body;
use common::{call, text};
use example_assistant::AssistantState;
use example_mcp_server::{Settings, http_router, inbox};
use http::{Request, StatusCode, header};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, Implementation, ProtocolVersion,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt as _, ErrorData, RoleClient};
use serde_json::{Value, json};
use toolkit::approval::{
    ApprovalKey, ApprovalStore, Approvals, Claim, Deciders, DecisionOutcome, DecisionQuery,
    DecisionRecord, MemoryApprovalStore, PendingApproval, PendingQuery, RefusalRecord, RunOutcome,
    RunRecord, StoreFuture,
};
use toolkit::{Context, Response, Scope, call::CallId};
use tower::ServiceExt as _;

/// A principal the test application names.
fn p(name: &str) -> toolkit::Principal {
    toolkit::Principal::local(name).expect("a principal")
}

async fn get(router: &axum::Router, path: &str, bearer: Option<&str>) -> (StatusCode, Value) {
    let mut request = Request::get(path).header(header::HOST, "localhost");
    if let Some(token) = bearer {
        request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    let response = router
        .clone()
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let body = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_pending_approval_of_the_mcp_views_waits_in_the_inbox_for_the_operator() {
    let settings = Settings::ephemeral().unwrap();
    let state = AssistantState::new();
    let router = http_router(state.clone(), settings, ["a", "b", "c"])
        .nest("/approvals", inbox(settings, "the inbox token").router());
    // The `internal` view, as the MCP endpoint builds it, asks to delete a memory.
    let view = toolkit::registry()
        .view()
        .scopes([Scope::Shared, Scope::Assistant])
        .approvals(settings.approvals, p("internal"))
        .build()
        .unwrap();
    let ctx = Context::new().with(state).with(CallId::new("call_forget"));
    let response = view
        .call_value("delete_memories", &json!({"ids": [1]}), &ctx)
        .await;
    assert!(matches!(response, Response::Pending(_)), "{response:?}");

    let (status, listed) = get(&router, "/approvals/api/pending", Some("the inbox token")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed["approver"], "local|operator");
    // The application's own operator reads as her subject alone.
    assert_eq!(
        listed["approver_name"],
        json!({"name": "operator", "subject": "operator"})
    );
    assert_eq!(listed["pending"][0]["pending"]["call_id"], "call_forget");
    assert_eq!(
        listed["pending"][0]["pending"]["principal"],
        "local|internal"
    );
    assert_eq!(listed["pending"][0]["tool"]["name"], "delete_memories");
    for token in [None, Some("a"), Some("the inbox token ")] {
        let (status, answer) = get(&router, "/approvals/api/pending", token).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{token:?}");
        assert_eq!(answer["error"]["kind"], "unauthenticated");
    }
}

const INBOX_TOKEN: &str = "the inbox token";

/// Decides the only waiting call in the inbox over its JSON API, as a person's
/// browser would: the CSRF token from the listing, then the decision.
async fn decide_in_inbox(inbox: &axum::Router, decision: Value) -> Value {
    let (status, listed) = get(inbox, "/api/pending", Some(INBOX_TOKEN)).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    assert_eq!(
        listed["pending"].as_array().map(Vec::len),
        Some(1),
        "{listed}"
    );
    let body = json!({"pending": listed["pending"][0]["pending"], "decision": decision});
    let request = Request::post("/api/decide")
        .header(header::HOST, "localhost")
        .header(header::AUTHORIZATION, format!("Bearer {INBOX_TOKEN}"))
        .header("x-csrf-token", listed["csrf_token"].as_str().unwrap())
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let response = inbox.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let body = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    serde_json::from_slice(&body).unwrap()
}

/// The audit list: (verdict, decided by, message) of each decision, newest first.
async fn audit(inbox: &axum::Router) -> Vec<(String, String, Value)> {
    let (status, listed) = get(inbox, "/api/decisions", Some(INBOX_TOKEN)).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    listed["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|record| {
            (
                record["verdict"].as_str().unwrap().to_owned(),
                record["decided_by"].as_str().unwrap().to_owned(),
                record["message"].clone(),
            )
        })
        .collect()
}

/// The audit list of one decision without a message: its verdict and who made it.
fn one_decision(verdict: &str, by: &str) -> Vec<(String, String, Value)> {
    vec![(verdict.to_owned(), by.to_owned(), Value::Null)]
}

/// A client whose user, asked to approve, first lets the operator decide in the
/// inbox (when `inbox` is set, with `decision`), then answers `accepts`.
#[derive(Clone)]
struct Waiting {
    inbox: Option<(axum::Router, Value)>,
    accepts: bool,
}

impl ClientHandler for Waiting {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("inbox-test", "0.0.0"),
        )
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        // The server's `tools/call` is waiting on this answer while the operator decides.
        if let Some((inbox, decision)) = &self.inbox {
            decide_in_inbox(inbox, decision.clone()).await;
        }
        Ok(ElicitResult::new(if self.accepts {
            ElicitationAction::Accept
        } else {
            ElicitationAction::Decline
        }))
    }
}

/// A fresh server and its inbox, and a stdio client whose user answers
/// `accepts` once the operator has decided `decision` in the inbox (`None`: no
/// operator decides).
async fn waiting_on(
    decision: Option<Value>,
    accepts: bool,
) -> (RunningService<RoleClient, Waiting>, axum::Router) {
    let settings = Settings::ephemeral().unwrap();
    let desk = inbox(settings, INBOX_TOKEN).router();
    let user = Waiting {
        inbox: decision.map(|decision| (desk.clone(), decision)),
        accepts,
    };
    (
        over_stdio(settings, AssistantState::new(), user).await,
        desk,
    )
}

/// A handshake client over stdio, its server sharing `settings` with the inbox.
async fn over_stdio(
    settings: Settings,
    state: AssistantState,
    user: Waiting,
) -> RunningService<RoleClient, Waiting> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = example_mcp_server::stdio_server("internal", state, settings);
    tokio::spawn(async move {
        if let Ok(running) = rmcp::ServiceExt::serve(server, server_io).await {
            let _ = running.waiting().await;
        }
    });
    user.serve_with_lifecycle(client_io, ClientLifecycleMode::Initialize)
        .await
        .unwrap()
}

async fn remember(client: &RunningService<RoleClient, Waiting>) {
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

/// Whether the memory `id` is still there.
async fn memory(client: &RunningService<RoleClient, Waiting>, id: u32) -> &'static str {
    let found = client
        .call_tool(call("get_memories", json!({"id": id})))
        .await
        .unwrap();
    if text(&found) == format!("no memory with id {id}") {
        "deleted"
    } else {
        "kept"
    }
}

/// Whether the memory the model asks to forget (id 1) is still there.
async fn memories(client: &RunningService<RoleClient, Waiting>) -> &'static str {
    memory(client, 1).await
}

/// Two memories (ids 1 and 2): the model asks to forget the first, an operator's
/// edit forgets the second instead.
async fn remember_two(client: &RunningService<RoleClient, Waiting>) {
    let created = client
        .call_tool(call(
            "create_memories",
            json!({"memories": [
                {"content": "Ada takes her tea black"},
                {"content": "Ada's old desk number was 12"},
            ]}),
        ))
        .await
        .unwrap();
    assert_eq!(created.is_error, Some(false), "{created:?}");
}

/// The operator's edit: forget memory 2, not 1.
fn edit() -> Value {
    json!({"approve_with": {"ids": [2]}})
}

/// What the model reads first when the operator edited the call it waits on.
const EDITED: &str =
    "local|operator approved it with edited arguments, and it ran with them: {\"ids\":[2]}";

/// The text of every content block of a result.
fn texts(result: &rmcp::model::CallToolResult) -> Vec<&str> {
    result
        .content
        .iter()
        .map(|block| block.as_text().expect("a text block").text.as_str())
        .collect()
}

/// The elicitation path: the call waits on the client's user while the operator
/// approves it in the inbox; the user's "yes" then resumes it, and it runs once.
/// The operator's denial stands even when the user says yes; every decision made
/// over MCP is in the audit list too.
#[tokio::test]
async fn a_call_waiting_on_elicitation_resumes_with_the_inbox_decision_and_runs_once() {
    let (client, desk) = waiting_on(Some(json!("approve")), true).await;
    remember(&client).await;
    let result = client.call_tool(forget()).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(result.structured_content, Some(json!({"deleted": [1]})));
    assert_eq!(memories(&client).await, "deleted");
    assert_eq!(
        audit(&desk).await,
        one_decision("approved", "local|operator")
    );

    let (client, _) =
        waiting_on(Some(json!({"deny": "keep Ada's notes until Friday"})), true).await;
    remember(&client).await;
    let result = client.call_tool(forget()).await.unwrap();
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert_eq!(
        text(&result),
        toolkit::ToolError::Denied {
            message: "keep Ada's notes until Friday".to_owned()
        }
        .to_string()
    );
    assert_eq!(memories(&client).await, "kept");

    // The operator approved, the user said no: a "no" in the conversation never
    // runs a call.
    let (client, _) = waiting_on(Some(json!("approve")), false).await;
    remember(&client).await;
    let result = client.call_tool(forget()).await.unwrap();
    assert_eq!(
        text(&result),
        toolkit::ToolError::Denied {
            message: "the user declined the call".to_owned()
        }
        .to_string()
    );
    assert_eq!(memories(&client).await, "kept");

    // Approved with edits in the inbox: the waiting call runs once, with the
    // edited arguments (memory 2 is forgotten, not 1), and the model reads first
    // that the operator edited them.
    let (client, desk) = waiting_on(Some(edit()), true).await;
    remember_two(&client).await;
    let result = client.call_tool(forget()).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(texts(&result), [EDITED, r#"{"deleted":[2]}"#]);
    assert_eq!(result.structured_content, Some(json!({"deleted": [2]})));
    assert_eq!(
        (memory(&client, 1).await, memory(&client, 2).await),
        ("kept", "deleted")
    );
    assert_eq!(
        audit(&desk).await,
        one_decision("approved_with_edits", "local|operator"),
        "one decision: the operator's"
    );

    // Edited by the operator, declined by the user: nothing runs.
    let (client, _) = waiting_on(Some(edit()), false).await;
    remember_two(&client).await;
    let result = client.call_tool(forget()).await.unwrap();
    assert_eq!(
        text(&result),
        toolkit::ToolError::Denied {
            message: "the user declined the call".to_owned()
        }
        .to_string()
    );
    assert_eq!(
        (memory(&client, 1).await, memory(&client, 2).await),
        ("kept", "kept")
    );

    // No operator: the user's own answer is THE decision, recorded for the audit.
    let (client, desk) = waiting_on(None, true).await;
    remember(&client).await;
    let result = client.call_tool(forget()).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(
        audit(&desk).await,
        one_decision("approved", "the requester")
    );
}

/// A 2026-07-28 client of the `internal` endpoint over streamable HTTP, and the
/// inbox mounted on the same server at `/approvals`.
async fn over_http(settings: Settings) -> (RunningService<RoleClient, Waiting>, axum::Router) {
    let router = http_router(
        AssistantState::new(),
        settings,
        ["internal-token", "copilot-token", "external-token"],
    );
    let desk = inbox(settings, INBOX_TOKEN).router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = router.nest("/approvals", desk.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let config =
        StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp/internal"))
            .auth_header("internal-token");
    let client = Waiting {
        inbox: None,
        accepts: true,
    }
    .serve_with_lifecycle(
        StreamableHttpClientTransport::from_config(config),
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .unwrap();
    (client, desk)
}

/// The client's later retry of the call that asked for input: the sealed state
/// and the user's "yes".
fn accepted(input: &rmcp::model::InputRequiredResult) -> CallToolRequestParams {
    let mut retry = forget();
    retry.request_state.clone_from(&input.request_state);
    retry.input_responses = Some(BTreeMap::from([(
        "approval".to_owned(),
        json!({"action": "accept"}),
    )]));
    retry
}

fn complete(response: CallToolResponse) -> rmcp::model::CallToolResult {
    match response {
        CallToolResponse::Complete(result) => result,
        other => panic!("the retry completes: {other:?}"),
    }
}

/// The out-of-band path: a 2026-07-28 client gets an input-required result and the
/// call is not held open; the operator approves it in the inbox; the client's later
/// answer resumes it, it runs once, and a replay runs nothing.
#[tokio::test]
async fn an_input_required_call_resumes_later_with_the_inbox_decision_and_runs_once() {
    let (client, desk) = over_http(Settings::ephemeral().unwrap()).await;
    remember(&client).await;
    let CallToolResponse::InputRequired(input) = client.call_tool_once(forget()).await.unwrap()
    else {
        panic!("an approve tool asks first");
    };
    assert_eq!(memories(&client).await, "kept");

    let (_, listed) = get(&desk, "/api/pending", Some(INBOX_TOKEN)).await;
    assert_eq!(
        listed["pending"][0]["pending"]["view"], "internal",
        "who asked: the view of the endpoint the call came through"
    );
    let decided = decide_in_inbox(&desk, json!("approve")).await;
    assert_eq!(decided["approval"]["verdict"], "approved");
    assert_eq!(
        memories(&client).await,
        "kept",
        "deciding runs nothing by itself"
    );

    let result = complete(client.call_tool_once(accepted(&input)).await.unwrap());
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(result.structured_content, Some(json!({"deleted": [1]})));
    let replay = complete(client.call_tool_once(accepted(&input)).await.unwrap());
    assert_eq!(text(&replay), already_ran(r#"{"deleted":[1]}"#));
    assert_eq!(
        audit(&desk).await,
        one_decision("approved", "local|operator"),
        "one decision: the operator's"
    );
    // The audit list says what came of it.
    let (_, listed) = get(&desk, "/api/decisions", Some(INBOX_TOKEN)).await;
    let run = &listed["decisions"][0]["run"];
    assert_eq!(
        (&run["attempt"], &run["done"], &run["outcome"]),
        (
            &json!(1),
            &json!(true),
            &json!({"status": "ran", "result": {"deleted": [1]}, "bytes": 15})
        ),
        "{listed}"
    );
    assert!(run["ended_at"].is_u64(), "{run}");
}

/// The out-of-band path with an approval with edits: the client's later answer
/// runs the edited call once (memory 2 is forgotten, not 1), the model reads that
/// the operator edited it, and a replay runs nothing.
#[tokio::test]
async fn an_input_required_call_resumes_later_with_the_inbox_edits_and_runs_them_once() {
    let (client, desk) = over_http(Settings::ephemeral().unwrap()).await;
    remember_two(&client).await;
    let CallToolResponse::InputRequired(input) = client.call_tool_once(forget()).await.unwrap()
    else {
        panic!("an approve tool asks first");
    };
    let decided = decide_in_inbox(&desk, edit()).await;
    assert_eq!(decided["approval"]["verdict"], "approved_with_edits");
    assert_eq!(
        (memory(&client, 1).await, memory(&client, 2).await),
        ("kept", "kept"),
        "deciding runs nothing by itself"
    );

    let result = complete(client.call_tool_once(accepted(&input)).await.unwrap());
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(texts(&result), [EDITED, r#"{"deleted":[2]}"#]);
    assert_eq!(result.structured_content, Some(json!({"deleted": [2]})));
    assert_eq!(
        (memory(&client, 1).await, memory(&client, 2).await),
        ("kept", "deleted")
    );
    let replay = complete(client.call_tool_once(accepted(&input)).await.unwrap());
    assert_eq!(replay.is_error, Some(true), "{replay:?}");
    assert_eq!(text(&replay), already_ran(r#"{"deleted":[2]}"#));
    assert_eq!(memory(&client, 1).await, "kept", "the replay ran nothing");
    assert_eq!(
        audit(&desk).await,
        one_decision("approved_with_edits", "local|operator"),
        "one decision: the operator's"
    );
}

/// How a record read back from the store was altered.
type Tamper = fn(&mut DecisionRecord);

/// A store whose decision records come back changed, as a row altered in the
/// database would.
struct Tampering {
    store: MemoryApprovalStore,
    tamper: Tamper,
}

impl ApprovalStore for Tampering {
    fn now(&self) -> StoreFuture<'_, u64> {
        self.store.now()
    }

    fn save_pending<'a>(&'a self, pending: &'a PendingApproval) -> StoreFuture<'a, bool> {
        self.store.save_pending(pending)
    }

    fn list_pending<'a>(
        &'a self,
        query: &'a PendingQuery,
    ) -> StoreFuture<'a, Vec<PendingApproval>> {
        self.store.list_pending(query)
    }

    fn pending<'a>(
        &'a self,
        principal: &'a toolkit::Principal,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<PendingApproval>> {
        self.store.pending(principal, call_id)
    }

    fn record_decision<'a>(
        &'a self,
        record: &'a DecisionRecord,
        keep_until: u64,
    ) -> StoreFuture<'a, DecisionOutcome> {
        // The winner a later decision is handed back is the record as stored.
        Box::pin(async move {
            match self.store.record_decision(record, keep_until).await? {
                DecisionOutcome::AlreadyDecided(mut winner) => {
                    (self.tamper)(&mut winner);
                    Ok(DecisionOutcome::AlreadyDecided(winner))
                }
                DecisionOutcome::Recorded => Ok(DecisionOutcome::Recorded),
            }
        })
    }

    fn decision<'a>(
        &'a self,
        principal: &'a toolkit::Principal,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<DecisionRecord>> {
        Box::pin(async move {
            let mut found = self.store.decision(principal, call_id).await?;
            if let Some(record) = &mut found {
                (self.tamper)(record);
            }
            Ok(found)
        })
    }

    fn decisions<'a>(&'a self, query: &'a DecisionQuery) -> StoreFuture<'a, Vec<DecisionRecord>> {
        Box::pin(async move {
            let mut records = self.store.decisions(query).await?;
            for record in &mut records {
                (self.tamper)(record);
            }
            Ok(records)
        })
    }

    fn claim<'a>(
        &'a self,
        key: &'a str,
        lease_until: u64,
        keep_until: u64,
    ) -> StoreFuture<'a, Claim> {
        self.store.claim(key, lease_until, keep_until)
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        attempt: u32,
        outcome: &'a RunOutcome,
    ) -> StoreFuture<'a, bool> {
        self.store.complete(key, attempt, outcome)
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        attempt: u32,
        outcome: &'a RunOutcome,
    ) -> StoreFuture<'a, bool> {
        self.store.release(key, attempt, outcome)
    }

    fn renew<'a>(&'a self, key: &'a str, attempt: u32, lease_until: u64) -> StoreFuture<'a, bool> {
        self.store.renew(key, attempt, lease_until)
    }

    fn run<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<RunRecord>> {
        self.store.run(key)
    }

    fn lapsed_claims<'a>(&'a self, prefix: &'a str, limit: usize) -> StoreFuture<'a, Vec<String>> {
        self.store.lapsed_claims(prefix, limit)
    }

    fn approved_unsettled(
        &self,
        decided_after: u64,
        decided_before: u64,
        limit: usize,
    ) -> StoreFuture<'_, Vec<(PendingApproval, DecisionRecord)>> {
        self.store
            .approved_unsettled(decided_after, decided_before, limit)
    }

    fn settle<'a>(
        &'a self,
        principal: &'a toolkit::Principal,
        call_id: &'a str,
    ) -> StoreFuture<'a, bool> {
        self.store.settle(principal, call_id)
    }

    fn record_refusal<'a>(
        &'a self,
        refusal: &'a RefusalRecord,
        keep_until: u64,
    ) -> StoreFuture<'a, ()> {
        self.store.record_refusal(refusal, keep_until)
    }

    fn refusals<'a>(&'a self, query: &'a DecisionQuery) -> StoreFuture<'a, Vec<RefusalRecord>> {
        self.store.refusals(query)
    }

    fn purge(&self) -> StoreFuture<'_, u64> {
        self.store.purge()
    }
}

/// An approval with edits whose record was altered in the store never runs: edited
/// arguments that no longer match the recorded digest, a record without them (as
/// one recorded before stores kept them), and arguments rewritten together with
/// their digest into ones the tool's schema refuses. The model is told why.
#[tokio::test]
async fn an_edited_decision_altered_in_the_store_runs_nothing() {
    let invalid = || json!({"ids": "all"});
    let schema_error = toolkit::registry()
        .get("delete_memories")
        .unwrap()
        .check_arguments(&invalid().to_string())
        .unwrap_err()
        .to_string();
    let rejected = |reason: &str| {
        toolkit::ToolError::ApprovalRejected {
            reason: reason.to_owned(),
        }
        .to_string()
    };
    let cases: [(Tamper, String); 3] = [
        (
            |record| record.arguments = Some(json!({"ids": [1, 2]})),
            rejected(
                "local|operator approved it with edited arguments, but the edited arguments in the \
                 store do not match its digest",
            ),
        ),
        (
            |record| record.arguments = None,
            rejected(
                "local|operator approved it with edited arguments, but the store kept no edited \
                 arguments with it",
            ),
        ),
        (
            |record| {
                let invalid = json!({"ids": "all"});
                record.digest = toolkit::approval::digest(&invalid);
                record.arguments = Some(invalid);
            },
            schema_error,
        ),
    ];
    for (tamper, refusal) in cases {
        let key =
            ApprovalKey::new(example_mcp_server::random_secret().unwrap().into_bytes()).unwrap();
        let store = Tampering {
            store: MemoryApprovalStore::new(),
            tamper,
        };
        let settings = Settings {
            approvals: Box::leak(Box::new(
                Approvals::new(key, store).policy(example_mcp_server::who_decides()),
            )),
            ..Settings::ephemeral().unwrap()
        };
        let desk = inbox(settings, INBOX_TOKEN).router();
        let edited = Waiting {
            inbox: Some((desk.clone(), edit())),
            accepts: true,
        };
        let client = over_stdio(settings, AssistantState::new(), edited).await;
        remember_two(&client).await;
        let result = client.call_tool(forget()).await.unwrap();
        assert_eq!(result.is_error, Some(true), "{result:?}");
        assert_eq!(text(&result), refusal);
        assert_eq!(
            (memory(&client, 1).await, memory(&client, 2).await),
            ("kept", "kept"),
            "{refusal}"
        );
    }
}

/// Who may decide is the approval policy's, on the MCP path too. A 2026-07-28
/// client is told that an approver decides, and its user's "yes" before that runs
/// nothing, records no decision, and is kept in the audit as a refusal; once the
/// operator approves in the inbox, the same "yes" runs it, once. A client asked in
/// the same request (`elicitation/create`) is not asked at all.
#[tokio::test]
async fn a_requester_the_policy_refuses_cannot_approve_its_own_call() {
    let strict = || {
        let key = ApprovalKey::new(example_mcp_server::random_secret().unwrap().into_bytes());
        let approvals =
            Approvals::new(key.unwrap(), MemoryApprovalStore::new()).policy(Deciders::others());
        Settings {
            approvals: Box::leak(Box::new(approvals)),
            ..Settings::ephemeral().unwrap()
        }
    };
    let settings = strict();
    let (client, desk) = over_http(settings).await;
    remember(&client).await;
    let CallToolResponse::InputRequired(input) = client.call_tool_once(forget()).await.unwrap()
    else {
        panic!("the client gets the state to come back with");
    };
    let question = serde_json::to_value(&input.input_requests).unwrap();
    assert_eq!(
        question["approval"]["params"]["message"],
        "`delete_memories` with {\"ids\":[1]} waits for an approver's decision; it has not \
         run. Answer accept once they have approved it, and it runs as they decided."
    );
    let refused = complete(client.call_tool_once(accepted(&input)).await.unwrap());
    assert_eq!(
        text(&refused),
        "the approval was refused: the requester may not decide it: `delete_memories` is \
         approved by someone other than the requester; the call waits for them; nothing ran"
    );
    assert_eq!(memories(&client).await, "kept");
    assert_eq!(audit(&desk).await, [], "a refusal is not a decision");
    let refusals = settings
        .approvals
        .refusals(&DecisionQuery::new())
        .await
        .unwrap();
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    assert_eq!(
        (&refusals[0].decided_by, refusals[0].tool.as_str()),
        (&toolkit::approval::DecidedBy::Requester, "delete_memories")
    );
    decide_in_inbox(&desk, json!("approve")).await;
    let ran = complete(client.call_tool_once(accepted(&input)).await.unwrap());
    assert_eq!(ran.is_error, Some(false), "{ran:?}");
    assert_eq!(memories(&client).await, "deleted");
    assert_eq!(
        audit(&desk).await,
        one_decision("approved", "local|operator")
    );

    // In the same request: not asked (its answer would not count), told it waits.
    let asked_inline = over_stdio(
        strict(),
        AssistantState::new(),
        Waiting {
            inbox: None,
            accepts: true,
        },
    )
    .await;
    remember(&asked_inline).await;
    let waiting = asked_inline.call_tool(forget()).await.unwrap();
    assert_eq!(
        text(&waiting),
        "`delete_memories` waits for a person's approval; it has not run"
    );
    assert_eq!(memories(&asked_inline).await, "kept");
}

/// Operators sign in to the inbox in a real browser (Debian's Chromium, headless,
/// over `WebDriver`) with a real `OpenID` Connect server (npm `oauth2-mock-server`,
/// `scripts/oauth_mock_server.mjs`): the authorization-code flow with PKCE, as the
/// example's OAuth mode mounts it (`SignIn`, `oauth_inbox`).
mod signed_in {
    use std::io::{BufRead as _, BufReader};
    use std::process::{Command, Stdio};

    use example_assistant::AssistantState;
    use example_mcp_server::signin::SignIn;
    use example_mcp_server::{Settings, oauth_inbox};
    use fantoccini::{Client, Locator};
    use serde_json::{Value, json};
    use toolkit::{Context, Response, Scope, call::CallId};
    use toolkit_test_support::{Browser, Group, click, missing, root, screenshot, script, text};

    /// `oauth2-mock-server` on a loopback port, with its issuer URL.
    fn issuer() -> Option<(Group, String)> {
        if Command::new("npm").arg("--version").output().is_err() {
            missing("npm is not installed (it installs oauth2-mock-server)");
            return None;
        }
        let install = Command::new("bash")
            .arg(root().join("scripts/oauth_mock_install.sh"))
            .output()
            .expect("bash runs the install script");
        assert!(
            install.status.success(),
            "installing oauth2-mock-server failed: {}",
            String::from_utf8_lossy(&install.stderr)
        );
        // The script prints Node's path, then the packages' folder.
        let printed = String::from_utf8(install.stdout).unwrap();
        let mut lines = printed.lines();
        let node = lines.next().expect("Node's path").to_owned();
        let tools = std::path::PathBuf::from(lines.next().expect("the packages' folder"));
        // The script must sit beside node_modules to import the package.
        let script = tools.join("oauth_mock_server.mjs");
        std::fs::copy(root().join("scripts/oauth_mock_server.mjs"), &script).unwrap();
        let mut server = Group::start(Command::new(&node).arg(&script).stdout(Stdio::piped()));
        let stdout = server.process().stdout.take().unwrap();
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        let issuer = line
            .strip_prefix("issuer ")
            .unwrap_or_else(|| panic!("the mock did not start: {line:?}"))
            .trim()
            .to_owned();
        Some((server, issuer))
    }

    /// A headless Chromium session, ended over `WebDriver` when dropped (on success
    /// and on panic alike), then its driver's process group stopped.
    async fn browser() -> Option<Browser> {
        Browser::start("inbox-signin", (1280, 900)).await
    }

    /// The page at 1280 px and at 400 px wide, saved as
    /// `target/inbox-screenshots/inbox-{name}-{width}.png`; with
    /// `UPDATE_SCREENSHOTS=1`, also as `docs/inbox/` (the README's pictures).
    async fn pictures(client: &Client, name: &str) {
        for (width, height) in [(1280, 800), (400, 800)] {
            client
                .set_window_size(width, height)
                .await
                .expect("the window resized");
            let file = format!("inbox-{name}-{width}.png");
            let png = screenshot(client, &file).await;
            if std::env::var("UPDATE_SCREENSHOTS").as_deref() == Ok("1") {
                let directory = root().join("docs/inbox");
                std::fs::create_dir_all(&directory).expect("the screenshot directory");
                std::fs::write(directory.join(&file), &png).expect("the screenshot is saved");
            }
        }
        client
            .set_window_size(1280, 900)
            .await
            .expect("the window resized");
    }

    async fn sign_in(client: &Client, base: &str, who: &str) {
        client
            .goto(&format!("{base}/signin?login_hint={who}"))
            .await
            .expect("the sign-in");
        // The signed-in person, as a person reads a principal: the subject, then
        // the issuer that signed them in.
        let shown = text(client, "header .who > .person").await;
        assert!(
            shown.starts_with(&format!("{who} (signed in with http")),
            "{shown}"
        );
    }

    async fn sign_out(client: &Client) {
        click(client, "header button.sign-out").await;
        text(client, "main a.sign-in").await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn operators_sign_in_with_the_authorization_server_and_the_policy_shows_in_the_page() {
        let Some((_issuer, issuer)) = issuer() else {
            return;
        };
        let Some(browser) = browser().await else {
            return;
        };
        let client = &browser.client;
        // The example's approvals: others than the requester decide transfers.
        let settings = Settings::ephemeral().unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let signin = SignIn::discover(
            &issuer,
            "toolkit-inbox",
            &base,
            b"the example's inbox session key, 32+ bytes",
            vec!["ada".to_owned(), "olivia".to_owned()],
            settings.approvals,
            "/approvals",
        )
        .await
        .expect("the issuer is discovered");
        let app = signin
            .router()
            .nest("/approvals", oauth_inbox(settings, signin).router());
        tokio::spawn(async move { axum::serve(listener, app).await });

        // Ada's assistant asks to pay a supplier, on her behalf: her principal, as
        // the MCP door makes it from her token's `iss` and `sub`, through the
        // mapping the inbox's sign-in uses too.
        let claims = json!({"iss": issuer, "sub": "ada"});
        let ada = example_mcp_server::claims_mapping()
            .principal(claims.as_object().unwrap())
            .unwrap();
        let view = toolkit::registry()
            .view()
            .scopes([Scope::Shared, Scope::Assistant])
            .approvals(settings.approvals, ada.clone())
            .build()
            .unwrap();
        let ctx = Context::new()
            .with(AssistantState::new())
            .with(CallId::new("call_pay"));
        let asked = view
            .call_value(
                "create_transfers",
                &json!({"reference": "Invoice 2026-118", "amount_cents": 200_150}),
                &ctx,
            )
            .await;
        assert!(matches!(asked, Response::Pending(_)), "{asked:?}");
        // And to forget a memory, which she could decide herself.
        let forget = view
            .call_value(
                "delete_memories",
                &json!({"ids": [3]}),
                &Context::new()
                    .with(AssistantState::new())
                    .with(CallId::new("call_forget")),
            )
            .await;
        assert!(matches!(forget, Response::Pending(_)), "{forget:?}");

        // Nobody signed in: told so on the inbox's own (styled) page, with the way in.
        client.goto(&format!("{base}/approvals")).await.unwrap();
        assert_eq!(
            text(client, "div.refusal").await,
            "Sign in first: the application does not know who you are; sign in and open the inbox again"
        );
        assert_eq!(
            script(
                client,
                "return getComputedStyle(document.querySelector('header')).display"
            )
            .await,
            json!("flex"),
            "the style sheet is the inbox's"
        );
        // The mock's own user (no login hint) signs in, and is no approver: the
        // policy shows them nothing.
        click(client, "main a.sign-in").await;
        assert_eq!(
            text(client, "header .who > .person").await,
            format!("johndoe (signed in with {issuer})")
        );
        assert_eq!(
            text(client, "main p.empty").await,
            "Nothing is waiting for you."
        );
        // The session cookie is the server's: out of scripts' reach, not sent by
        // other sites' POSTs, sealed (the subject can't be read or changed in it).
        let mut cookies = client.get_all_cookies().await.unwrap();
        cookies.sort_by(|a, b| a.name().cmp(b.name()));
        let names: Vec<String> = cookies
            .iter()
            .map(|cookie| cookie.name().to_owned())
            .collect();
        assert_eq!(
            names,
            ["inbox_binding", "inbox_session"],
            "the sign-in cookie is gone"
        );
        let session = &cookies[1];
        assert_eq!(
            (
                session.http_only(),
                session.same_site().map(|site| site.to_string()),
                session.secure()
            ),
            (Some(true), Some("Lax".to_owned()), Some(false)),
            "Secure only over HTTPS"
        );
        assert!(!session.value().contains("johndoe"), "{}", session.value());
        assert_eq!(script(client, "return document.cookie").await, json!(""));
        sign_out(client).await;
        assert_eq!(client.get_all_cookies().await.unwrap().len(), 0);
        client.goto(&format!("{base}/approvals")).await.unwrap();
        assert!(
            text(client, "div.refusal")
                .await
                .starts_with("Sign in first")
        );

        // Ada is an approver and sees her own transfer, but the approvals' policy
        // leaves it to someone else: the card says so, and has no buttons.
        sign_in(client, &base, "ada").await;
        let card = r#"section.pending[data-call-id="call_pay"]"#;
        assert_eq!(
            text(client, &format!("{card} .someone-else")).await,
            "Not yours to decide: `create_transfers` is approved by someone other than the requester; the call waits for them."
        );
        // The schema says the cents are euros (`x-currency`): shown as money.
        assert_eq!(
            text(client, &format!("{card} .amount")).await,
            "(2,001.50 EUR)"
        );
        assert_eq!(
            script(
                client,
                "return document.querySelectorAll('section.pending[data-call-id=call_pay] button').length"
            )
            .await,
            json!(0)
        );
        // A decision sent anyway (her own valid token, from her inbox page) is refused.
        let api: Value = {
            client
                .goto(&format!("{base}/approvals/api/pending"))
                .await
                .unwrap();
            serde_json::from_str(&text(client, "body").await).expect("JSON")
        };
        let token = api["csrf_token"].as_str().expect("a token").to_owned();
        client.goto(&format!("{base}/approvals")).await.unwrap();
        client
            .execute(
                "const [token, call] = arguments;
                 const form = document.createElement('form');
                 form.method = 'post'; form.action = '/approvals/decide';
                 for (const [name, value] of [['csrf', token], ['call', call], ['action', 'approve']]) {
                   const input = document.createElement('input');
                   input.type = 'hidden'; input.name = name; input.value = value; form.append(input);
                 }
                 document.body.append(form); form.submit();",
                vec![json!(token), json!([ada.key(), "call_pay"]).to_string().into()],
            )
            .await
            .unwrap();
        assert_eq!(
            text(client, "div.refusal").await,
            "Not yours to decide: you may not decide it: `create_transfers` is approved by someone other than the requester; the call waits for them; nothing ran"
        );
        sign_out(client).await;

        // Olivia approves it.
        // Olivia approves it. The README's pictures are taken on her way: the
        // list, the edit form and the audit list, on a laptop and on a phone.
        sign_in(client, &base, "olivia").await;
        text(client, &format!("{card} .amount")).await;
        pictures(client, "list").await;
        click(client, &format!("{card} button.edit")).await;
        text(client, "form.edit button.approve").await;
        pictures(client, "edit").await;
        client.goto(&format!("{base}/approvals")).await.unwrap();
        click(client, &format!("{card} button.approve")).await;
        let notice = text(client, ".notice").await;
        assert!(
            notice.starts_with(&format!("Approved by olivia (signed in with {issuer}) at ")),
            "{notice}"
        );
        let forget = r#"section.pending[data-call-id="call_forget"] form.deny"#;
        client
            .find(Locator::Css(&format!("{forget} input[name=reason]")))
            .await
            .unwrap()
            .send_keys("Ada still needs that memory for the Friday report.")
            .await
            .unwrap();
        click(client, &format!("{forget} button.deny")).await;
        text(client, r#".notice[data-verdict="denied"]"#).await;
        client
            .goto(&format!("{base}/approvals/decisions"))
            .await
            .unwrap();
        let row = text(client, r#"tr[data-call-id="call_pay"]"#).await;
        assert!(
            row.contains(&format!(
                "olivia (signed in with {issuer}) approved create_transfers"
            )),
            "{row}"
        );
        pictures(client, "audit").await;

        // An answer from the authorization server counts only in the browser that
        // started that sign-in (its `state`, kept in the sealed sign-in cookie):
        // login CSRF is refused, and so is a callback no sign-in started.
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let started = http.get(format!("{base}/signin")).send().await.unwrap();
        assert_eq!(started.status(), 303);
        let location = started.headers()["location"].to_str().unwrap().to_owned();
        assert!(
            location.starts_with(&format!("{issuer}/authorize?")),
            "{location}"
        );
        for expected in [
            "code_challenge_method=S256",
            "response_type=code",
            "nonce=",
            "state=",
        ] {
            assert!(location.contains(expected), "{expected} in {location}");
        }
        let cookie = started.headers()["set-cookie"].to_str().unwrap().to_owned();
        assert!(cookie.starts_with("inbox_signin="), "{cookie}");
        assert!(
            cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
            "{cookie}"
        );
        let cookie = cookie.split(';').next().unwrap().to_owned();
        let refused = |cookie: Option<String>| {
            let mut request = http.get(format!(
                "{base}/signin/callback?code=stolen&state=the-attackers"
            ));
            if let Some(cookie) = cookie {
                request = request.header("cookie", cookie);
            }
            async move {
                let answer = request.send().await.unwrap();
                (answer.status().as_u16(), answer.text().await.unwrap())
            }
        };
        assert_eq!(
            refused(Some(cookie)).await,
            (
                400,
                "Sign-in failed: the answer is not for the sign-in this browser started.\n"
                    .to_owned()
            )
        );
        assert_eq!(
            refused(None).await,
            (
                400,
                "Sign-in failed: no sign-in was started in this browser, or it took too long.\n"
                    .to_owned()
            )
        );
        // Sign-out from another site's page is refused.
        let elsewhere = http
            .post(format!("{base}/signout"))
            .header("sec-fetch-site", "cross-site")
            .send()
            .await
            .unwrap();
        assert_eq!(elsewhere.status(), 403);
    }

    /// The sign-in routes of a server whose public URL is `public_url`, against
    /// the mock issuer.
    async fn sign_in_routes(issuer: &str, public_url: &str) -> (SignIn, axum::Router) {
        let settings = Settings::ephemeral().unwrap();
        let signin = SignIn::discover(
            issuer,
            "toolkit-inbox",
            public_url,
            b"the example's inbox session key, 32+ bytes",
            vec!["ada".to_owned()],
            settings.approvals,
            "/approvals",
        )
        .await
        .expect("the issuer is discovered");
        let router = signin.router();
        (signin, router)
    }

    /// One request to `router` with `cookies` (`name=value; ...`).
    async fn ask(
        router: &axum::Router,
        method: &str,
        uri: &str,
        cookies: &str,
    ) -> http::Response<axum::body::Body> {
        use tower::ServiceExt as _;
        let mut request = http::Request::builder().method(method).uri(uri);
        if !cookies.is_empty() {
            request = request.header(http::header::COOKIE, cookies);
        }
        router
            .clone()
            .oneshot(request.body(axum::body::Body::empty()).unwrap())
            .await
            .unwrap()
    }

    /// The `Set-Cookie` headers of `response`.
    fn set_cookies(response: &http::Response<axum::body::Body>) -> Vec<String> {
        response
            .headers()
            .get_all(http::header::SET_COOKIE)
            .iter()
            .map(|value| value.to_str().unwrap().to_owned())
            .collect()
    }

    /// `name=value` of each cookie set (not removed) in `set_cookies`.
    fn kept(set_cookies: &[String]) -> Vec<String> {
        set_cookies
            .iter()
            .filter(|cookie| !cookie.contains("Max-Age=0"))
            .map(|cookie| cookie.split(';').next().unwrap().to_owned())
            .collect()
    }

    /// Signs `who` in through the routes and the mock, as a browser would: the
    /// cookies the callback leaves (`name=value` each).
    async fn signed_in_cookies(router: &axum::Router, who: &str) -> Vec<String> {
        let started = ask(router, "GET", &format!("/signin?login_hint={who}"), "").await;
        assert_eq!(started.status(), 303);
        let pending = kept(&set_cookies(&started)).join("; ");
        let authorize = started.headers()["location"].to_str().unwrap().to_owned();
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let back = http.get(&authorize).send().await.unwrap();
        let callback = reqwest::Url::parse(back.headers()["location"].to_str().unwrap()).unwrap();
        let path = format!("{}?{}", callback.path(), callback.query().unwrap());
        let done = ask(router, "GET", &path, &pending).await;
        assert_eq!(done.status(), 303, "{:?}", done.headers());
        // The session, then its binding.
        let mut cookies = kept(&set_cookies(&done));
        cookies.sort_by_key(|cookie| !cookie.starts_with("inbox_session="));
        cookies
    }

    /// Who `signin` says a request with `cookies` comes from.
    async fn who(signin: &SignIn, cookies: &[&str]) -> Option<String> {
        use toolkit::inbox::Authenticate as _;
        let mut request = http::Request::get("/approvals");
        for cookie in cookies {
            request = request.header(http::header::COOKIE, *cookie);
        }
        let (parts, ()) = request.body(()).unwrap().into_parts();
        signin
            .authenticate(&parts)
            .await
            .map(|identity| identity.principal.subject().to_owned())
    }

    /// Login CSRF: a page on another port of the host plants the session cookie
    /// the attacker got by signing in, in a browser that never signed in (or in
    /// one signed in as someone else). The session counts only beside the binding
    /// its own callback set.
    #[tokio::test]
    async fn a_session_cookie_planted_without_its_binding_is_refused() {
        let Some((_issuer, issuer)) = issuer() else {
            return;
        };
        let (signin, router) = sign_in_routes(&issuer, "http://127.0.0.1:1").await;
        let mallory = signed_in_cookies(&router, "mallory").await;
        let names: Vec<&str> = mallory
            .iter()
            .map(|cookie| cookie.split('=').next().unwrap())
            .collect();
        assert_eq!(names, ["inbox_session", "inbox_binding"]);
        let (session, binding) = (mallory[0].as_str(), mallory[1].as_str());
        assert_eq!(
            who(&signin, &[&mallory.join("; ")]).await.as_deref(),
            Some("mallory")
        );
        // Planted alone: refused.
        assert_eq!(who(&signin, &[session]).await, None);
        // Beside another sign-in's binding: refused.
        let ada = signed_in_cookies(&router, "ada").await;
        assert_eq!(
            who(&signin, &[&ada.join("; ")]).await.as_deref(),
            Some("ada")
        );
        let ada_binding = ada[1].as_str();
        assert_eq!(who(&signin, &[session, ada_binding]).await, None);
        // Planted under another path beside Ada's own: two of one name, refused.
        assert_eq!(
            who(&signin, &[&format!("{session}; {}; {binding}", ada[0])]).await,
            None
        );
        assert_eq!(
            who(
                &signin,
                &[&ada.join("; "), &format!("{session}; {binding}")]
            )
            .await,
            None
        );
    }

    #[tokio::test]
    async fn sign_out_clears_every_cookie_the_sign_in_sets() {
        let Some((_issuer, issuer)) = issuer() else {
            return;
        };
        let (_signin, router) = sign_in_routes(&issuer, "http://127.0.0.1:1").await;
        let cookies = signed_in_cookies(&router, "ada").await.join("; ");
        let out = ask(&router, "POST", "/signout", &cookies).await;
        assert_eq!(out.status(), 303);
        let mut cleared: Vec<String> = set_cookies(&out)
            .iter()
            .map(|cookie| {
                assert!(cookie.contains("Max-Age=0"), "{cookie}");
                assert!(cookie.contains("Path=/"), "{cookie}");
                cookie.split('=').next().unwrap().to_owned()
            })
            .collect();
        cleared.sort();
        assert_eq!(cleared, ["inbox_binding", "inbox_session", "inbox_signin"]);
    }

    /// Over HTTPS the cookies are `__Host-` cookies: `Secure`, `Path=/`, no
    /// `Domain`, which browsers take only from a secure page of this very host.
    #[tokio::test]
    async fn over_https_the_sign_in_cookies_are_host_only_and_secure() {
        let Some((_issuer, issuer)) = issuer() else {
            return;
        };
        let (_signin, router) = sign_in_routes(&issuer, "https://tools.example.com").await;
        let started = ask(&router, "GET", "/signin", "").await;
        let cookies = set_cookies(&started);
        assert_eq!(cookies.len(), 1, "{cookies:?}");
        let cookie = &cookies[0];
        assert!(cookie.starts_with("__Host-inbox_signin="), "{cookie}");
        let attributes: Vec<&str> = cookie.split("; ").skip(1).collect();
        assert_eq!(
            attributes,
            ["HttpOnly", "SameSite=Lax", "Secure", "Path=/"],
            "{cookie}"
        );
        let out = ask(&router, "POST", "/signout", "").await;
        let mut cleared: Vec<String> = set_cookies(&out)
            .iter()
            .map(|cookie| {
                assert!(cookie.contains("; Secure"), "{cookie}");
                cookie.split('=').next().unwrap().to_owned()
            })
            .collect();
        cleared.sort();
        assert_eq!(
            cleared,
            [
                "__Host-inbox_binding",
                "__Host-inbox_session",
                "__Host-inbox_signin"
            ]
        );
    }

    #[tokio::test]
    async fn the_sign_in_answers_are_never_cached_sniffed_or_framed() {
        let Some((_issuer, issuer)) = issuer() else {
            return;
        };
        let (_signin, router) = sign_in_routes(&issuer, "http://127.0.0.1:1").await;
        let started = ask(&router, "GET", "/signin", "").await;
        let refused = ask(&router, "GET", "/signin/callback?code=a&state=b", "").await;
        assert_eq!(refused.status(), 400);
        let out = ask(&router, "POST", "/signout", "").await;
        for answer in [&started, &refused, &out] {
            let headers = answer.headers();
            let header = |name: &str| {
                let values: Vec<&str> = headers
                    .get_all(name)
                    .iter()
                    .map(|value| value.to_str().unwrap())
                    .collect();
                values.join(", ")
            };
            assert_eq!(header("cache-control"), "no-store");
            assert_eq!(header("x-content-type-options"), "nosniff");
            assert_eq!(header("x-frame-options"), "DENY");
            assert_eq!(
                header("content-security-policy"),
                "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
            );
            assert_eq!(header("referrer-policy"), "no-referrer");
        }
    }

    /// `openidconnect` adds `openid` to every authorization request itself.
    #[tokio::test]
    async fn the_authorization_request_asks_for_openid_once() {
        let Some((_issuer, issuer)) = issuer() else {
            return;
        };
        let (_signin, router) = sign_in_routes(&issuer, "http://127.0.0.1:1").await;
        let started = ask(&router, "GET", "/signin", "").await;
        let location =
            reqwest::Url::parse(started.headers()["location"].to_str().unwrap()).unwrap();
        let scopes: Vec<String> = location
            .query_pairs()
            .filter(|(name, _)| name == "scope")
            .map(|(_, value)| value.into_owned())
            .collect();
        assert_eq!(scopes, ["openid"]);
    }
}

/// What a replay of a call that ran is told: that it ran, with its result.
fn already_ran(result: &str) -> String {
    toolkit::ToolError::AlreadyRan {
        outcome: format!("with the result {result}"),
    }
    .to_string()
}

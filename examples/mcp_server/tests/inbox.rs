//! The approval inbox mounted beside the MCP endpoints: a pending approval made by
//! a call of the `internal` view waits there for the operator, who alone (with the
//! inbox token) sees and decides it; and an MCP client waiting on a call (asked in
//! the same request with `elicitation/create`, or answering an input-required
//! result later) resumes with the decision made in the inbox, the tool running once.

mod common;

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
use toolkit::{CallId, Context, Response, Scope};
use tower::ServiceExt as _;

async fn get(router: &axum::Router, path: &str, bearer: Option<&str>) -> (StatusCode, Value) {
    let mut request = Request::get(path);
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
        .approvals(settings.approvals, "internal")
        .build()
        .unwrap();
    let ctx = Context::new().with(state).with(CallId::new("call_forget"));
    let response = view
        .call_value("delete_memories", &json!({"ids": [1]}), &ctx)
        .await;
    assert!(matches!(response, Response::Pending(_)), "{response:?}");

    let (status, listed) = get(&router, "/approvals/api/pending", Some("the inbox token")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed["approver"], "operator");
    assert_eq!(listed["pending"][0]["pending"]["call_id"], "call_forget");
    assert_eq!(listed["pending"][0]["pending"]["principal"], "internal");
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

/// How many memories are left (one was remembered; the tool deletes it).
async fn memories(client: &RunningService<RoleClient, Waiting>) -> &'static str {
    let found = client
        .call_tool(call("get_memories", json!({"id": 1})))
        .await
        .unwrap();
    if text(&found) == "no memory with id 1" {
        "deleted"
    } else {
        "kept"
    }
}

/// The elicitation path: the call waits on the client's user while the operator
/// approves it in the inbox; the user's "yes" then resumes it, and it runs once.
/// The operator's denial stands even when the user says yes; every decision made
/// over MCP is in the audit list too.
#[tokio::test]
async fn a_call_waiting_on_elicitation_resumes_with_the_inbox_decision_and_runs_once() {
    let settings = Settings::ephemeral().unwrap();
    let desk = inbox(settings, INBOX_TOKEN).router();

    let state = AssistantState::new();
    let approved = Waiting {
        inbox: Some((desk.clone(), json!("approve"))),
        accepts: true,
    };
    let client = over_stdio(settings, state, approved).await;
    remember(&client).await;
    let result = client.call_tool(forget()).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(result.structured_content, Some(json!({"deleted": [1]})));
    assert_eq!(memories(&client).await, "deleted");
    assert_eq!(
        audit(&desk).await,
        [("approved".to_owned(), "operator".to_owned(), Value::Null)]
    );

    let settings = Settings::ephemeral().unwrap();
    let desk = inbox(settings, INBOX_TOKEN).router();
    let denied = Waiting {
        inbox: Some((
            desk.clone(),
            json!({"deny": "keep Ada's notes until Friday"}),
        )),
        accepts: true,
    };
    let client = over_stdio(settings, AssistantState::new(), denied).await;
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
    let settings = Settings::ephemeral().unwrap();
    let desk = inbox(settings, INBOX_TOKEN).router();
    let declined = Waiting {
        inbox: Some((desk.clone(), json!("approve"))),
        accepts: false,
    };
    let client = over_stdio(settings, AssistantState::new(), declined).await;
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

    // Approved with edits in the inbox: the store keeps the edited arguments'
    // digest, not the arguments, so the waiting call says where it runs instead.
    let settings = Settings::ephemeral().unwrap();
    let desk = inbox(settings, INBOX_TOKEN).router();
    let edited = Waiting {
        inbox: Some((desk.clone(), json!({"approve_with": {"ids": [2]}}))),
        accepts: true,
    };
    let client = over_stdio(settings, AssistantState::new(), edited).await;
    remember(&client).await;
    let result = client.call_tool(forget()).await.unwrap();
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert_eq!(
        text(&result),
        toolkit::ToolError::ApprovalRejected {
            reason: "operator approved it with edited arguments, and the edited call runs where \
                     their decision was handed on, not here"
                .to_owned()
        }
        .to_string()
    );
    assert_eq!(memories(&client).await, "kept");

    // No operator: the user's own answer is THE decision, recorded for the audit.
    let settings = Settings::ephemeral().unwrap();
    let desk = inbox(settings, INBOX_TOKEN).router();
    let alone = Waiting {
        inbox: None,
        accepts: true,
    };
    let client = over_stdio(settings, AssistantState::new(), alone).await;
    remember(&client).await;
    let result = client.call_tool(forget()).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(
        audit(&desk).await,
        [(
            "approved".to_owned(),
            "the MCP client's user".to_owned(),
            Value::Null
        )]
    );
}

/// The out-of-band path: a 2026-07-28 client gets an input-required result and the
/// call is not held open; the operator approves it in the inbox; the client's later
/// answer resumes it, it runs once, and a replay runs nothing.
#[tokio::test]
async fn an_input_required_call_resumes_later_with_the_inbox_decision_and_runs_once() {
    let settings = Settings::ephemeral().unwrap();
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

    let answer = || {
        let mut retry = forget();
        retry.request_state.clone_from(&input.request_state);
        retry.input_responses = Some(BTreeMap::from([(
            "approval".to_owned(),
            json!({"action": "accept"}),
        )]));
        retry
    };
    let complete = |response| match response {
        CallToolResponse::Complete(result) => result,
        other => panic!("the retry completes: {other:?}"),
    };
    let result = complete(client.call_tool_once(answer()).await.unwrap());
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(result.structured_content, Some(json!({"deleted": [1]})));
    let replay = complete(client.call_tool_once(answer()).await.unwrap());
    assert_eq!(
        text(&replay),
        toolkit::ToolError::from(toolkit::approval::ApprovalError::AlreadyUsed).to_string()
    );
    assert_eq!(
        audit(&desk).await,
        [("approved".to_owned(), "operator".to_owned(), Value::Null)],
        "one decision: the operator's"
    );
}

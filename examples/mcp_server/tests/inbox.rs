//! The approval inbox mounted beside the MCP endpoints: a pending approval made by
//! a call of the `internal` view waits there for the operator, who alone (with the
//! inbox token) sees and decides it.

use axum::body::Body;
use example_assistant::AssistantState;
use example_mcp_server::{Settings, http_router, inbox};
use http::{Request, StatusCode, header};
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

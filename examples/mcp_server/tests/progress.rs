//! A tool's `#[ctx] Progress` over MCP: `notifications/progress` for a client
//! that sent a `progressToken`, also from `McpHttp`'s stateless endpoints (which
//! answer that one request as an event stream).

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, NumberOrString,
    ProgressNotificationParam, ProgressToken, RequestMetaObject, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt as _};
use toolkit::mcp::{AccessError, Caller, Grant, McpHttp};
use toolkit::{Context, Scope, call::Progress, tool};

/// Counts to three, reporting each step.
#[tool(scope = shared, tier = auto, group = "counting")]
async fn get_counts(#[ctx] progress: Progress) -> u32 {
    for step in 1..=3 {
        progress
            .report(f64::from(step), Some(3.0), Some(&format!("step {step}")))
            .await;
    }
    3
}

/// One report as the client got it: progress, total, message.
type Report = (f64, Option<f64>, Option<String>);

/// A client that keeps the progress it is sent.
#[derive(Clone, Default)]
struct Watcher(Arc<Mutex<Vec<Report>>>);

impl ClientHandler for Watcher {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0
            .lock()
            .unwrap()
            .push((params.progress, params.total, params.message));
    }
}

fn access(_caller: &Caller<'_>) -> Result<Grant, AccessError> {
    let view = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .allow(["@counting"])
        .build()?;
    Ok(Grant::new(view, Context::new()))
}

#[tokio::test]
async fn progress_reaches_a_stateless_http_client_that_asked_for_it() {
    let router = McpHttp::new(access)
        .endpoint("internal", "/mcp", "secret")
        .into_router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let watcher = Watcher::default();
    let config = StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"))
        .auth_header("secret");
    let client = watcher
        .clone()
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap();

    let call = || {
        ClientRequest::CallToolRequest(CallToolRequest::new(CallToolRequestParams::new(
            "get_counts",
        )))
    };
    let token = ProgressToken(NumberOrString::String("count".into()));
    let handle = client
        .send_request_with_option(
            call(),
            PeerRequestOptions::no_options()
                .with_meta(RequestMetaObject::with_progress_token(token)),
        )
        .await
        .unwrap();
    let ServerResult::CallToolResult(result) = handle.await_response().await.unwrap() else {
        panic!("a tool result");
    };
    assert_eq!(result.is_error, Some(false), "{result:?}");
    // The client handles notifications on its own tasks: wait for the three.
    for _ in 0..100 {
        if watcher.0.lock().unwrap().len() >= 3 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        *watcher.0.lock().unwrap(),
        [
            (1.0, Some(3.0), Some("step 1".to_owned())),
            (2.0, Some(3.0), Some("step 2".to_owned())),
            (3.0, Some(3.0), Some("step 3".to_owned())),
        ]
    );
}

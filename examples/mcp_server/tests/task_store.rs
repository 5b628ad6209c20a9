//! A tool that runs only as a task (`task = required`) where no task can be
//! kept: a caller of a server without a request-state key, or whose view keeps
//! no tasks (no approvals), is answered `-32603` per call, whatever it declared;
//! the tool never runs in the request. (A test binary of its own: its registry
//! must hold the task-only tool and nothing else.)

use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ErrorCode, Implementation,
    ProtocolVersion,
};
use rmcp::service::ServiceError;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt as _};
use toolkit::mcp::{AccessError, Caller, Grant, McpHttp};
use toolkit::{Context, Scope, tool};

/// How many times the tool ran.
static RAN: AtomicUsize = AtomicUsize::new(0);

/// Export every invoice: long, so only ever a task.
#[tool(scope = shared, tier = auto, task = required)]
fn get_exports() -> String {
    RAN.fetch_add(1, Ordering::SeqCst);
    "exported".to_owned()
}

/// Every tool, and no approvals: nowhere to keep a task.
fn access(_caller: &Caller<'_>) -> Result<Grant, AccessError> {
    let view = toolkit::registry().view().scopes([Scope::Shared]).build()?;
    Ok(Grant::new(view, Context::new()))
}

/// A client that declares the Tasks extension, or nothing.
#[derive(Clone)]
struct Client {
    tasks: bool,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.tasks {
            ClientCapabilities::builder().enable_tasks().build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(capabilities, Implementation::new("task-test", "0.0.0"))
    }
}

/// Where no task can be kept: the server without a request-state key, and
/// the server with one whose view keeps no approvals. Refused per call (a
/// server is built and serves whatever tools it has), never run inline.
#[tokio::test]
async fn a_caller_where_no_task_is_kept_is_refused_and_nothing_runs() {
    for keyed in [false, true] {
        let http = McpHttp::new(access);
        let http = if keyed {
            http.approvals([7_u8; 32]).expect("a key")
        } else {
            http
        };
        refused_for_both_kinds_of_client(http.endpoint("internal", "/mcp", "secret").into_router())
            .await;
    }
    assert_eq!(RAN.load(Ordering::SeqCst), 0, "the tool never ran");
}

/// A client that declares the Tasks extension and one that does not, both
/// refused `get_exports` with `-32603`.
async fn refused_for_both_kinds_of_client(router: axum::Router) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    for tasks in [true, false] {
        let config = StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"))
            .auth_header("secret");
        let client = Client { tasks }
            .serve_with_lifecycle(
                StreamableHttpClientTransport::from_config(config),
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .expect("connects");
        let refused = client
            .call_tool_once(CallToolRequestParams::new("get_exports"))
            .await
            .expect_err("never inline");
        assert!(
            matches!(&refused, ServiceError::McpError(error)
                if error.code == ErrorCode::INTERNAL_ERROR
                    && error.message
                        == "`get_exports` runs only as a task, and this server keeps no tasks for you"),
            "{refused:?}"
        );
        client.cancel().await.unwrap();
    }
}

//! A tool that runs only as a task (`task = required`) where no task can be
//! kept: a server without a request-state key refuses to start (over HTTP and
//! stdio), and a caller whose view keeps no tasks (no approvals) is answered
//! `-32603`; the tool never runs in the request.

use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ErrorCode, Implementation,
    ProtocolVersion,
};
use rmcp::service::ServiceError;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt as _};
use toolkit::mcp::{AccessError, Caller, Grant, McpHttp, McpServer};
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

const REFUSAL: &str = "the tool `get_exports` runs only as a task (`task = required`), and this \
                       MCP server keeps no tasks: give the server a request-state key \
                       (`approvals(key)`) and its callers views with approvals, or declare the \
                       tool `task = optional`";

#[test]
fn a_server_without_a_request_state_key_refuses_to_start() {
    let error = McpHttp::new(access)
        .endpoint("internal", "/mcp", "secret")
        .try_into_router()
        .expect_err("no key, a task-only tool");
    assert_eq!(error.tool, "get_exports");
    assert_eq!(error.to_string(), REFUSAL);
    let panic = std::panic::catch_unwind(|| {
        McpHttp::new(access)
            .endpoint("internal", "/mcp", "secret")
            .into_router()
    })
    .expect_err("into_router panics");
    assert_eq!(
        panic.downcast_ref::<String>().map(String::as_str),
        Some(format!("toolkit::mcp::McpHttp: {REFUSAL}").as_str())
    );
    // With a key it is built (the views decide per caller).
    assert!(
        McpHttp::new(access)
            .approvals([7_u8; 32])
            .expect("a key")
            .endpoint("internal", "/mcp", "secret")
            .try_into_router()
            .is_ok()
    );

    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let error = runtime
        .block_on(McpServer::new("internal", access).serve_stdio())
        .expect_err("refused before stdin is read");
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    assert_eq!(error.to_string(), REFUSAL);
    assert_eq!(RAN.load(Ordering::SeqCst), 0);
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

#[tokio::test]
async fn a_caller_whose_view_keeps_no_tasks_is_refused_and_nothing_runs() {
    let router = McpHttp::new(access)
        .approvals([7_u8; 32])
        .expect("a key")
        .endpoint("internal", "/mcp", "secret")
        .into_router();
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
    assert_eq!(RAN.load(Ordering::SeqCst), 0, "the tool never ran");
}

//! What a tool sees when its MCP client gives up on the call: a client's
//! `notifications/cancelled`, or an HTTP client that hangs up, drops the tool's
//! future at the await it is suspended on. Its destructors run; nothing after
//! that await happens.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use tokio::io::AsyncWriteExt as _;
use tokio::sync::Notify;
use toolkit::mcp::{Caller, Grant, McpHttp, McpServer};
use toolkit::{Context, Scope, State, tool};

/// What the slow tool tells the test.
#[derive(Clone, Default)]
struct Probe {
    started: Arc<Notify>,
    dropped: Arc<Notify>,
    finished: Arc<AtomicBool>,
}

/// Runs until its future is dropped, if it is.
struct Running(Probe);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.dropped.notify_one();
    }
}

/// Takes a minute to fetch the report.
#[tool(scope = shared, tier = auto, group = "slow")]
async fn get_reports(#[ctx] probe: State<Probe>) -> String {
    let running = Running(probe.0.clone());
    running.0.started.notify_one();
    tokio::time::sleep(Duration::from_mins(1)).await;
    running.0.finished.store(true, Ordering::SeqCst);
    "the report".to_owned()
}

fn access(probe: Probe) -> impl Fn(&Caller<'_>) -> Result<Grant, String> + Send + Sync + 'static {
    move |_caller: &Caller<'_>| {
        let view = toolkit::registry()
            .view()
            .scopes([Scope::Shared])
            .allow(["@slow"])
            .build()
            .map_err(|error| error.to_string())?;
        Ok(Grant::new(view, Context::new().with(probe.clone())))
    }
}

async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

#[tokio::test]
async fn a_cancelled_call_drops_the_tools_future() {
    let probe = Probe::default();
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new("internal", access(probe.clone()));
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await.expect("the handshake");

    // The client gives up after the tool started: rmcp's client sends
    // `notifications/cancelled` for a call whose future is dropped.
    let call = client.call_tool(CallToolRequestParams::new("get_reports"));
    let started = probe.started.clone();
    tokio::select! {
        _ = call => panic!("the call finished"),
        () = started.notified() => {}
    }
    within("the tool's future to be dropped", probe.dropped.notified()).await;
    assert!(!probe.finished.load(Ordering::SeqCst));

    // The server goes on serving.
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
}

#[tokio::test]
async fn a_hung_up_http_client_drops_the_tools_future() {
    let probe = Probe::default();
    let router = McpHttp::new(access(probe.clone()))
        .endpoint("internal", "/mcp", "secret")
        .into_router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });

    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_reports"}}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nAuthorization: Bearer secret\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    within("the tool to start", probe.started.notified()).await;
    drop(stream);
    within("the tool's future to be dropped", probe.dropped.notified()).await;
    assert!(!probe.finished.load(Ordering::SeqCst));
}

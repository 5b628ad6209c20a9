//! What a tool sees when its MCP client gives up on the call: a client's
//! `notifications/cancelled`, or an HTTP client that hangs up, drops the tool's
//! future at the await it is suspended on. Its destructors run; nothing after
//! that await happens.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::sync::Notify;
use toolkit::mcp::{AccessError, Caller, Grant, McpHttp, McpServer};
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

fn access(
    probe: Probe,
) -> impl Fn(&Caller<'_>) -> Result<Grant, AccessError> + Send + Sync + 'static {
    move |_caller: &Caller<'_>| {
        let view = toolkit::registry()
            .view()
            .scopes([Scope::Shared])
            .allow(["@slow"])
            .build()?;
        Ok(Grant::new(view, Context::new().with(probe.clone())))
    }
}

/// The tests of this file run one at a time. `tracing` keeps one global maximum
/// level, recomputed from every live subscriber whenever a callsite registers; a
/// callsite first reached by another test's thread (no subscriber there) can store
/// "off" after the span test's subscriber was added, and the span test then sees
/// no span at all.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

/// The `internal` server over an in-memory pipe, its handshaken client, and the
/// probe its `get_reports` reports to.
async fn serve_over_a_pipe() -> (RunningService<RoleClient, ()>, Probe) {
    let probe = Probe::default();
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new("internal", access(probe.clone()));
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await.expect("the handshake");
    (client, probe)
}

/// Calls `get_reports` and gives the call up once the tool has started (rmcp's
/// client sends `notifications/cancelled` for a call whose future is dropped);
/// returns when the tool's future has been dropped.
async fn give_up_once_started(client: &RunningService<RoleClient, ()>, probe: &Probe) {
    let call = client.call_tool(CallToolRequestParams::new("get_reports"));
    let started = probe.started.clone();
    tokio::select! {
        _ = call => panic!("the call finished"),
        () = started.notified() => {}
    }
    within("the tool's future to be dropped", probe.dropped.notified()).await;
}

#[tokio::test]
async fn a_cancelled_call_drops_the_tools_future() {
    let _one_at_a_time = ONE_AT_A_TIME.lock().await;
    let (client, probe) = serve_over_a_pipe().await;

    // The client gives up after the tool started.
    give_up_once_started(&client, &probe).await;
    assert!(!probe.finished.load(Ordering::SeqCst));

    // The server goes on serving.
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
}

/// The fields of every `mcp.request` span, as recorded, and the spans entered
/// (the server records its outcome on `Span::current()`, which asks the
/// subscriber).
#[derive(Clone, Default)]
struct Spans {
    recorded: Arc<Mutex<Vec<Recorded>>>,
    entered: Arc<Mutex<Vec<u64>>>,
}

/// One span: its metadata (for `current_span`) and its fields.
type Recorded = (
    &'static tracing::Metadata<'static>,
    BTreeMap<&'static str, String>,
);

impl Spans {
    fn fields(&self) -> Vec<BTreeMap<&'static str, String>> {
        let recorded = self.recorded.lock().unwrap_or_else(PoisonError::into_inner);
        recorded.iter().map(|(_, fields)| fields.clone()).collect()
    }
}

struct Fields<'a>(&'a mut BTreeMap<&'static str, String>);

impl tracing::field::Visit for Fields<'_> {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.insert(field.name(), value.to_owned());
    }

    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name(), format!("{value:?}"));
    }
}

impl tracing::Subscriber for Spans {
    fn register_callsite(
        &self,
        _: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::sometimes()
    }

    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        metadata.name() == "mcp.request"
    }

    fn new_span(&self, attributes: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut fields = BTreeMap::new();
        attributes.record(&mut Fields(&mut fields));
        let mut recorded = self.recorded.lock().unwrap_or_else(PoisonError::into_inner);
        recorded.push((attributes.metadata(), fields));
        tracing::span::Id::from_u64(recorded.len() as u64)
    }

    fn record(&self, span: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut recorded = self.recorded.lock().unwrap_or_else(PoisonError::into_inner);
        let index = usize::try_from(span.into_u64() - 1).unwrap();
        values.record(&mut Fields(&mut recorded[index].1));
    }

    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}

    fn event(&self, _: &tracing::Event<'_>) {}

    fn enter(&self, span: &tracing::span::Id) {
        let mut entered = self.entered.lock().unwrap_or_else(PoisonError::into_inner);
        entered.push(span.into_u64());
    }

    fn exit(&self, span: &tracing::span::Id) {
        let mut entered = self.entered.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(position) = entered.iter().rposition(|id| *id == span.into_u64()) {
            entered.remove(position);
        }
    }

    fn current_span(&self) -> tracing_core::span::Current {
        let entered = self.entered.lock().unwrap_or_else(PoisonError::into_inner);
        let recorded = self.recorded.lock().unwrap_or_else(PoisonError::into_inner);
        match entered.last() {
            Some(&id) => tracing_core::span::Current::new(
                tracing::span::Id::from_u64(id),
                recorded[usize::try_from(id - 1).unwrap()].0,
            ),
            None => tracing_core::span::Current::none(),
        }
    }
}

/// The `tools/call` span of a cancelled call says so (the test runs on one
/// thread, so the server's spans reach this test's subscriber).
#[tokio::test(flavor = "current_thread")]
async fn a_cancelled_calls_span_records_the_cancelled_outcome() {
    let _one_at_a_time = ONE_AT_A_TIME.lock().await;
    let spans = Spans::default();
    let _default = tracing::subscriber::set_default(spans.clone());
    let (client, probe) = serve_over_a_pipe().await;
    give_up_once_started(&client, &probe).await;
    let calls: Vec<_> = spans
        .fields()
        .iter()
        .filter(|fields| fields.get("method").map(String::as_str) == Some("tools/call"))
        .map(|fields| {
            let mut fields = fields.clone();
            fields
                .remove("duration_us")
                .expect("a duration")
                .parse::<u64>()
                .expect("microseconds");
            fields
        })
        .collect();
    let expected: BTreeMap<&str, String> = [
        ("method", "tools/call"),
        ("client", "internal"),
        ("tool", "get_reports"),
        ("outcome", "cancelled"),
    ]
    .into_iter()
    .map(|(name, value)| (name, value.to_owned()))
    .collect();
    assert_eq!(calls, [expected]);
}

#[tokio::test]
async fn a_hung_up_http_client_drops_the_tools_future() {
    let _one_at_a_time = ONE_AT_A_TIME.lock().await;
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

/// One POST of `body` to the `/mcp` endpoint, with `headers` (`Name: value\r\n` each).
fn post(headers: &str, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nAuthorization: Bearer secret\r\n\
         {headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The `_meta` a 2026-07-28 request carries.
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}"#;

/// Over stateless HTTP the cancellation is a POST of its own: the call it names
/// stops, and its answer ends at once instead of when the tool would have. For
/// clients of the 2026-07-28 revision and for older ones.
#[tokio::test]
async fn a_cancelled_http_call_stops_and_its_answer_ends() {
    let _one_at_a_time = ONE_AT_A_TIME.lock().await;
    for revision in ["2026-07-28", "older"] {
        let (call_headers, cancel_headers, call, cancel) = if revision == "older" {
            (
                String::new(),
                String::new(),
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_reports"}}"#
                    .to_owned(),
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the user gave up"}}"#
                    .to_owned(),
            )
        } else {
            let version = "MCP-Protocol-Version: 2026-07-28\r\n";
            (
                format!("{version}Mcp-Method: tools/call\r\nMcp-Name: get_reports\r\n"),
                format!("{version}Mcp-Method: notifications/cancelled\r\n"),
                format!(
                    r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"get_reports",{META}}}}}"#
                ),
                format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":7,"reason":"the user gave up",{META}}}}}"#
                ),
            )
        };
        cancel_one(revision, &call_headers, &call, &cancel_headers, &cancel).await;
    }
}

async fn cancel_one(
    revision: &str,
    call_headers: &str,
    call: &str,
    cancel_headers: &str,
    cancel: &str,
) {
    let probe = Probe::default();
    let router = McpHttp::new(access(probe.clone()))
        .endpoint("internal", "/mcp", "secret")
        .into_router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });

    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(post(call_headers, call).as_bytes())
        .await
        .unwrap();
    within("the tool to start", probe.started.notified()).await;

    let mut other = tokio::net::TcpStream::connect(addr).await.unwrap();
    other
        .write_all(post(cancel_headers, cancel).as_bytes())
        .await
        .unwrap();
    let mut accepted = String::new();
    within(
        "the cancellation's answer",
        other.read_to_string(&mut accepted),
    )
    .await
    .unwrap();
    assert!(
        accepted.starts_with("HTTP/1.1 202 "),
        "{revision}: {accepted}"
    );

    within("the tool's future to be dropped", probe.dropped.notified()).await;
    assert!(!probe.finished.load(Ordering::SeqCst));
    // The call's answer ends now, not when the tool would have (a minute).
    let mut answer = String::new();
    within(
        "the call's answer to end",
        stream.read_to_string(&mut answer),
    )
    .await
    .unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200 "), "{revision}: {head}");
    let body: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(
        body,
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": 7,
            "error": {"code": -32800, "message": "the request was cancelled"},
        }),
        "{revision}"
    );
}

/// Over streamable HTTP with sessions (rmcp's, for 2025-11-25 clients, as the
/// conformance server serves it), the cancellation is a POST on the session: the
/// call it names stops, and its event stream ends at once instead of staying open.
#[tokio::test]
async fn a_cancelled_call_on_a_session_stops_and_its_stream_ends() {
    use rmcp::transport::streamable_http_server::StreamableHttpService;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

    let _one_at_a_time = ONE_AT_A_TIME.lock().await;
    let probe = Probe::default();
    let server = McpServer::new("internal", access(probe.clone()));
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        rmcp::transport::StreamableHttpServerConfig::default().with_legacy_session_mode(true),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let send = |headers: String, body: &'static str| async move {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(post(&headers, body).as_bytes())
            .await
            .unwrap();
        stream
    };
    let read = |mut stream: tokio::net::TcpStream, what: &'static str| async move {
        let mut answer = String::new();
        within(what, stream.read_to_string(&mut answer))
            .await
            .unwrap();
        answer
    };

    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let answer = read(
        send(String::new(), initialize).await,
        "the initialize answer",
    )
    .await;
    let session = answer
        .lines()
        .find_map(|line| {
            line.to_ascii_lowercase()
                .strip_prefix("mcp-session-id: ")
                .map(|_| line["mcp-session-id: ".len()..].trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no session: {answer}"));
    let on_session = format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    let initialized = read(
        send(
            on_session.clone(),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        )
        .await,
        "the initialized answer",
    )
    .await;
    assert!(initialized.starts_with("HTTP/1.1 202 "), "{initialized}");

    let call = send(
        on_session.clone(),
        // With a progress token: the stream carries two of the call's resources.
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_reports","_meta":{"progressToken":"report"}}}"#,
    )
    .await;
    within("the tool to start", probe.started.notified()).await;
    let cancelled = read(
        send(
            on_session,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the user gave up"}}"#,
        )
        .await,
        "the cancellation's answer",
    )
    .await;
    assert!(cancelled.starts_with("HTTP/1.1 202 "), "{cancelled}");
    within("the tool's future to be dropped", probe.dropped.notified()).await;
    assert!(!probe.finished.load(Ordering::SeqCst));
    // The call's stream ends now, not when the tool would have (a minute).
    let answer = read(call, "the call's stream to end").await;
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    assert!(
        answer.contains("content-type: text/event-stream"),
        "{answer}"
    );
    // No answer to the call: a cancelled request gets none (the cancellation
    // says the client no longer waits for one).
    assert!(!answer.contains("\"id\":7"), "{answer}");
}

/// A server with sessions on answers 2026-07-28 clients, which have none, on
/// rmcp's stateless path, which drops their cancellations: under toolkit's
/// `CancellationLayer` the call stops and its answer ends at once.
#[tokio::test]
async fn a_sessionless_call_on_a_server_with_sessions_is_cancelled_under_the_layer() {
    use rmcp::transport::streamable_http_server::StreamableHttpService;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

    let _one_at_a_time = ONE_AT_A_TIME.lock().await;
    let probe = Probe::default();
    let server = McpServer::new("internal", access(probe.clone()));
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        rmcp::transport::StreamableHttpServerConfig::default().with_legacy_session_mode(true),
    );
    let service = tower::Layer::layer(&toolkit::mcp::CancellationLayer::new(), service);
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });

    let version = "MCP-Protocol-Version: 2026-07-28\r\n";
    let call_headers = format!("{version}Mcp-Method: tools/call\r\nMcp-Name: get_reports\r\n");
    let cancel_headers = format!("{version}Mcp-Method: notifications/cancelled\r\n");
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"get_reports",{META}}}}}"#
    );
    let cancel = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":7,"reason":"the user gave up",{META}}}}}"#
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(post(&call_headers, &call).as_bytes())
        .await
        .unwrap();
    within("the tool to start", probe.started.notified()).await;
    let mut other = tokio::net::TcpStream::connect(addr).await.unwrap();
    other
        .write_all(post(&cancel_headers, &cancel).as_bytes())
        .await
        .unwrap();
    let mut accepted = String::new();
    within(
        "the cancellation's answer",
        other.read_to_string(&mut accepted),
    )
    .await
    .unwrap();
    assert!(accepted.starts_with("HTTP/1.1 202 "), "{accepted}");
    within("the tool's future to be dropped", probe.dropped.notified()).await;
    assert!(!probe.finished.load(Ordering::SeqCst));
    let mut answer = String::new();
    within(
        "the call's answer to end",
        stream.read_to_string(&mut answer),
    )
    .await
    .unwrap();
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    assert!(
        answer.contains(
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32800,"message":"the request was cancelled"}}"#
        ),
        "{answer}"
    );
}

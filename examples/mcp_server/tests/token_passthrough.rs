//! A caller's token is never passed through to another MCP server: a call that
//! an external tool forwards reaches the external server with the credentials
//! the application gave `ExternalServer`, never with the caller's
//! `Authorization` header (the MCP authorization specification forbids token
//! passthrough).

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use axum::extract::Request;
use axum::middleware::Next;
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use toolkit::mcp::{AccessError, Caller, ExternalServer, ExternalTools, Grant, McpHttp, Pins};
use toolkit::{Context, Registry, Scope, Tier, tool};

/// The upstream server's one tool.
#[tool(scope = shared, tier = auto, group = "upstream")]
fn get_forecast() -> &'static str {
    "sunny"
}

const CALLER_TOKEN: &str = "the-callers-own-secret";
const UPSTREAM_TOKEN: &str = "the-applications-upstream-credential";

/// Serves `router` on a loopback port.
async fn serve(router: axum::Router) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    addr
}

#[tokio::test]
async fn an_external_server_never_sees_the_callers_token() {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    // The external server: `get_forecast` behind its own token, recording the
    // `Authorization` header of every request it receives.
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let upstream_access = |_: &Caller<'_>| -> Result<Grant, AccessError> {
        let view = toolkit::registry()
            .view()
            .scopes([Scope::Shared])
            .allow(["@upstream"])
            .build()?;
        Ok(Grant::new(view, Context::new()))
    };
    let record = Arc::clone(&seen);
    let upstream = McpHttp::new(upstream_access)
        .endpoint("front", "/mcp", UPSTREAM_TOKEN)
        .into_router()
        .layer(axum::middleware::from_fn(
            move |request: Request, next: Next| {
                let record = Arc::clone(&record);
                async move {
                    let authorization = request
                        .headers()
                        .get(http::header::AUTHORIZATION)
                        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
                        .unwrap_or_default();
                    record
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(authorization);
                    next.run(request).await
                }
            },
        ));
    let upstream_addr = serve(upstream).await;

    // The front server: the external tool, pinned, served to callers who bring
    // their own token.
    let external = ExternalServer::http(
        "upstream",
        &format!("http://{upstream_addr}/mcp"),
        Some(UPSTREAM_TOKEN),
    )
    .await
    .unwrap();
    let mut pins = Pins::new();
    pins.pin_unpinned(&external.refresh(&Pins::new()).await.unwrap());
    assert!(external.refresh(&pins).await.unwrap().is_empty());
    let external = ExternalTools::new(vec![external]);
    let registry: &'static Registry =
        REGISTRY.get_or_init(|| external.registry([], |_| Tier::Auto).unwrap());
    let front_access = move |_: &Caller<'_>| -> Result<Grant, AccessError> {
        let view = registry.view().allow(["upstream_get_forecast"]).build()?;
        Ok(Grant::new(view, Context::new()))
    };
    let front = McpHttp::new(front_access)
        .endpoint("internal", "/mcp", CALLER_TOKEN)
        .into_router();
    let front_addr = serve(front).await;

    let config = StreamableHttpClientTransportConfig::with_uri(format!("http://{front_addr}/mcp"))
        .auth_header(CALLER_TOKEN);
    let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
    let before = seen.lock().unwrap().len();
    let result = client
        .call_tool(CallToolRequestParams::new("upstream_get_forecast"))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&result.content).unwrap(),
        serde_json::json!([{"type": "text", "text": "sunny"}])
    );

    // The call was forwarded (the upstream saw a request for it) with the
    // application's credential, and the caller's token never arrived.
    let seen = seen.lock().unwrap().clone();
    assert!(
        seen.len() > before,
        "the call reached the upstream: {seen:?}"
    );
    for authorization in &seen {
        assert_eq!(authorization, &format!("Bearer {UPSTREAM_TOKEN}"));
        assert!(!authorization.contains(CALLER_TOKEN));
    }
}

//! An unknown tool name is echoed the same way on every path a caller can reach:
//! `Registry::call`, `View::call`, `View::unknown_tool` and MCP `tools/call`
//! (rmcp's own client over streamable HTTP, on loopback). Hostile names (a
//! mebibyte long, NUL, zero-width, bidirectional override, byte-order mark) come
//! back cut and with the invisible characters escaped, never as they were sent.

use crate::common;

use common::{call, text};
use example_assistant::AssistantState;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt as _};
use toolkit::{Context, ToolError};

const TOKENS: [&str; 3] = ["internal-secret", "copilot-secret", "external-secret"];

/// Each hostile name and the message every path must give for it.
fn hostile_names() -> Vec<(String, String)> {
    let long = "x".repeat(1 << 20);
    vec![
        (
            long,
            format!(
                "unknown tool `{}…(1048576 characters in all)`",
                "x".repeat(64)
            ),
        ),
        (
            "get\0tasks".to_owned(),
            "unknown tool `get\\u{0}tasks`".to_owned(),
        ),
        (
            "get\u{200b}_tasks".to_owned(),
            "unknown tool `get\\u{200b}_tasks`".to_owned(),
        ),
        (
            "\u{202e}sksat_teg".to_owned(),
            "unknown tool `\\u{202e}sksat_teg`".to_owned(),
        ),
        (
            "\u{feff}get_tasks".to_owned(),
            "unknown tool `\\u{feff}get_tasks`".to_owned(),
        ),
    ]
}

#[tokio::test]
async fn every_path_echoes_a_hostile_name_cut_and_escaped() {
    let router = example_mcp_server::http_router(
        AssistantState::new(),
        example_mcp_server::Settings::ephemeral().unwrap(),
        TOKENS,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let config =
        StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp/internal"))
            .auth_header(TOKENS[0]);
    let client = ()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(config),
            ClientLifecycleMode::Initialize,
        )
        .await
        .unwrap();

    let registry = toolkit::registry();
    let view = registry.view().build().unwrap();
    let ctx = Context::new().with(AssistantState::new());
    for (name, expected) in hostile_names() {
        let shown = &name[..name.len().min(24)];
        let from_registry = registry.call(&name, "{}", &ctx).await;
        let from_view = view.call(&name, "{}", &ctx).await;
        let unknown = view.unknown_tool(&name);
        let over_mcp = client
            .call_tool(call(&name, serde_json::json!({})))
            .await
            .unwrap();

        assert!(
            matches!(
                unknown,
                ToolError::UnknownTool {
                    suggestion: None,
                    ..
                }
            ),
            "{shown:?}"
        );
        assert_eq!(unknown.to_string(), expected, "{shown:?}");
        assert_eq!(from_registry.error(), Some(&unknown), "{shown:?}");
        assert_eq!(from_view.error(), Some(&unknown), "{shown:?}");
        assert_eq!(over_mcp.is_error, Some(true), "{shown:?}");
        assert_eq!(text(&over_mcp), expected, "{shown:?}");
        // An error result carries no structured content (a client validates that
        // against the tool's output schema); its detail is in `_meta`.
        assert_eq!(over_mcp.structured_content, None, "{shown:?}");
        let detail = over_mcp
            .meta
            .as_ref()
            .and_then(|meta| meta.0.get(toolkit::mcp::META_ERROR));
        assert_eq!(
            detail,
            toolkit::Response::Error(unknown).to_json().get("error"),
            "{shown:?}"
        );
    }
}

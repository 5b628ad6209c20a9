//! rmcp's own client drives the example binary over stdio, as Claude Desktop or
//! Cursor would start it.

use crate::common;

use common::{EXTERNAL_TOOLS, call, text};
use rmcp::model::ProtocolVersion;
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt as _, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt as _, RoleClient};
use serde_json::json;

async fn start(client: &str, lifecycle: ClientLifecycleMode) -> RunningService<RoleClient, ()> {
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp_server")).configure(|cmd| {
        cmd.args(["stdio", "--client", client]);
    });
    let transport = TokioChildProcess::new(command).expect("the example binary starts");
    ().serve_with_lifecycle(transport, lifecycle)
        .await
        .expect("the server answers the client's start-up")
}

#[tokio::test]
async fn the_handshake_revision_lists_and_calls_the_clients_view() {
    let client = start("external", ClientLifecycleMode::Initialize).await;
    let info = client.peer_info().expect("initialized");
    assert_eq!(
        info.server_info.as_ref().map(|server| server.name.as_str()),
        Some("toolkit")
    );

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| &*tool.name).collect();
    assert_eq!(names, EXTERNAL_TOOLS);

    let created = client
        .call_tool(call(
            "create_tasks",
            json!({"tasks": [{"title": "Water the plants"}]}),
        ))
        .await
        .unwrap();
    assert_eq!(created.is_error, Some(false), "{created:?}");

    let listed = client
        .call_tool(call("get_tasks", json!({"id": 1})))
        .await
        .unwrap();
    assert_eq!(listed.is_error, Some(false));
    assert_eq!(
        text(&listed),
        r#"[{"id":1,"title":"Water the plants","priority":"normal","done":false}]"#
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_stateless_revision_works_over_stdio_too() {
    let client = start(
        "internal",
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 23);
    let bad = client
        .call_tool(call("get_tasks", json!({"limit": "ten"})))
        .await
        .unwrap();
    assert_eq!(bad.is_error, Some(true));
    let expected = common::direct_message("get_tasks", &json!({"limit": "ten"})).await;
    assert!(
        expected.starts_with("invalid arguments at `limit`: "),
        "{expected}"
    );
    assert_eq!(text(&bad), expected);
    client.cancel().await.unwrap();
}

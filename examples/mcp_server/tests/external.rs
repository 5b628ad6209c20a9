//! Tools on another MCP server (a second process: this crate's binary over
//! stdio), served beside local tools under a label, pinned by hash.

mod common;

use std::sync::Arc;

use common::{call, text};
use rmcp::model::ProtocolVersion;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt as _};
use serde_json::json;
use toolkit::mcp::{
    ExternalReport, ExternalServer, ExternalTools, Grant, McpHttp, Pins, Selection,
};

async fn attach() -> ExternalServer {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp_server"));
    command.args(["stdio", "--client", "external"]);
    ExternalServer::stdio("assistant", command).await.unwrap()
}

const REMOTE: [&str; 3] = [
    "assistant_create_tasks",
    "assistant_get_tasks",
    "assistant_update_tasks",
];

#[tokio::test]
async fn pinned_external_tools_are_served_and_calls_forwarded() {
    let mut server = attach().await;
    let reports = server.refresh(&Pins::new()).await.unwrap().to_vec();
    // Nothing is served before a person pins it.
    assert!(server.tools().is_empty());
    let unpinned: Vec<&str> = reports
        .iter()
        .map(|report| match report {
            ExternalReport::Unpinned { tool, .. } => tool.as_str(),
            other => panic!("only unpinned tools at first: {other:?}"),
        })
        .collect();
    assert_eq!(unpinned, REMOTE);
    let mut pins = Pins::new();
    pins.pin_unpinned(&reports);
    assert!(server.refresh(&pins).await.unwrap().is_empty());
    assert_eq!(
        server.remote_name("assistant_get_tasks").as_deref(),
        Some("get_tasks")
    );

    // A local server: one local tool plus the external ones.
    let external = Arc::new(ExternalTools::new(vec![server]));
    let access = {
        let external = Arc::clone(&external);
        move |_: &toolkit::mcp::Caller<'_>| -> Result<Grant, String> {
            let local = Selection::new(toolkit::registry(), |tool| tool.name == "get_context");
            let ctx = toolkit::Context::new().with(example_assistant::AssistantState::new());
            Ok(Grant::new(local, ctx).with_external(Arc::clone(&external)))
        }
    };
    let router = McpHttp::new(access)
        .endpoint("internal", "/mcp", "token")
        .into_router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let config = StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"))
        .auth_header("token");
    let client = ()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(config),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| &*tool.name).collect();
    assert_eq!(names, ["get_context", REMOTE[0], REMOTE[1], REMOTE[2]]);
    let get = &tools[2];
    assert_eq!(
        get.annotations, None,
        "the remote's hints are not passed on"
    );
    assert_eq!(
        get.meta
            .as_ref()
            .and_then(|meta| meta.get("toolkit/external")),
        Some(&json!({"server": "assistant", "name": "get_tasks"}))
    );

    let created = client
        .call_tool(call(
            "assistant_create_tasks",
            json!({"tasks": [{"title": "Water the plants"}]}),
        ))
        .await
        .unwrap();
    assert_eq!(created.is_error, Some(false), "{created:?}");
    let read = client
        .call_tool(call("assistant_get_tasks", json!({"id": 1})))
        .await
        .unwrap();
    assert_eq!(
        read.structured_content,
        Some(json!([{"id": 1, "title": "Water the plants", "priority": "normal", "done": false}]))
    );
    // The remote's tool errors come back as they are.
    let bad = client
        .call_tool(call("assistant_get_tasks", json!({"limit": "ten"})))
        .await
        .unwrap();
    assert_eq!(bad.is_error, Some(true));
    // A remote tool the remote does not serve to us is unknown here too.
    let hidden = client
        .call_tool(call("assistant_delete_tasks", json!({"ids": [1]})))
        .await
        .unwrap();
    assert_eq!(text(&hidden), "unknown tool `assistant_delete_tasks`");
}

#[tokio::test]
async fn a_changed_pinned_definition_is_withheld_and_reported() {
    let mut server = attach().await;
    let first = server.refresh(&Pins::new()).await.unwrap().to_vec();
    let mut pins = Pins::new();
    pins.pin_unpinned(&first);
    // What was reviewed differs from what the server sends now.
    pins.pin("assistant_get_tasks", "sha256:00");
    let withheld = server.refresh(&pins).await.unwrap().to_vec();
    let kept: Vec<&str> = server
        .tools()
        .iter()
        .map(|tool| tool.name.as_str())
        .collect();
    assert_eq!(kept, ["assistant_create_tasks", "assistant_update_tasks"]);
    assert_eq!(withheld.len(), 1);
    let ExternalReport::Changed { tool, pinned, .. } = &withheld[0] else {
        panic!("a changed definition: {withheld:?}");
    };
    assert_eq!(
        (tool.as_str(), pinned.as_str()),
        ("assistant_get_tasks", "sha256:00")
    );
}

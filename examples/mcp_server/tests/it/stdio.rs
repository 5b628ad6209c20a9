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

/// A client that declares the MCP Tasks extension (SEP-2663), and nothing else.
#[derive(Clone)]
struct TaskClient;

impl rmcp::ClientHandler for TaskClient {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        rmcp::model::ClientConfig::new(
            rmcp::model::ClientCapabilities::builder()
                .enable_tasks()
                .build(),
            rmcp::model::Implementation::new("task-test", "0.0.0"),
        )
    }
}

async fn start_tasks(lifecycle: ClientLifecycleMode) -> RunningService<RoleClient, TaskClient> {
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp_server")).configure(|cmd| {
        cmd.args(["stdio", "--client", "internal"]);
    });
    let transport = TokioChildProcess::new(command).expect("the example binary starts");
    TaskClient
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .expect("the server answers the client's start-up")
}

/// A 2025-11-25 client that declares the Tasks extension in its `initialize`
/// (MCP Inspector does) speaks the revision's experimental tasks, not SEP-2663:
/// an `approve` call answers it with the plain result (the pending approval), never
/// a 2026-07-28 task handle, and `tasks/get` is `-32021`. A 2026-07-28 client
/// that declares it gets the task.
#[tokio::test]
async fn a_handshake_client_declaring_tasks_gets_the_plain_result() {
    use rmcp::model::{CallToolResponse, GetTaskParams};
    let forget = || call("delete_memories", json!({"ids": [1]}));

    let legacy = start_tasks(ClientLifecycleMode::Initialize).await;
    assert_eq!(
        legacy.peer_info().map(|info| info.protocol_version.clone()),
        Some(ProtocolVersion::V_2025_11_25)
    );
    let answer = legacy.call_tool_once(forget()).await.unwrap();
    let CallToolResponse::Complete(result) = answer else {
        panic!("a 2025-11-25 client gets no task handle: {answer:?}");
    };
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        text(&result),
        "`delete_memories` waits for a person's approval; it has not run"
    );
    let pending = &result.meta.as_ref().unwrap().0["toolkit/pending_approval"];
    assert_eq!(pending["tool"], "delete_memories");
    let refused = legacy
        .get_task(GetTaskParams::new(pending["call_id"].as_str().unwrap()))
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, rmcp::service::ServiceError::McpError(error)
            if error.code == rmcp::model::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
                && error.data == Some(json!({"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}))),
        "{refused:?}"
    );
    legacy.cancel().await.unwrap();

    let current = start_tasks(ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    })
    .await;
    let answer = current.call_tool_once(forget()).await.unwrap();
    let CallToolResponse::Task(task) = answer else {
        panic!("a 2026-07-28 client that declares tasks gets one: {answer:?}");
    };
    let got = current
        .get_task(GetTaskParams::new(&task.task.task_id))
        .await
        .unwrap();
    assert_eq!(got.task.task.status, rmcp::model::TaskStatus::InputRequired);
    current.cancel().await.unwrap();
}

/// A client that declares MCP Apps.
#[derive(Clone)]
struct AppsClient;

impl rmcp::ClientHandler for AppsClient {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut capabilities = rmcp::model::ClientCapabilities::default();
        capabilities.extensions = Some(
            [(
                toolkit::mcp::apps::EXTENSION.to_owned(),
                json!({"mimeTypes": [toolkit::mcp::apps::MIME_TYPE]})
                    .as_object()
                    .cloned()
                    .unwrap(),
            )]
            .into(),
        );
        rmcp::model::ClientConfig::new(
            capabilities,
            rmcp::model::Implementation::new("apps-test", "0.0.0"),
        )
    }
}

/// Over stdio too, a client that declares MCP Apps gets the approval card on an
/// `approve` tool and can read it; a client that does not gets no card.
#[tokio::test]
async fn over_stdio_an_apps_client_gets_the_cards() {
    use toolkit::mcp::apps::{APPROVAL_CARD, MIME_TYPE};
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp_server")).configure(|cmd| {
        cmd.args(["stdio", "--client", "internal"]);
    });
    let transport = TokioChildProcess::new(command).expect("the example binary starts");
    let apps = AppsClient
        .serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
        .await
        .expect("the server answers the client's start-up");
    let tools = apps.list_all_tools().await.unwrap();
    let forget = tools
        .iter()
        .find(|tool| tool.name == "delete_memories")
        .unwrap();
    assert_eq!(
        forget.meta.as_ref().unwrap().0["ui"],
        json!({"resourceUri": APPROVAL_CARD})
    );
    let read = apps
        .read_resource(rmcp::model::ReadResourceRequestParams::new(APPROVAL_CARD))
        .await
        .unwrap();
    let content = serde_json::to_value(&read.contents[0]).unwrap();
    assert_eq!(content["mimeType"], MIME_TYPE);

    let plain = start("internal", ClientLifecycleMode::Initialize).await;
    let tools = plain.list_all_tools().await.unwrap();
    assert!(tools.iter().all(|tool| {
        tool.meta
            .as_ref()
            .is_none_or(|meta| meta.0.get("ui").is_none())
    }));
}

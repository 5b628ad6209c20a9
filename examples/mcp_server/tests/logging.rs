//! `logging/setLevel` where there is a session (one connection, as over stdio):
//! the level the client sets holds for the rest of it, and a tool's less severe
//! messages are not sent.

#![allow(deprecated)] // logging is deprecated in rmcp for 2026-07-28 (SEP-2577)

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, LoggingLevel, LoggingMessageNotificationParam, SetLevelRequestParams,
};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient, ServiceExt as _};
use serde_json::{Value, json};
use toolkit::mcp::{AccessError, Caller, Grant, McpRequest, McpServer};
use toolkit::{Context, Scope, tool};

/// Logs one message at each of three levels.
#[tool(scope = shared, tier = auto, group = "logging")]
async fn get_logs(#[ctx] request: McpRequest) -> Result<u32, toolkit::ToolError> {
    request.log(LoggingLevel::Debug, json!("debug")).await?;
    request.log(LoggingLevel::Warning, json!("warning")).await?;
    request.log(LoggingLevel::Error, json!("error")).await?;
    Ok(3)
}

/// A client that keeps the log messages it is sent.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<Value>>>);

impl ClientHandler for Log {
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0.lock().unwrap().push(params.data);
    }
}

fn access(_caller: &Caller<'_>) -> Result<Grant, AccessError> {
    let view = toolkit::registry()
        .view()
        .scopes([Scope::Shared])
        .allow(["@logging"])
        .build()?;
    Ok(Grant::new(view, Context::new()))
}

/// Calls `get_logs` and gives the messages received once the error one is in.
async fn messages(
    client: &rmcp::service::RunningService<RoleClient, Log>,
    log: &Log,
) -> Vec<Value> {
    log.0.lock().unwrap().clear();
    client
        .call_tool(CallToolRequestParams::new("get_logs"))
        .await
        .unwrap();
    for _ in 0..100 {
        if log.0.lock().unwrap().last() == Some(&json!("error")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    log.0.lock().unwrap().clone()
}

#[tokio::test]
async fn the_level_a_client_sets_holds_for_its_session() {
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new("internal", access);
    tokio::spawn(async move { server.serve(server_end).await.unwrap().waiting().await });
    let log = Log::default();
    let client = log.clone().serve(client_end).await.unwrap();

    assert_eq!(
        messages(&client, &log).await,
        [json!("debug"), json!("warning"), json!("error")]
    );
    client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Warning))
        .await
        .unwrap();
    assert_eq!(
        messages(&client, &log).await,
        [json!("warning"), json!("error")]
    );
    client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Error))
        .await
        .unwrap();
    assert_eq!(messages(&client, &log).await, [json!("error")]);

    // Another session starts with every level.
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new("internal", access);
    tokio::spawn(async move { server.serve(server_end).await.unwrap().waiting().await });
    let other = Log::default();
    let client = other.clone().serve(client_end).await.unwrap();
    assert_eq!(messages(&client, &other).await.len(), 3);
}

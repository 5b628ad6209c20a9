//! Tasks of any tool (`#[tool(task = ...)]`), over streamable HTTP against the
//! conformance server's fixtures: a 2026-07-28 client that declares the Tasks
//! extension gets a task handle, polls it to its outcome (a result, the tool's
//! own error, a protocol error), cancels a long one; a client that declares
//! nothing gets the plain result, or `-32021` for a tool that must be a task; and
//! nobody reads a task that is not theirs.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    ErrorCode, GetTaskParams, GetTaskResult, Implementation, TaskStatus,
};
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt as _, RoleClient};
use serde_json::json;

use crate::common::conformance::Server;
use crate::common::stateless;

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

fn serve() -> Server {
    crate::common::conformance::serve(&[])
}

async fn connect(
    url: &str,
    tasks: bool,
    lifecycle: ClientLifecycleMode,
) -> RunningService<RoleClient, Client> {
    Client { tasks }
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(url.to_owned()),
            lifecycle,
        )
        .await
        .expect("connects")
}

fn call(name: &'static str, arguments: serde_json::Value) -> CallToolRequestParams {
    let serde_json::Value::Object(arguments) = arguments else {
        panic!("arguments are an object");
    };
    CallToolRequestParams::new(name).with_arguments(arguments)
}

/// Polls task `id` until it ends (ten seconds at most).
async fn ended(client: &RunningService<RoleClient, Client>, id: &str) -> serde_json::Value {
    for _ in 0..200 {
        let task: GetTaskResult = client.get_task(GetTaskParams::new(id)).await.unwrap();
        if task.task.status().is_terminal() {
            let mut json = serde_json::to_value(&task).unwrap();
            for key in ["createdAt", "lastUpdatedAt"] {
                json.as_object_mut().unwrap().remove(key);
            }
            return json;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("task {id} never ended");
}

async fn task_id(
    client: &RunningService<RoleClient, Client>,
    request: CallToolRequestParams,
) -> String {
    match client.call_tool_once(request).await.unwrap() {
        CallToolResponse::Task(created) => {
            assert_eq!(created.task.status, TaskStatus::Working);
            assert_eq!(created.task.ttl_ms, Some(3_600_000));
            created.task.task_id
        }
        other => panic!("a task tool answers a task client with a task: {other:?}"),
    }
}

#[tokio::test]
async fn a_task_of_any_tool_is_polled_to_its_outcome_or_cancelled() {
    let server = serve();
    let client = connect(&server.1, true, stateless()).await;

    let id = task_id(
        &client,
        call("slow_compute", json!({"seconds": 0, "label": "now"})),
    )
    .await;
    assert_eq!(id.len(), 37, "{id}");
    assert_eq!(
        ended(&client, &id).await,
        json!({
            "resultType": "complete",
            "taskId": id,
            "status": "completed",
            "statusMessage": "`slow_compute` ran",
            "ttlMs": 3_600_000,
            "pollIntervalMs": 1000,
            "result": {
                "resultType": "complete",
                "content": [{"type": "text", "text": "computed now in 0 s"}],
                "isError": false,
            },
        })
    );

    // The tool's own error completes the task; a panic fails it.
    let id = task_id(&client, call("failing_job", json!({}))).await;
    let failed = ended(&client, &id).await;
    assert_eq!(failed["status"], "completed", "{failed}");
    assert_eq!(failed["result"]["isError"], true, "{failed}");
    assert_eq!(
        failed["result"]["content"],
        json!([{"type": "text", "text": "the job failed, as it always does"}])
    );
    let id = task_id(&client, call("protocol_error_job", json!({}))).await;
    let failed = ended(&client, &id).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    assert_eq!(failed["error"]["data"]["kind"], "panicked", "{failed}");
    assert!(failed.get("result").is_none(), "{failed}");

    // Cancelled while it runs: its run stops, and the task ends cancelled.
    let id = task_id(&client, call("slow_compute", json!({"seconds": 3600}))).await;
    client
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap();
    let cancelled = ended(&client, &id).await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    // Cancelling what ended is acknowledged, and changes nothing.
    client
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap();
    assert_eq!(ended(&client, &id).await, cancelled);

    // Invalid arguments make no task: answered at once, as the call would be.
    match client
        .call_tool_once(call("slow_compute", json!({"seconds": "ten"})))
        .await
        .unwrap()
    {
        CallToolResponse::Complete(result) => assert_eq!(result.is_error, Some(true)),
        other => panic!("bad arguments make no task: {other:?}"),
    }

    // Unknown, malformed and huge ids: -32602, nothing else said.
    for unknown in [
        "task_00000000000000000000000000000000".to_owned(),
        "approval_1".to_owned(),
        "task_".to_owned() + &"f".repeat(10_000),
    ] {
        let refused = client
            .get_task(GetTaskParams::new(&unknown))
            .await
            .unwrap_err();
        assert!(
            matches!(&refused, ServiceError::McpError(error) if error.code == ErrorCode::INVALID_PARAMS),
            "{refused:?}"
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_without_tasks_gets_the_result_or_minus_32021() {
    let server = serve();
    for (lifecycle, tasks) in [
        (stateless(), false),
        // The 2025-11-25 handshake, the extension declared anyway: not its revision.
        (ClientLifecycleMode::Initialize, true),
    ] {
        let client = connect(&server.1, tasks, lifecycle).await;
        match client
            .call_tool_once(call("slow_compute", json!({"seconds": 0, "label": "now"})))
            .await
            .unwrap()
        {
            CallToolResponse::Complete(result) => {
                assert_eq!(result.is_error, Some(false));
                assert_eq!(
                    serde_json::to_value(&result.content).unwrap(),
                    json!([{"type": "text", "text": "computed now in 0 s"}])
                );
            }
            other => panic!("no task without the extension: {other:?}"),
        }
        let refused = client
            .call_tool_once(call("failing_job", json!({})))
            .await
            .unwrap_err();
        assert!(
            matches!(&refused, ServiceError::McpError(error)
                if error.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
                    && error.data == Some(json!({"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}))),
            "{refused:?}"
        );
        let refused = client
            .get_task(GetTaskParams::new("task_00000000000000000000000000000000"))
            .await
            .unwrap_err();
        assert!(
            matches!(&refused, ServiceError::McpError(error)
                if error.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY),
            "{refused:?}"
        );
        client.cancel().await.unwrap();
    }
}

/// The progress a task's tool reports is kept with the task: `tasks/get` says
/// the latest in its `statusMessage` and, as numbers, under
/// `_meta["toolkit/progress"]` (the Tasks extension has no field for it); once
/// the task ends, neither is there.
#[tokio::test]
async fn a_tasks_progress_is_kept_and_shown_by_tasks_get() {
    let server = serve();
    let client = connect(&server.1, true, stateless()).await;
    let id = task_id(&client, call("slow_compute", json!({"seconds": 3}))).await;
    let mut seen = Vec::new();
    for _ in 0..200 {
        let task = client.get_task(GetTaskParams::new(&id)).await.unwrap();
        if task.task.status().is_terminal() {
            break;
        }
        let json = serde_json::to_value(&task).unwrap();
        if let Some(step) = json["_meta"]["toolkit/progress"]["progress"].as_f64() {
            assert_eq!(
                (&json["_meta"], &json["statusMessage"]),
                (
                    &json!({"toolkit/progress": {"progress": step, "total": 3.0, "message": "computing"}}),
                    &json!(format!(
                        "`slow_compute` runs now (attempt 1): {step} of 3 (computing)"
                    )),
                ),
                "{json}"
            );
            if seen.last() != Some(&step) {
                seen.push(step);
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(seen, [0.0, 1.0, 2.0], "each second's report, in order");
    let done = ended(&client, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert!(done.get("_meta").is_none(), "{done}");
    client.cancel().await.unwrap();
}

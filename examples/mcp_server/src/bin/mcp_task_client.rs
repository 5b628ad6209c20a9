//! rmcp's client speaking MCP Tasks (SEP-2663) to a server, one request per run,
//! for the fleet test (`scripts/fleet_test.py`), which sends each request of one
//! task through a different replica:
//!
//! ```text
//! mcp_task_client URL TOKEN call TOOL ARGUMENTS_JSON   # the created task
//! mcp_task_client URL TOKEN get TASK_ID                # tasks/get
//! mcp_task_client URL TOKEN update TASK_ID ACTION      # tasks/update (accept, decline)
//! mcp_task_client URL TOKEN cancel TASK_ID             # tasks/cancel
//! ```
//!
//! It prints the answer as one line of JSON; exit status 1 with the error on
//! stderr when the request fails.

use std::collections::BTreeMap;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, Implementation, ProtocolVersion, UpdateTaskParams,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt as _};

/// Declares the tasks extension on every request (and nothing else).
#[derive(Clone)]
struct TaskClient;

impl ClientHandler for TaskClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_tasks().build(),
            Implementation::new("mcp_task_client", env!("CARGO_PKG_VERSION")),
        )
    }
}

fn fail(message: &str) -> ! {
    eprintln!("mcp_task_client: {message}");
    std::process::exit(1)
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, token, command, rest @ ..] = args.as_slice() else {
        fail("usage: mcp_task_client URL TOKEN call|get|update|cancel ...");
    };
    let config = StreamableHttpClientTransportConfig::with_uri(url.clone()).auth_header(token);
    let client = TaskClient
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(config),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap_or_else(|error| fail(&format!("could not connect: {error}")));
    let answer = match (command.as_str(), rest) {
        ("call", [tool, arguments]) => {
            let arguments = serde_json::from_str(arguments).unwrap_or_else(|error| {
                fail(&format!("the arguments are no JSON object: {error}"))
            });
            let params = CallToolRequestParams::new(tool.clone()).with_arguments(arguments);
            client
                .call_tool_once(params)
                .await
                .map(|response| match response {
                    CallToolResponse::Task(task) => serde_json::to_value(task),
                    CallToolResponse::InputRequired(input) => serde_json::to_value(input),
                    CallToolResponse::Complete(result) => serde_json::to_value(result),
                    other => Ok(serde_json::json!({"unknown": format!("{other:?}")})),
                })
                .map(Result::unwrap_or_default)
        }
        ("get", [task]) => client
            .get_task(GetTaskParams::new(task))
            .await
            .map(|task| serde_json::to_value(task).unwrap_or_default()),
        ("update", [task, action]) => client
            .update_task(UpdateTaskParams::new(
                task,
                BTreeMap::from([("approval".to_owned(), serde_json::json!({"action": action}))]),
            ))
            .await
            .map(|()| serde_json::json!({})),
        ("cancel", [task]) => client
            .cancel_task(CancelTaskParams::new(task))
            .await
            .map(|()| serde_json::json!({})),
        _ => fail("usage: mcp_task_client URL TOKEN call|get|update|cancel ..."),
    };
    match answer {
        Ok(answer) => println!("{answer}"),
        Err(error) => fail(&error.to_string()),
    }
}

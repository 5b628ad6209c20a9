//! `tools/list` and `tools/call` over streamable HTTP on loopback: the toolkit
//! server (the example's `external` endpoint: a view of three task tools, built
//! per request, behind a bearer token) against an rmcp server written the usual
//! way (`#[tool_router]`, the same three tool names, no auth), both stateless with
//! JSON responses, driven one request at a time by rmcp's client on the 2026-07-28
//! revision. Prints a Markdown table for BENCHMARKS.md.
//!
//! Run it in release: `cargo run --release -p example-mcp-server --bin mcp_bench`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use example_assistant::AssistantState;
use example_mcp_server::Settings;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{CallToolRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{
    StreamableHttpClientTransport, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::{
    ClientLifecycleMode, ClientServiceExt as _, RoleClient, ServerHandler, tool, tool_handler,
    tool_router,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One task, as the usual-way server stores it.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
struct Task {
    id: u32,
    title: String,
    done: bool,
}

/// `get_tasks` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
struct GetTasks {
    /// Return only this task.
    id: Option<u32>,
    /// At most this many tasks.
    limit: Option<u32>,
}

/// A new task.
#[derive(Debug, Deserialize, JsonSchema)]
struct NewTask {
    /// What to do.
    title: String,
}

/// `create_tasks` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
struct CreateTasks {
    /// The tasks to create.
    tasks: Vec<NewTask>,
}

/// An update.
#[derive(Debug, Deserialize, JsonSchema)]
struct TaskUpdate {
    /// Which task.
    id: u32,
    /// Whether it is done.
    done: Option<bool>,
}

/// `update_tasks` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
struct UpdateTasks {
    /// The updates.
    tasks: Vec<TaskUpdate>,
}

/// The tasks, as a list.
#[derive(Debug, Serialize, JsonSchema)]
struct Tasks {
    tasks: Vec<Task>,
}

/// The rmcp server written the usual way.
#[derive(Clone)]
struct Usual {
    tasks: Arc<Mutex<Vec<Task>>>,
}

#[tool_router]
impl Usual {
    #[tool(description = "Get tasks.")]
    fn get_tasks(&self, Parameters(args): Parameters<GetTasks>) -> Json<Tasks> {
        let tasks = self
            .tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let limit = args.limit.unwrap_or(20) as usize;
        Json(Tasks {
            tasks: tasks
                .iter()
                .filter(|task| args.id.is_none_or(|id| task.id == id))
                .take(limit)
                .cloned()
                .collect(),
        })
    }

    #[tool(description = "Create tasks.")]
    fn create_tasks(&self, Parameters(args): Parameters<CreateTasks>) -> Json<Tasks> {
        let mut tasks = self
            .tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut created = Vec::new();
        for new in args.tasks {
            let task = Task {
                id: u32::try_from(tasks.len()).unwrap_or(u32::MAX) + 1,
                title: new.title,
                done: false,
            };
            tasks.push(task.clone());
            created.push(task);
        }
        Json(Tasks { tasks: created })
    }

    #[tool(description = "Update tasks.")]
    fn update_tasks(&self, Parameters(args): Parameters<UpdateTasks>) -> Json<Tasks> {
        let mut tasks = self
            .tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut updated = Vec::new();
        for update in args.tasks {
            if let Some(task) = tasks.iter_mut().find(|task| task.id == update.id) {
                task.done = update.done.unwrap_or(task.done);
                updated.push(task.clone());
            }
        }
        Json(Tasks { tasks: updated })
    }
}

#[tool_handler]
impl ServerHandler for Usual {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

async fn serve(router: axum::Router) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(async move { axum::serve(listener, router).await });
    addr
}

async fn connect(url: String, token: Option<&str>) -> RunningService<RoleClient, ()> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    ().serve_with_lifecycle(
        StreamableHttpClientTransport::from_config(config),
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .expect("the server answers")
}

const WARM_UP: usize = 200;
const ROUNDS: usize = 3000;

/// Median latency and requests per second of `ROUNDS` sequential requests.
async fn measure<F, Fut>(mut request: F) -> (Duration, f64)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = ()>,
{
    for _ in 0..WARM_UP {
        request().await;
    }
    let mut samples = Vec::with_capacity(ROUNDS);
    let started = Instant::now();
    for _ in 0..ROUNDS {
        let one = Instant::now();
        request().await;
        samples.push(one.elapsed());
    }
    let total = started.elapsed();
    samples.sort_unstable();
    #[allow(clippy::cast_precision_loss)] // a few thousand rounds
    let per_second = ROUNDS as f64 / total.as_secs_f64();
    (samples[ROUNDS / 2], per_second)
}

fn get_tasks() -> CallToolRequestParams {
    let arguments = serde_json::json!({"limit": 5});
    CallToolRequestParams::new("get_tasks")
        .with_arguments(arguments.as_object().cloned().unwrap_or_default())
}

#[tokio::main]
async fn main() {
    let toolkit_router = example_mcp_server::http_router(
        AssistantState::new(),
        Settings::ephemeral().expect("random keys"),
        ["internal-token", "copilot-token", "external-token"],
    );
    let toolkit_addr = serve(toolkit_router).await;
    let usual = Usual {
        tasks: Arc::default(),
    };
    let service = StreamableHttpService::new(
        move || Ok(usual.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_sse_keep_alive(None),
    );
    let usual_addr = serve(axum::Router::new().nest_service("/mcp", service)).await;

    let toolkit = connect(
        format!("http://{toolkit_addr}/mcp/external"),
        Some("external-token"),
    )
    .await;
    let usual = connect(format!("http://{usual_addr}/mcp"), None).await;
    for client in [&toolkit, &usual] {
        let names: Vec<String> = client
            .list_all_tools()
            .await
            .expect("tools/list")
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect();
        assert_eq!(names.len(), 3, "{names:?}");
    }

    println!("| request | server | median latency | requests/s |");
    println!("|---|---|---|---|");
    for (label, client) in [
        ("toolkit (view per request, token)", &toolkit),
        ("rmcp `#[tool_router]`", &usual),
    ] {
        let (median, rate) = measure(|| async {
            client.list_tools(None).await.expect("tools/list");
        })
        .await;
        println!(
            "| `tools/list` (3 tools) | {label} | {} µs | {rate:.0} |",
            median.as_micros()
        );
    }
    for (label, client) in [
        ("toolkit (view per request, token)", &toolkit),
        ("rmcp `#[tool_router]`", &usual),
    ] {
        let (median, rate) = measure(|| async {
            let result = client.call_tool(get_tasks()).await.expect("tools/call");
            assert_eq!(result.is_error, Some(false));
        })
        .await;
        println!(
            "| `tools/call get_tasks` | {label} | {} µs | {rate:.0} |",
            median.as_micros()
        );
    }
}

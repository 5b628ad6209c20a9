//! The servers of the load benchmark (`scripts/load_bench.sh`): the same two tools,
//! `get_sum` (two integers in, their sum out: the trivial tool) and `set_pages` (a
//! count the schema constrains to 1..=100: the constrained tool), served over
//! stateless streamable HTTP with JSON responses, either
//!
//! - `toolkit`: `#[tool]` functions served by toolkit's `McpHttp` (the access
//!   hook's view kept in a `ViewCache`, a bearer token, the tier check, the schema
//!   enforced before the typed parse), as the example server serves the
//!   assistant's tools; or
//! - `rmcp`: the same tools written directly on rmcp (`#[tool_router]`,
//!   `Parameters<T>`, the range checked by hand), served by rmcp's
//!   `StreamableHttpService` with the same transport settings and the same
//!   bearer-token check (an axum middleware); its `#[tool_handler]` builds the
//!   tool router per request, as rmcp's own quick example does;
//! - `rmcp-shared`: the same, with the router built once and shared.
//!
//! ```text
//! load_server toolkit|rmcp|rmcp-shared [--addr 127.0.0.1:0]
//! ```
//!
//! Once listening it prints `listening on http://ADDR/mcp` on stdout. Every
//! endpoint wants `Authorization: Bearer load-token`.

use std::io::Write as _;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use toolkit::mcp::{AccessError, Caller, Grant, McpHttp, ViewCache};
use toolkit::{Context, Scope};

// The assistant's 23 tools are registered too, as in the example server, so the
// per-request view is picked from a registry of the same size (the view keeps
// the two tools of group `load`).
#[allow(unused_extern_crates)]
extern crate example_assistant;

const USAGE: &str = "usage: load_server toolkit|rmcp|rmcp-shared [--addr 127.0.0.1:0]";

/// The bearer token of every endpoint.
const TOKEN: &str = "load-token";

/// Get the sum of two numbers.
#[toolkit::tool(scope = shared, tier = auto, group = "load")]
fn get_sum(
    /// The first number.
    a: i64,
    /// The second number.
    b: i64,
) -> i64 {
    a.wrapping_add(b)
}

/// Set the page count of the document.
#[toolkit::tool(scope = shared, tier = auto, group = "load")]
fn set_pages(
    /// How many pages, 1 to 100.
    #[schemars(range(min = 1, max = 100))]
    count: u32,
    /// Keep it on top.
    #[tool(default = false)]
    pinned: bool,
) -> u32 {
    if pinned { count } else { count + 1 }
}

/// `get_sum`'s arguments, written out for rmcp.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Sum {
    /// The first number.
    a: i64,
    /// The second number.
    b: i64,
}

/// `set_pages`' arguments, written out for rmcp.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Pages {
    /// How many pages, 1 to 100.
    #[schemars(range(min = 1, max = 100))]
    count: u32,
    /// Keep it on top.
    #[serde(default)]
    pinned: bool,
}

/// The same tools on rmcp alone.
#[derive(Clone)]
struct Bare {
    /// The router built once for the process (`rmcp-shared`), or `None`: built
    /// per request, as `#[tool_handler]` does by default (`rmcp`). Stateless
    /// streamable HTTP asks the service factory for a server per request.
    router: Option<Arc<ToolRouter<Bare>>>,
}

impl Bare {
    fn router(&self) -> Arc<ToolRouter<Self>> {
        self.router
            .clone()
            .unwrap_or_else(|| Arc::new(Self::tool_router()))
    }
}

// rmcp's `#[tool]` methods take `&self`, whether or not a tool reads it.
#[allow(clippy::unused_self)]
#[tool_router]
impl Bare {
    /// Get the sum of two numbers.
    #[rmcp::tool]
    fn get_sum(&self, Parameters(args): Parameters<Sum>) -> CallToolResult {
        CallToolResult::structured(serde_json::json!(args.a.wrapping_add(args.b)))
    }

    /// Set the page count of the document.
    #[rmcp::tool]
    fn set_pages(&self, Parameters(args): Parameters<Pages>) -> Result<CallToolResult, ErrorData> {
        if !(1..=100).contains(&args.count) {
            return Err(ErrorData::invalid_params("count: must be 1 to 100", None));
        }
        let pages = if args.pinned {
            args.count
        } else {
            args.count + 1
        };
        Ok(CallToolResult::structured(serde_json::json!(pages)))
    }
}

#[tool_handler(router = self.router())]
impl ServerHandler for Bare {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

fn toolkit_router() -> axum::Router {
    // The view depends on nothing about the caller: one key for all.
    let views = ViewCache::new(1);
    let access = move |_: &Caller<'_>| -> Result<Grant, AccessError> {
        let view = views.get_or_build((), || {
            toolkit::registry()
                .view()
                .scopes([Scope::Shared])
                .allow(["@load"])
                .build()
        })?;
        Ok(Grant::new(view, Context::new()))
    };
    McpHttp::new(access)
        .endpoint("load", "/mcp", TOKEN)
        .into_router()
}

fn rmcp_router(shared: bool) -> axum::Router {
    let bare = Bare {
        router: shared.then(|| Arc::new(Bare::tool_router())),
    };
    // The settings `McpHttp` uses: stateless, JSON responses, no keep-alive.
    let service = StreamableHttpService::new(
        move || Ok(bare.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_sse_keep_alive(None),
    );
    axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(require_token))
}

/// The bearer check toolkit's endpoint makes, on the rmcp servers: one
/// `Authorization: Bearer load-token` header, or 401.
async fn require_token(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let mut values = request
        .headers()
        .get_all(http::header::AUTHORIZATION)
        .iter();
    let token = match (values.next(), values.next()) {
        (Some(value), None) => value
            .to_str()
            .ok()
            .and_then(|value| value.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim()),
        _ => None,
    };
    if token == Some(TOKEN) {
        next.run(request).await
    } else {
        axum::response::IntoResponse::into_response((
            http::StatusCode::UNAUTHORIZED,
            [(http::header::WWW_AUTHENTICATE, "Bearer")],
            "a valid bearer token is required",
        ))
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let addr = arguments
        .iter()
        .position(|argument| argument == "--addr")
        .and_then(|at| arguments.get(at + 1))
        .map_or("127.0.0.1:0", String::as_str);
    let router = match arguments.first().map(String::as_str) {
        Some("toolkit") => toolkit_router(),
        Some("rmcp") => rmcp_router(false),
        Some("rmcp-shared") => rmcp_router(true),
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2)
        }
    };
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "listening on http://{local}/mcp")?;
    stdout.flush()?;
    axum::serve(listener, router).await
}

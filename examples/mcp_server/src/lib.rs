//! The assistant example's tools (USE-CASES A) served over MCP, with one view per
//! client kind (USE-CASES E):
//!
//! | client kind | endpoint | tools |
//! |---|---|---|
//! | `internal` | `/mcp/internal` | all of them |
//! | `copilot` | `/mcp/copilot` | the `shared` tools that need no human approval |
//! | `external` | `/mcp/external` | the `tasks` group's `auto` tools |
//!
//! Every request gets its view and its tool context from [`access`]; the stores
//! ([`AssistantState`]) are the process's own, shared by every client.

use example_assistant::AssistantState;
use toolkit::mcp::{Caller, Grant, McpHttp, McpServer, Selection};
use toolkit::{Context, Scope, Tier, Tool};

/// The client kinds this server knows, each with its endpoint path.
pub const CLIENTS: [(&str, &str); 3] = [
    ("internal", "/mcp/internal"),
    ("copilot", "/mcp/copilot"),
    ("external", "/mcp/external"),
];

/// Whether a client of kind `client` may see `tool`. Unknown kinds see nothing.
#[must_use]
pub fn allows(client: &str, tool: &Tool) -> bool {
    match client {
        "internal" => true,
        "copilot" => tool.scope == Scope::Shared && tool.tier != Tier::Approve,
        "external" => tool.group == Some("tasks") && tool.tier == Tier::Auto,
        _ => false,
    }
}

/// The access hook: the caller's view of the registry and the context its calls
/// run with, built per request from the client kind.
pub fn access(
    state: AssistantState,
) -> impl Fn(&Caller<'_>) -> Result<Grant, String> + Send + Sync + 'static {
    move |caller: &Caller<'_>| {
        let client = caller.client.to_owned();
        let tools = Selection::new(toolkit::registry(), move |tool| allows(&client, tool));
        Ok(Grant::new(tools, Context::new().with(state.clone())))
    }
}

/// The stdio server: one client, of kind `client`.
#[must_use]
pub fn stdio_server(client: &str, state: AssistantState) -> McpServer {
    McpServer::new(client, access(state))
}

/// The HTTP router: one endpoint per client kind, each behind its token
/// (`tokens` gives the token of each kind, in [`CLIENTS`] order).
pub fn http_router(state: AssistantState, tokens: [&str; 3]) -> axum::Router {
    let mut http = McpHttp::new(access(state));
    for ((client, path), token) in CLIENTS.into_iter().zip(tokens) {
        http = http.endpoint(client, path, token);
    }
    http.into_router()
}

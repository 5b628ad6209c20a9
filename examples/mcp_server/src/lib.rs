//! The assistant example's tools (USE-CASES A) served over MCP, with one view per
//! client kind (USE-CASES E):
//!
//! | client kind | endpoint | view |
//! |---|---|---|
//! | `internal` | `/mcp/internal` | every tool (`shared` and `assistant` scopes) |
//! | `copilot` | `/mcp/copilot` | the `shared` tools that need no human approval |
//! | `external` | `/mcp/external` | the `tasks` group's `auto` tools |
//!
//! Every request gets its view and its tool context from [`access`], built from
//! the client kind; the stores ([`AssistantState`]) are the process's own. `approve`
//! tools (`delete_memories`) wait for a human: over MCP the client's user accepts
//! or declines (see [`toolkit::mcp::McpServer::approvals`]).

use example_assistant::AssistantState;
use toolkit::approval::{
    ApprovalKey, Approvals, MemoryApprovalStore, PostgresApprovalStore, SqliteApprovalStore,
};
use toolkit::mcp::{Caller, Grant, McpHttp, McpServer};
use toolkit::{Context, Scope, Tier};

/// The client kinds this server knows, each with its endpoint path.
pub const CLIENTS: [(&str, &str); 3] = [
    ("internal", "/mcp/internal"),
    ("copilot", "/mcp/copilot"),
    ("external", "/mcp/external"),
];

/// How the server is set up: the process's stores and its approval keys.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Signs pending approvals and decisions; the same in every process.
    pub approvals: &'static Approvals,
    /// Seals approvals into MCP `requestState`; the same in every process.
    pub request_state_key: &'static [u8],
}

impl Settings {
    /// Approvals signed with `approval_key`, used-approval records in the SQLite
    /// file `store` (shared by every process) or in memory (`None`).
    ///
    /// The set-up lives as long as the process, so it is leaked once.
    pub fn new(
        approval_key: &[u8],
        request_state_key: &[u8],
        store: Option<&std::path::Path>,
    ) -> Result<Self, String> {
        let key = ApprovalKey::new(approval_key.to_vec()).map_err(|error| error.to_string())?;
        let approvals = match store {
            Some(path) => Approvals::new(
                key,
                SqliteApprovalStore::open(path).map_err(|error| error.to_string())?,
            ),
            None => Approvals::new(key, MemoryApprovalStore::new()),
        };
        Ok(Settings {
            approvals: Box::leak(Box::new(approvals)),
            request_state_key: Box::leak(request_state_key.to_vec().into_boxed_slice()),
        })
    }

    /// Approvals signed with `approval_key` and verified with it and
    /// `previous_keys` (a key rotation in progress), their whole life kept in the
    /// `PostgreSQL` database at `url`, shared by every replica behind the load
    /// balancer.
    pub async fn postgres(
        approval_key: &[u8],
        previous_keys: &[Vec<u8>],
        request_state_key: &[u8],
        url: &str,
    ) -> Result<Self, String> {
        let key = ApprovalKey::new(approval_key.to_vec()).map_err(|error| error.to_string())?;
        let previous = previous_keys
            .iter()
            .map(|key| ApprovalKey::new(key.clone()).map_err(|error| error.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        let store = PostgresApprovalStore::connect(url)
            .await
            .map_err(|error| error.to_string())?;
        let approvals = Approvals::new(key, store).previous_keys(previous);
        Ok(Settings {
            approvals: Box::leak(Box::new(approvals)),
            request_state_key: Box::leak(request_state_key.to_vec().into_boxed_slice()),
        })
    }

    /// Demo keys and an in-memory store: for tests and trying things out.
    #[must_use]
    pub fn demo() -> Self {
        Self::new(
            b"demo approval key, at least 32 bytes long",
            b"demo request-state key, 32 bytes or more",
            None,
        )
        .unwrap_or_else(|error| unreachable!("an in-memory store can't fail: {error}"))
    }
}

/// The access hook: the caller's view and the context its calls run with, built
/// per request from the client kind. Approvals are bound to the client kind (a
/// real server would use the user behind the token).
pub fn access(
    state: AssistantState,
    settings: Settings,
) -> impl Fn(&Caller<'_>) -> Result<Grant, String> + Send + Sync + 'static {
    move |caller: &Caller<'_>| {
        let view = toolkit::registry().view();
        let view = match caller.client {
            "internal" => view.scopes([Scope::Shared, Scope::Assistant]),
            "copilot" => view
                .scopes([Scope::Shared])
                .permit(|tool| tool.tier != Tier::Approve),
            "external" => view
                .scopes([Scope::Shared])
                .allow(["@tasks"])
                .permit(|tool| tool.tier == Tier::Auto),
            _ => view.scopes([]),
        };
        let view = view
            .approvals(settings.approvals, caller.client)
            // The client kind names the view in every dispatch span.
            .label(caller.client.to_owned())
            .build()
            .map_err(|error| error.to_string())?;
        Ok(Grant::new(view, Context::new().with(state.clone())))
    }
}

/// The stdio server: one client, of kind `client`.
#[must_use]
pub fn stdio_server(client: &str, state: AssistantState, settings: Settings) -> McpServer {
    McpServer::new(client, access(state, settings))
        .approvals(settings.request_state_key)
        .unwrap_or_else(|error| panic!("the request-state key is unusable: {error}"))
}

/// The HTTP router: one endpoint per client kind, each behind its token
/// (`tokens` gives the token of each kind, in [`CLIENTS`] order).
pub fn http_router(state: AssistantState, settings: Settings, tokens: [&str; 3]) -> axum::Router {
    let mut http = McpHttp::new(access(state, settings))
        .approvals(settings.request_state_key)
        .unwrap_or_else(|error| panic!("the request-state key is unusable: {error}"));
    for ((client, path), token) in CLIENTS.into_iter().zip(tokens) {
        http = http.endpoint(client, path, token);
    }
    http.into_router()
}

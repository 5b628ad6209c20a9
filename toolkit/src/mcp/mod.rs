//! Serve a view of the registry over MCP (feature `mcp`), with the official Rust
//! SDK [`rmcp`] doing the protocol and the transports.
//!
//! One value, [`McpServer`], is an rmcp server handler. It holds no tools itself:
//! on every request it asks the application's [`Access`] hook for the caller's
//! tools and tool [`Context`](crate::Context), built from the request (client kind, headers,
//! bearer token), never from a session. `tools/list` renders those tools in the
//! MCP dialect; `tools/call` dispatches through them, so a tool outside the
//! caller's set gets the same answer as a tool that does not exist.
//!
//! ```no_run
//! use toolkit::mcp::{AccessError, Caller, FilteredRegistry, Grant, McpHttp, McpServer};
//!
//! # async fn run() -> std::io::Result<()> {
//! // Who gets which tools, decided per request.
//! let access = |caller: &Caller<'_>| -> Result<Grant, AccessError> {
//!     let registry = toolkit::registry();
//!     let tools = match caller.client {
//!         "internal" => FilteredRegistry::all(registry),
//!         _ => FilteredRegistry::new(registry, |tool| tool.verb() == "get"),
//!     };
//!     Ok(Grant::new(tools, toolkit::Context::new()))
//! };
//!
//! // stdio: one client, trusted as the process that started us.
//! McpServer::new("internal", access).serve_stdio().await?;
//!
//! // Streamable HTTP: one endpoint per client kind, each with its bearer token.
//! let router = McpHttp::new(access)
//!     .endpoint("internal", "/mcp/internal", "internal-secret")
//!     .endpoint("external", "/mcp/external", "external-secret")
//!     .into_router();
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! axum::serve(listener, router).await
//! # }
//! ```
//!
//! A [`View`](crate::View) is the usual [`ToolSet`] (any value that lists tools and
//! dispatches calls can be granted; [`FilteredRegistry`] narrows a registry with a
//! predicate). Tools of other MCP servers (feature `mcp-client`,
//! `ExternalServer`) join a registry as runtime tools, so a view of it serves them
//! like local ones, over both transports.
//!
//! A tool declared `#[tool(task = optional)]` (or `required`) answers a client
//! that declares the MCP Tasks extension (`io.modelcontextprotocol/tasks`, on a
//! call of the 2026-07-28 revision or later) with a task kept in the approval
//! store ([`Approvals::create_task`](crate::approval::Approvals::create_task)):
//! run in the background by whichever replica claims it, polled with `tasks/get`
//! on any replica, cancelled with `tasks/cancel`; a `required` tool refuses any
//! other client with `-32021`. Clients of earlier revisions never get a task
//! handle, whatever they declared.
//!
//! A tool asks its client for input in the middle of a call with an
//! [`Ask`] (`#[ctx] ask: Ask`): a form for its user (elicitation), a message
//! from its model (sampling), its roots. A 2026-07-28 client gets an
//! input-required result and retries the call with its answers and a sealed
//! `requestState` (the tool runs again from the top, its answered questions
//! answered at once); a 2025-11-25 session gets real requests in the call; a
//! task's tool waits `input_required` until `tasks/update` answers, on any
//! replica. See [`ask`].
//!
//! An `approve` call asked by a client that declares the MCP Tasks extension
//! (`io.modelcontextprotocol/tasks`, on the call) is answered with a task: the
//! client polls `tasks/get` on any replica until the call ran (`completed`, with
//! its result) or never will (`failed`, `cancelled`); its user answers with
//! `tasks/update` where the policy lets them decide, and `tasks/cancel` withdraws
//! the call. The task's state is the approval store's
//! ([`Approvals::status`](crate::approval::Approvals::status)). Clients without the
//! extension get the pending approval, and read the outcome later from the
//! application (the inbox's `/api/decisions?principal=&call_id=`, or
//! [`Approvals::outcome`](crate::approval::Approvals::outcome)).

mod access;
pub mod apps;
pub mod ask;
#[cfg(feature = "oauth")]
pub mod auth;
mod bearer;
mod cancel;
#[cfg(feature = "mcp-client")]
mod external;
mod http;
mod request;
mod result;
mod server;
mod task;
mod views;

pub use access::{Access, AccessError, Caller, FilteredRegistry, Grant, ToolSet};
pub use ask::{Ask, Elicitation};

/// Renamed [`FilteredRegistry`] (`route::Selection` is the tools a router chose
/// for one request, a different thing).
#[doc(hidden)]
#[deprecated(
    note = "renamed `toolkit::mcp::FilteredRegistry` (`toolkit::route::Selection` is a router's choice, a different thing)"
)]
pub type Selection = FilteredRegistry;
#[cfg(feature = "mcp-client")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp-client")))]
pub use external::{
    ExternalError, ExternalReport, ExternalServer, ExternalTool, ExternalTools, Pins, escape,
    unescape,
};
pub use http::{CancellationLayer, Cancelling, McpHttp};
pub use request::McpRequest;
pub use result::{META_ERROR, META_PENDING_APPROVAL, META_PREVIEW, META_RETRY_AFTER_MS};
pub use server::McpServer;
pub use task::run_tasks;
pub use views::ViewCache;

/// The rmcp crate this module is built on, for applications that need its types
/// (a custom transport, the client).
pub use rmcp;

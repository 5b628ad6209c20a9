//! USE-CASES E on toolkit: a home assistant "brain" whose tools register
//! themselves, one function each with all their metadata.
//!
//! - [`tools`]: `always` tools (personality, memory, prompt management) and routed
//!   ones (calendar, contacts, email, lists, GitHub issues) over in-memory stores.
//!   `tags` say which clients may call a tool and which tools are `persistent`.
//! - [`Client`]: internal, copilot, external; each is a view of the registry.
//! - [`Brain`]: the registry API the service needs per client: a tool, the tools in
//!   OpenAI or MCP format, the always tools, the light catalog of routed tools,
//!   routing a message (lexical router or a cheap model, falling back to every
//!   routed tool on failure), and `call_tool`, which runs local tools, logs
//!   persistent ones and falls through to external servers for unknown names.
//! - [`server`]: the brain over MCP (streamable HTTP) to clients known by OAuth
//!   access tokens, whose scopes choose the client's view.
//! - [`Reply`]: one response type, `{result, error, success}` with `success`
//!   derived from the error.
//!
//! ```
//! use example_brain::{Brain, Client, Home};
//! use toolkit::route::LexicalRouter;
//!
//! let brain = Brain::new(Home::sample());
//! let router = LexicalRouter::new(brain.view(Client::Copilot).catalog());
//! # futures_executor::block_on(async {
//! let turn = brain.route(Client::Copilot, &router, "put dinner with Ada on the calendar").await;
//! assert_eq!(turn.routed, ["create_events", "delete_events", "get_events"]);
//! # });
//! ```

pub mod server;
mod store;
pub mod tools;

use std::fmt;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use toolkit::route::{RouteError, RouteRequest, Router, select};
use toolkit::{Context, Dialect, Registry, Response, View, registry::RegisteredTool};

pub use store::{
    Contact, Email, Event, Home, Issue, IssueState, LedgerEntry, ListItem, Memory, Personality,
};

/// Who is calling: each client sees the tools tagged with its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    /// The brain's own loop: every tool.
    Internal,
    /// The coding copilot: no prompt management, no sending mail, no new contacts.
    Copilot,
    /// Outside integrations: read the calendar and the lists, tick items off.
    External,
}

impl Client {
    /// Every client.
    pub const ALL: [Client; 3] = [Client::Internal, Client::Copilot, Client::External];

    /// The tag a tool carries when this client may call it.
    #[must_use]
    pub const fn tag(self) -> &'static str {
        match self {
            Client::Internal => "internal",
            Client::Copilot => "copilot",
            Client::External => "external",
        }
    }
}

impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tag())
    }
}

/// The tag of tools whose calls the ledger keeps.
pub const PERSISTENT: &str = "persistent";

/// The one response type: `{result, error, success}`, `success` exactly when
/// there is no error.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reply {
    /// The tool's answer (or, for a tool waiting for confirmation, its preview).
    pub result: Option<Value>,
    /// What went wrong, for the model.
    pub error: Option<String>,
    /// `error.is_none()`.
    pub success: bool,
}

impl Reply {
    /// A successful reply.
    #[must_use]
    pub fn ok(result: Value) -> Self {
        Reply {
            result: Some(result),
            error: None,
            success: true,
        }
    }

    /// A failed reply.
    #[must_use]
    pub fn failed(error: impl Into<String>) -> Self {
        Reply {
            result: None,
            error: Some(error.into()),
            success: false,
        }
    }
}

impl From<Response> for Reply {
    fn from(response: Response) -> Self {
        match response {
            Response::Result(value) => Reply::ok(value),
            Response::Error(error) => Reply::failed(error.to_string()),
            other => Reply::ok(other.to_json()),
        }
    }
}

/// A tool server beyond the brain (an MCP server): answers the names it knows.
pub type External = Arc<dyn Fn(&str, &Value) -> Option<Reply> + Send + Sync>;

/// The tools of one turn.
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    /// The always tools, in name order.
    pub always: Vec<&'static str>,
    /// The routed tools picked, best first (every routed tool after a failure).
    pub routed: Vec<String>,
    /// The router's error, when it failed and every routed tool is sent.
    pub error: Option<RouteError>,
}

impl Turn {
    /// Every tool sent this turn: the always ones, then the routed ones.
    #[must_use]
    pub fn tools(&self) -> Vec<&str> {
        self.always
            .iter()
            .copied()
            .chain(self.routed.iter().map(String::as_str))
            .collect()
    }
}

/// The brain: its tools, its data and the external servers it falls through to.
pub struct Brain {
    registry: &'static Registry,
    home: Home,
    ctx: Context,
    external: Option<External>,
}

impl fmt::Debug for Brain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Brain")
            .field("tools", &self.registry.len())
            .field("external", &self.external.is_some())
            .finish_non_exhaustive()
    }
}

impl Brain {
    /// A brain over every `#[tool]` linked in, acting on `home`.
    #[must_use]
    pub fn new(home: Home) -> Self {
        Brain {
            registry: toolkit::registry(),
            ctx: Context::new().with(home.clone()),
            home,
            external: None,
        }
    }

    /// Falls through to `external` for names no local tool has.
    #[must_use]
    pub fn with_external(mut self, external: External) -> Self {
        self.external = Some(external);
        self
    }

    /// The household's data.
    #[must_use]
    pub fn home(&self) -> &Home {
        &self.home
    }

    /// What `client` may list and call.
    ///
    /// # Panics
    /// Never: a view without an allowlist always builds.
    #[must_use]
    pub fn view(&self, client: Client) -> View<'static> {
        self.registry
            .view()
            .permit(|tool| tool.tags.contains(&client.tag()))
            .build()
            .expect("no allowlist, nothing to resolve")
    }

    /// The tool `name` if `client` may call it.
    #[must_use]
    pub fn tool(&self, client: Client, name: &str) -> Option<&'static RegisteredTool> {
        self.view(client).get(name)
    }

    /// Every tool of `client` as OpenAI Chat function tools (a JSON array).
    #[must_use]
    pub fn openai_tools(&self, client: Client) -> Value {
        self.view(client).render(Dialect::OpenAiChat).to_value()
    }

    /// Every tool of `client` as MCP `tools/list` entries (a JSON array).
    #[must_use]
    pub fn mcp_tools(&self, client: Client) -> Value {
        self.view(client).render(Dialect::Mcp).to_value()
    }

    /// The always tools of `client`, in name order.
    #[must_use]
    pub fn always(&self, client: Client) -> Vec<&'static str> {
        self.view(client).always().map(|tool| tool.name).collect()
    }

    /// The light catalog of `client`'s routed tools: one line each.
    #[must_use]
    pub fn catalog(&self, client: Client) -> String {
        self.view(client).catalog().to_lines()
    }

    /// The tools to send for `message`: the always tools, and the routed ones
    /// `router` picks (at most 3), or every routed tool with the error when it
    /// fails. Build the router over `self.view(client).catalog()`.
    pub async fn route<R: Router + ?Sized>(
        &self,
        client: Client,
        router: &R,
        message: &str,
    ) -> Turn {
        let view = self.view(client);
        let allowed = |name: &str| view.contains(name);
        let request = RouteRequest::new(message).limit(3).within(&allowed);
        let selection = select(router, &request).await;
        Turn {
            always: view.always().map(|tool| tool.name).collect(),
            routed: selection.names().into_iter().map(str::to_owned).collect(),
            error: selection.error().cloned(),
        }
    }

    /// Calls `name` as `client`: a local tool the client may call runs here (a
    /// `persistent` one's call goes to the ledger when it succeeds); a name no
    /// local tool has goes to the external server; a local tool the client may
    /// not call is unknown to it, like a name that exists nowhere.
    pub async fn call_tool(&self, client: Client, name: &str, params: &Value) -> Reply {
        let view = self.view(client);
        Reply::from(
            self.dispatch(&view, client, None, name, params, &self.ctx)
                .await,
        )
    }

    /// [`Brain::call_tool`] in `view` (the client's), the ledger naming
    /// `principal`; calls run with `ctx`.
    async fn dispatch(
        &self,
        view: &View<'static>,
        client: Client,
        principal: Option<&str>,
        name: &str,
        params: &Value,
        ctx: &Context,
    ) -> Response {
        if self.registry.get(name).is_none()
            && let Some(reply) = self
                .external
                .as_ref()
                .and_then(|external| external(name, params))
        {
            return match (reply.result, reply.error) {
                (_, Some(error)) => Response::Error(toolkit::ToolError::failed(error)),
                (result, None) => Response::Result(result.unwrap_or(Value::Null)),
            };
        }
        let response = view.call_value(name, params, ctx).await;
        if let (Response::Result(_), Some(tool)) = (&response, view.get(name))
            && tool.tags.contains(&PERSISTENT)
        {
            self.home.record(LedgerEntry {
                client: client.tag(),
                principal: principal.map(str::to_owned),
                tool: tool.name,
                arguments: params.clone(),
            });
        }
        response
    }
}

//! The brain over MCP (streamable HTTP), one endpoint, `/mcp`, an OAuth 2.1
//! resource server: callers are known by their access tokens, not by static ones.
//!
//! - The token's scopes choose the [`Client`] view: the most capable of
//!   `internal`, `copilot` and `external` among them wins; with none of them the
//!   view is empty. Every token also needs [`REQUIRED_SCOPE`] (else
//!   `403 insufficient_scope`).
//! - The token's principal (`iss` and `sub`) is whom the ledger of `persistent`
//!   tools names, by its key ([`LedgerEntry::principal`](crate::LedgerEntry::principal)).
//! - Calls go where [`Brain::call_tool`] sends them: a tool of the view runs (and
//!   is logged when `persistent`), a name no local tool has falls through to the
//!   brain's external server, and a local tool outside the view is unknown.
//!
//! `cargo run -p example-brain --bin brain_server -- --oauth-issuer URL --resource URL`

use std::sync::Arc;

use serde_json::Value;
use toolkit::definition::CallFuture;
use toolkit::mcp::auth::{AuthError, JwtVerifier, ResourceServer, VerifiedToken};
use toolkit::mcp::{AccessError, Caller, Grant, McpHttp, ToolSet};
use toolkit::{Context, View, registry::RegisteredTool};

use crate::{Brain, Client};

/// The scope every request needs (else `403 insufficient_scope`).
pub const REQUIRED_SCOPE: &str = "mcp";

/// The scopes the server knows: [`REQUIRED_SCOPE`], then one per [`Client`],
/// most capable first.
pub const SCOPES: [&str; 4] = [REQUIRED_SCOPE, "internal", "copilot", "external"];

/// The client a verified token speaks as: the most capable one among its scopes,
/// `None` when it has no client scope.
#[must_use]
pub fn client_of(token: &VerifiedToken) -> Option<Client> {
    Client::ALL
        .into_iter()
        .find(|client| token.has_scope(client.tag()))
}

/// What one request may list and call: the view of its client (empty without
/// one), dispatched like [`Brain::call_tool`] with the token's principal (its
/// key) in the ledger.
struct Served {
    brain: Arc<Brain>,
    view: View<'static>,
    client: Option<Client>,
    principal: String,
}

impl ToolSet for Served {
    fn tools(&self) -> Box<dyn Iterator<Item = &RegisteredTool> + '_> {
        Box::new(self.view.iter())
    }

    fn get(&self, name: &str) -> Option<&RegisteredTool> {
        self.view.get(name)
    }

    fn call<'a>(&'a self, name: &'a str, arguments: &'a str, ctx: &'a Context) -> CallFuture<'a> {
        Box::pin(async move {
            match (self.client, serde_json::from_str::<Value>(arguments)) {
                (Some(client), Ok(params)) => {
                    let principal = Some(self.principal.as_str());
                    self.brain
                        .dispatch(&self.view, client, principal, name, &params, ctx)
                        .await
                }
                // No client, nothing to fall through to; arguments that are not
                // JSON get the view's own answer (unknown tool or bad arguments).
                _ => self.view.call(name, arguments, ctx).await,
            }
        })
    }
}

/// The access hook: each request's view is chosen by its verified token's scopes
/// (see [`client_of`]); its calls act on the brain's household.
pub fn oauth_access(
    brain: Arc<Brain>,
) -> impl Fn(&Caller<'_>) -> Result<Grant, AccessError> + Send + Sync + 'static {
    move |caller: &Caller<'_>| {
        // The OAuth endpoint lets a request through only with a verified token.
        let token = caller.token().ok_or(AccessError::NoVerifiedToken)?;
        let client = client_of(token);
        let view = match client {
            Some(client) => brain.view(client),
            None => brain.registry.view().permit(|_| false).build()?,
        };
        let context = Context::new().with(brain.home.clone());
        let served = Served {
            brain: Arc::clone(&brain),
            view,
            client,
            principal: token.principal.key().to_owned(),
        };
        Ok(Grant::new(served, context))
    }
}

/// The HTTP router: one endpoint, `/mcp`, whose callers are known by the access
/// tokens `auth` verifies (see [`oauth_access`]), and its protected resource
/// metadata.
pub fn oauth_router(brain: Arc<Brain>, auth: ResourceServer) -> axum::Router {
    McpHttp::new(oauth_access(brain))
        .oauth_endpoint("oauth", "/mcp", auth)
        .into_router()
}

/// The resource server: tokens from `issuer` (its keys found by discovery) for the
/// canonical URL `resource` (like `http://127.0.0.1:8090/mcp`), each needing
/// [`REQUIRED_SCOPE`].
pub async fn oauth_resource_server(
    issuer: &str,
    resource: &str,
) -> Result<ResourceServer, AuthError> {
    let verifier = JwtVerifier::discover(issuer, resource).await?;
    Ok(ResourceServer::new(resource, verifier)?
        .authorization_server(issuer)
        .scopes_supported(SCOPES)
        .required_scopes([REQUIRED_SCOPE])
        .resource_name("toolkit brain"))
}

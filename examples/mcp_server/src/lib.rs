//! The assistant example's tools (USE-CASES A) served over MCP, with one view per
//! client kind (USE-CASES E):
//!
//! | client kind | endpoint | view |
//! |---|---|---|
//! | `internal` | `/mcp/internal` | every tool (`shared` and `assistant` scopes) |
//! | `copilot` | `/mcp/copilot` | the `shared` tools that need no human approval |
//! | `external` | `/mcp/external` | the `tasks` group's `auto` tools |
//!
//! With `--oauth-issuer` (see [`oauth_router`]) there is one endpoint, `/mcp`,
//! an OAuth 2.1 resource server: the access token's scopes choose the view
//! (`internal`, `copilot` or `external`, plus `mcp` on every token) and its
//! issuer and subject ([`claims_mapping`]) are the principal approvals bind to.
//!
//! Every request gets its view and its tool context from [`access`], built from
//! the client kind; the stores ([`AssistantState`]) are the process's own. `approve`
//! tools (`delete_memories`) wait for a human: over MCP the client's user accepts
//! or declines (see [`toolkit::mcp::McpServer::approvals`]).

use std::fmt::Write as _;
use std::net::IpAddr;

pub mod ledger;
mod serve;
pub mod signin;
pub mod telemetry;

pub use serve::serve;

use example_assistant::AssistantState;
use toolkit::approval::{
    ApprovalKey, Approvals, Deciders, MemoryApprovalStore, PostgresApprovalStore,
    SqliteApprovalStore,
};
use toolkit::mcp::apps::Apps;
use toolkit::mcp::auth::{AuthError, JwtVerifier, ResourceServer};
use toolkit::mcp::{AccessError, Caller, Grant, McpHttp, McpServer, ViewCache};
use toolkit::quota::{MemoryQuotaStore, Quota, QuotaStore, Quotas};
use toolkit::serving::{HttpLimits, PeerLimit};
use toolkit::{ClaimsMapping, Context, Principal, Scope, Tier};

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
    /// The limits on calls (each tool's declared `quota`, per principal),
    /// counted in the approval store's database (memory without one), so that
    /// every process sharing it counts against one quota.
    pub quotas: &'static Quotas,
    /// Seals approvals into MCP `requestState`; the same in every process.
    pub request_state_key: &'static [u8],
    /// The ledger of `create_transfers` (with `--approvals-db postgres://`): the
    /// `internal` view lists that tool only when there is one.
    pub ledger: Option<&'static ledger::Ledger>,
    /// The `Host` names requests may carry besides the loopback names
    /// (`--allowed-host`): a deployed server's public names. In OAuth mode toolkit
    /// also accepts the resource URL's host.
    pub allowed_hosts: &'static [String],
    /// How long a client may take to send a request and how many connections
    /// may be open at once: the routers apply the body and request bounds, the
    /// server loop ([`serve`]) the header and connection ones.
    pub limits: HttpLimits,
    /// Where the approval inbox's page is (`http://127.0.0.1:8080/approvals`),
    /// when this process serves it: the approval card's button opens it at the
    /// call. `None` (stdio): the card shows the call and its state, and no button.
    pub inbox_url: Option<&'static str>,
    /// A limit on each peer's requests that fail authentication, checked before
    /// any token is verified (`MCP_PEER_LIMIT`), and the proxies whose
    /// `X-Forwarded-For` names the peer (`MCP_TRUSTED_PROXIES`): see
    /// [`PeerLimit`]. `None`: no such limit.
    pub peer_limit: Option<(Quota, &'static [IpAddr])>,
}

/// Who decides the example's `approve` calls: the client's own user answers for
/// every tool (a personal assistant asks the person it works for), except
/// `create_transfers`, which moves money and is approved by someone else (an
/// operator, in the inbox), so that an agent answering its own questions cannot
/// approve its own transfers.
#[must_use]
pub fn who_decides() -> Deciders {
    Deciders::requester_too().others_decide([ledger::create_transfers::NAME])
}

/// The server's quotas, counted in `store`, with `limits` in place of the tools'
/// declared ones.
fn build_quotas(
    store: impl QuotaStore + 'static,
    limits: &[(String, Quota)],
) -> Result<&'static Quotas, String> {
    let quotas = limits
        .iter()
        .fold(
            Quotas::builder(toolkit::registry(), store),
            |quotas, (tool, limit)| quotas.tool(tool, *limit),
        )
        .build()
        .map_err(|error| error.to_string())?;
    Ok(Box::leak(Box::new(quotas)))
}

impl Settings {
    /// Approvals signed with `approval_key`, used-approval records in the SQLite
    /// file `store` (shared by every process) or in memory (`None`); quotas
    /// counted in the same file (or memory).
    ///
    /// The set-up lives as long as the process, so it is leaked once.
    pub fn new(
        approval_key: &[u8],
        request_state_key: &[u8],
        store: Option<&std::path::Path>,
    ) -> Result<Self, String> {
        let key = ApprovalKey::new(approval_key.to_vec()).map_err(|error| error.to_string())?;
        let (approvals, quotas) = match store {
            Some(path) => {
                let store = SqliteApprovalStore::open(path).map_err(|error| error.to_string())?;
                let quotas = build_quotas(store.quota_store(), &[])?;
                (Approvals::new(key, store), quotas)
            }
            None => (
                Approvals::new(key, MemoryApprovalStore::new()),
                build_quotas(MemoryQuotaStore::new(), &[])?,
            ),
        };
        let approvals = approvals.policy(who_decides());
        Ok(Settings {
            approvals: Box::leak(Box::new(approvals)),
            quotas,
            request_state_key: Box::leak(request_state_key.to_vec().into_boxed_slice()),
            ledger: None,
            allowed_hosts: &[],
            limits: HttpLimits::default(),
            inbox_url: None,
            peer_limit: None,
        })
    }

    /// Approvals signed with `approval_key` and verified with it and
    /// `previous_keys` (a key rotation in progress), their whole life kept in the
    /// `PostgreSQL` database at `url`, shared by every replica behind the load
    /// balancer; a run of an approved call that did not complete is run again
    /// after `run_lease`. The database also holds the ledger of `create_transfers`,
    /// whose rows name `replica`.
    pub async fn postgres(
        approval_key: &[u8],
        previous_keys: &[Vec<u8>],
        request_state_key: &[u8],
        url: &str,
        run_lease: std::time::Duration,
        replica: &str,
    ) -> Result<Self, String> {
        let key = ApprovalKey::new(approval_key.to_vec()).map_err(|error| error.to_string())?;
        let previous = previous_keys
            .iter()
            .map(|key| ApprovalKey::new(key.clone()).map_err(|error| error.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        let store = PostgresApprovalStore::connect(url)
            .await
            .map_err(|error| error.to_string())?;
        let quotas = build_quotas(store.quota_store(), &[])?;
        let approvals = Approvals::new(key, store)
            .previous_keys(previous)
            .policy(who_decides())
            .run_lease(run_lease);
        let ledger = ledger::Ledger::connect(url, replica).await?;
        Ok(Settings {
            approvals: Box::leak(Box::new(approvals)),
            quotas,
            request_state_key: Box::leak(request_state_key.to_vec().into_boxed_slice()),
            ledger: Some(Box::leak(Box::new(ledger))),
            allowed_hosts: &[],
            limits: HttpLimits::default(),
            inbox_url: None,
            peer_limit: None,
        })
    }

    /// Also accepts requests whose `Host` is one of `hosts` (`tools.example.com`,
    /// `tools.example.com:8443`), besides the loopback names.
    #[must_use]
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = String>) -> Self {
        let mut all = self.allowed_hosts.to_vec();
        all.extend(hosts);
        self.allowed_hosts = Box::leak(all.into_boxed_slice());
        self
    }

    /// Sets the limits of the tools `limits` names (`("create_transfers",
    /// "30/min")`) in place of their declared ones, counted in the same store
    /// as before; an unknown tool is an error.
    pub fn quota_limits(mut self, limits: &[(String, Quota)]) -> Result<Self, String> {
        self.quotas = build_quotas(self.quotas.store(), limits)?;
        Ok(self)
    }

    /// Replaces the [`HttpLimits::default`] bounds on clients.
    #[must_use]
    pub fn limits(mut self, limits: HttpLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Limits each peer to `quota` requests that fail authentication (a
    /// missing, wrong or forged token), answered `429` before any token is
    /// verified; behind a load balancer, name it in `trusted_proxies` so that
    /// the peer is read from its `X-Forwarded-For` ([`PeerLimit`]).
    #[must_use]
    pub fn peer_limit(mut self, quota: Quota, trusted_proxies: Vec<IpAddr>) -> Self {
        self.peer_limit = Some((quota, Box::leak(trusted_proxies.into_boxed_slice())));
        self
    }

    /// `http` with [`peer_limit`](field@Settings::peer_limit), when set.
    fn peer_limited(self, http: McpHttp) -> McpHttp {
        match self.peer_limit {
            Some((quota, proxies)) => {
                http.peer_limit(PeerLimit::new(quota).trust_forwarded_for(proxies.iter().copied()))
            }
            None => http,
        }
    }

    /// Says where the approval inbox's page is, for the approval card's button.
    #[must_use]
    pub fn inbox_url(mut self, url: &str) -> Self {
        self.inbox_url = Some(Box::leak(url.to_owned().into_boxed_str()));
        self
    }

    /// The MCP Apps cards every router and the stdio server serve to clients
    /// that declare the extension (clients that do not see exactly what they
    /// saw without them): the preview card of `confirm` tools and the approval
    /// card of `approve` tools, opening the inbox at [`inbox_url`](field@Settings::inbox_url).
    pub fn apps(self) -> Apps {
        match self.inbox_url {
            Some(url) => Apps::new().inbox(url),
            None => Apps::new(),
        }
    }

    /// The `Host` names the routers accept: the loopback names and
    /// [`allowed_hosts`](Self::allowed_hosts).
    fn hosts(self) -> Vec<String> {
        ["localhost", "127.0.0.1", "::1"]
            .into_iter()
            .map(str::to_owned)
            .chain(self.allowed_hosts.iter().cloned())
            .collect()
    }

    /// Random keys of this process and an in-memory store: for tests and trying
    /// things out. Nothing is ever signed with a key anyone else knows.
    pub fn ephemeral() -> Result<Self, String> {
        Self::new(
            random_secret()?.as_bytes(),
            random_secret()?.as_bytes(),
            None,
        )
    }
}

/// 32 random bytes from the operating system, as 64 hex digits: a key or a token.
pub fn random_secret() -> Result<String, String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|error| error.to_string())?;
    let mut hex = String::with_capacity(64);
    for byte in bytes {
        let _ = write!(hex, "{byte:02x}");
    }
    Ok(hex)
}

/// How many views the access hooks keep (one per client kind, or per user and
/// kind in the OAuth mode); the least recently used goes first.
const KEPT_VIEWS: usize = 1024;

/// The access hook: the caller's view and the context its calls run with, from
/// the client kind. Approvals are bound to the client kind (a real server would
/// use the user behind the token). The view depends on the kind alone, so each
/// kind's is built once and shared by its requests.
pub fn access(
    state: AssistantState,
    settings: Settings,
) -> impl Fn(&Caller<'_>) -> Result<Grant, AccessError> + Send + Sync + 'static {
    let views = ViewCache::new(KEPT_VIEWS);
    move |caller: &Caller<'_>| {
        // Static tokens name a client kind, not a person: the kind is the
        // principal, one of the application's own.
        let principal = Principal::local(caller.client).map_err(AccessError::failed)?;
        let view = views.get_or_build(caller.client.to_owned(), || {
            kind_view(caller.client)
                .permit(move |tool| {
                    settings.ledger.is_some() || tool.group != Some(ledger::LEDGER_GROUP)
                })
                .approvals(settings.approvals, principal)
                .quotas(settings.quotas)
                // The client kind names the view in every dispatch span.
                .label(caller.client.to_owned())
                .build()
        })?;
        Ok(Grant::new(view, context(&state, settings)))
    }
}

/// One pass of the approval runner: calls approved (in the inbox) at least `grace`
/// ago that nobody resumed run now, once across the fleet, with the view the
/// principal's kind has now (the kind the call was asked through, kept as the
/// pending approval's view label) and this server's context. A replica calls it
/// every few seconds (`mcp_server http`); see `Approvals::run_decided`.
pub async fn run_decided(
    state: &AssistantState,
    settings: Settings,
    grace: std::time::Duration,
) -> Result<toolkit::approval::RunPass, toolkit::approval::ApprovalError> {
    settings
        .approvals
        .run_decided(grace, |pending| {
            let view = runner_view(settings, pending.view.as_deref(), &pending.principal)?;
            Ok((view, context(state, settings)))
        })
        .await
}

/// One pass of the task runner: tasks (`task = optional` tools called as MCP
/// Tasks) whose replica died before or while they ran are run again here, once
/// across the fleet, after their lease, with the view their principal's kind has
/// now (the kind kept as the task's view label) and this server's context. A
/// replica calls it beside [`run_decided`] (`mcp_server http`); see
/// `toolkit::mcp::run_tasks` (a tool that asks its client mid-run asks again).
pub async fn run_tasks(
    state: &AssistantState,
    settings: Settings,
) -> Result<toolkit::approval::TaskPass, toolkit::approval::ApprovalError> {
    toolkit::mcp::run_tasks(settings.approvals, |task| {
        let view = runner_view(settings, task.view.as_deref(), &task.principal)?;
        Ok((view, context(state, settings)))
    })
    .await
}

/// The view the runner rebuilds for a stored call of `principal` made through
/// the client kind `kind` (its view label; none: no tools).
fn runner_view(
    settings: Settings,
    kind: Option<&str>,
    principal: &Principal,
) -> Result<toolkit::View<'static>, String> {
    let kind = kind.unwrap_or("none");
    kind_view(kind)
        .permit(move |tool| settings.ledger.is_some() || tool.group != Some(ledger::LEDGER_GROUP))
        .approvals(settings.approvals, principal.clone())
        .quotas(settings.quotas)
        .label(kind.to_owned())
        .build()
        .map_err(|error| error.to_string())
}

/// The context every call runs with: the assistant's stores and, when there is
/// one, the ledger.
fn context(state: &AssistantState, settings: Settings) -> Context {
    let ctx = Context::new().with(state.clone());
    match settings.ledger {
        Some(ledger) => ctx.with(ledger.clone()),
        None => ctx,
    }
}

/// The view of a client kind (`internal`, `copilot`, `external`; any other
/// kind sees nothing).
fn kind_view(kind: &str) -> toolkit::view::ViewBuilder<'static> {
    let view = toolkit::registry().view();
    match kind {
        "internal" => view.scopes([Scope::Shared, Scope::Assistant]),
        "copilot" => view
            .scopes([Scope::Shared])
            .permit(|tool| tool.tier != Tier::Approve),
        "external" => view
            .scopes([Scope::Shared])
            .allow(["@tasks"])
            .permit(|tool| tool.tier == Tier::Auto),
        _ => view.scopes([]),
    }
}

/// The scope every OAuth request needs (else `403 insufficient_scope`).
pub const OAUTH_REQUIRED_SCOPE: &str = "mcp";

/// The scopes of the OAuth mode: [`OAUTH_REQUIRED_SCOPE`], then one per client
/// kind, most capable first. A token's view is that of the most capable kind
/// among its scopes; with none of them, the view is empty.
pub const OAUTH_SCOPES: [&str; 4] = [OAUTH_REQUIRED_SCOPE, "internal", "copilot", "external"];

/// The access hook of the OAuth mode: the view is chosen by the verified token's
/// scopes (see [`OAUTH_SCOPES`]) and approvals bind to its principal (`iss` and
/// `sub`, through [`claims_mapping`]), the user the token speaks for, so one
/// user's pending approval can't be resumed by another. The view depends on
/// those two alone: kept per (kind, principal).
pub fn oauth_access(
    state: AssistantState,
    settings: Settings,
) -> impl Fn(&Caller<'_>) -> Result<Grant, AccessError> + Send + Sync + 'static {
    let views: ViewCache<(&'static str, Principal)> = ViewCache::new(KEPT_VIEWS);
    move |caller: &Caller<'_>| {
        // The endpoint let the request through, so it carries a verified token.
        let token = caller.token().ok_or(AccessError::NoVerifiedToken)?;
        let kind = OAUTH_SCOPES[1..]
            .iter()
            .copied()
            .find(|kind| token.has_scope(kind))
            .unwrap_or("none");
        let view = views.get_or_build((kind, token.principal.clone()), || {
            kind_view(kind)
                .permit(move |tool| {
                    settings.ledger.is_some() || tool.group != Some(ledger::LEDGER_GROUP)
                })
                .approvals(settings.approvals, token.principal.clone())
                .quotas(settings.quotas)
                .label(kind.to_owned())
                .build()
        })?;
        Ok(Grant::new(view, context(&state, settings)))
    }
}

/// The HTTP router of the OAuth mode: one endpoint, `/mcp`, whose callers are
/// known by the access tokens `auth` verifies, each served the view its scopes
/// choose (see [`oauth_access`]).
pub fn oauth_router(
    state: AssistantState,
    settings: Settings,
    auth: ResourceServer,
) -> axum::Router {
    let http = McpHttp::new(oauth_access(state, settings))
        .approvals(settings.request_state_key)
        .unwrap_or_else(|error| panic!("the request-state key is unusable: {error}"))
        .apps(settings.apps())
        .allowed_hosts(settings.hosts())
        .limits(settings.limits);
    settings
        .peer_limited(http)
        .oauth_endpoint("oauth", "/mcp", auth)
        .into_router()
}

/// How a verified token's claims, and the inbox sign-in's ID token's, become a
/// [`Principal`]: `iss` and `sub`. One mapping for both doors, so an operator who
/// asks over MCP and decides in the inbox is one principal, and the approvals'
/// policy ("nobody decides their own call") sees them as one.
#[must_use]
pub fn claims_mapping() -> ClaimsMapping {
    ClaimsMapping::new()
}

/// The operator of the static-token inbox: a principal of the application's own.
///
/// # Panics
/// Never: `operator` is a valid subject.
#[must_use]
pub fn operator() -> Principal {
    Principal::local("operator").expect("a valid principal")
}

/// The resource server of the OAuth mode: tokens from `issuer` (keys found by
/// discovery) for the canonical URL `resource` (like `http://127.0.0.1:8080/mcp`),
/// each needing [`OAUTH_REQUIRED_SCOPE`].
pub async fn oauth_resource_server(
    issuer: &str,
    resource: &str,
) -> Result<ResourceServer, AuthError> {
    let verifier = JwtVerifier::builder(issuer, resource)
        .claims_mapping(claims_mapping())
        .discover()
        .await?;
    Ok(ResourceServer::new(resource, verifier)?
        .authorization_server(issuer)
        .scopes_supported(OAUTH_SCOPES)
        .required_scopes([OAUTH_REQUIRED_SCOPE])
        .resource_name("toolkit example MCP server"))
}

/// The stdio server: one client, of kind `client`.
#[must_use]
pub fn stdio_server(client: &str, state: AssistantState, settings: Settings) -> McpServer {
    McpServer::new(client, access(state, settings))
        .approvals(settings.request_state_key)
        .unwrap_or_else(|error| panic!("the request-state key is unusable: {error}"))
        .apps(settings.apps())
}

/// The approval inbox for this server's `approve` calls (mount it with
/// `.nest("/approvals", inbox(..).router())`): whoever presents the inbox token,
/// as `Authorization: Bearer TOKEN` or in the `inbox_token` cookie, is the
/// `operator` and decides every call. A real deployment identifies people with its
/// own sign-in (or the OAuth verifier of its MCP endpoints) and writes a policy.
/// It answers the same `Host` names as the MCP endpoints.
#[must_use]
pub fn inbox(settings: Settings, token: &str) -> toolkit::inbox::Inbox {
    use toolkit::inbox::{Identity, Inbox, PendingCall};
    let token = token.to_owned();
    Inbox::new(
        settings.approvals,
        move |parts: &http::request::Parts| {
            let bearer = parts
                .headers
                .get(http::header::AUTHORIZATION)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.strip_prefix("Bearer "));
            let cookie = parts
                .headers
                .get_all(http::header::COOKIE)
                .iter()
                .filter_map(|value| value.to_str().ok())
                .flat_map(|cookies| cookies.split(';'))
                .find_map(|cookie| cookie.trim().strip_prefix("inbox_token="));
            let presented = bearer.or(cookie)?;
            // Compared as digests, so the comparison's time says nothing about the token.
            (digest(presented) == digest(&token)).then(|| Identity::new(operator()))
        },
        |_: &Identity, _: &PendingCall<'_>| true,
    )
    .title("MCP server approvals")
    .limits(settings.limits)
    .allowed_hosts(settings.hosts())
}

/// The approval inbox of the OAuth mode: operators sign in with the
/// authorization server the MCP clients use (see [`signin`]); those `signin`
/// names approvers (the [`signin::APPROVER_ROLE`]) see and decide the calls,
/// anyone else signed in sees none. Who may decide a given call is still the
/// approvals' policy ([`who_decides`]): an approver who asked for a transfer
/// (their subject is its principal) may not decide it, and the page says so.
#[must_use]
pub fn oauth_inbox(settings: Settings, signin: signin::SignIn) -> toolkit::inbox::Inbox {
    use toolkit::inbox::{Identity, Inbox, PendingCall};
    Inbox::new(
        settings.approvals,
        signin,
        |who: &Identity, _: &PendingCall<'_>| who.has_role(signin::APPROVER_ROLE),
    )
    .title("MCP server approvals")
    .sign_in("/signin")
    .sign_out("/signout")
    .limits(settings.limits)
    .allowed_hosts(settings.hosts())
}

/// Liveness (`GET /livez`) and readiness (`GET /readyz`: the approval store
/// answers within a second) for the load balancer in front of the replicas;
/// merge it into the app beside the other routers.
pub fn health(settings: Settings) -> axum::Router {
    toolkit::serving::Health::new()
        .approvals(settings.approvals)
        .timeout(std::time::Duration::from_secs(1))
        .router()
}

fn digest(text: &str) -> String {
    toolkit::approval::digest(&serde_json::Value::String(text.to_owned()))
}

/// The HTTP router: one endpoint per client kind, each behind its token
/// (`tokens` gives the token of each kind, in [`CLIENTS`] order).
pub fn http_router(state: AssistantState, settings: Settings, tokens: [&str; 3]) -> axum::Router {
    let mut http = settings.peer_limited(
        McpHttp::new(access(state, settings))
            .approvals(settings.request_state_key)
            .unwrap_or_else(|error| panic!("the request-state key is unusable: {error}"))
            .apps(settings.apps())
            .allowed_hosts(settings.hosts())
            .limits(settings.limits),
    );
    for ((client, path), token) in CLIENTS.into_iter().zip(tokens) {
        http = http.endpoint(client, path, token);
    }
    http.into_router()
}

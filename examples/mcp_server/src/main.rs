//! Serves the assistant example's tools over MCP.
//!
//! ```text
//! mcp_server stdio [--client internal|copilot|external]
//! mcp_server http [--addr 127.0.0.1:8080] [--approvals-db approvals.sqlite3 | postgres://...]
//!                  [--oauth-issuer URL --resource URL
//!                   [--inbox-client-id ID [--inbox-approver SUBJECT ...]]]
//!                  [--allowed-host NAME ...]
//! ```
//!
//! Requests are accepted only with a loopback `Host` (`localhost`, `127.0.0.1`,
//! `::1`), which stops DNS rebinding; each `--allowed-host NAME` (or
//! `NAME:PORT`) adds a name a deployed server is reached by, and in OAuth mode
//! toolkit adds `--resource`'s host.
//!
//! With `--oauth-issuer` the server is an OAuth 2.1 resource server instead
//! (static tokens are the development mode): one endpoint, `/mcp`, taking access
//! tokens (JWTs) from that issuer whose audience is `--resource` (the URL
//! clients connect to, like `http://127.0.0.1:8080/mcp`); the token's scopes
//! choose the view (see `example_mcp_server::oauth_access`).
//!
//! With `--inbox-client-id ID` too, the approval inbox is at `/approvals` and
//! operators sign in to it with the same issuer (`OpenID` Connect, authorization
//! code with PKCE, as the public client `ID` whose redirect URI is
//! `ORIGIN/signin/callback`, `ORIGIN` being `--resource`'s); each
//! `--inbox-approver SUBJECT` names an ID token subject who sees and decides
//! calls. The session cookie is encrypted under `MCP_INBOX_SESSION_KEY` (at
//! least 32 bytes, the same on every replica; unset, a random one of this
//! process).
//!
//! Over HTTP each client kind has its endpoint and bearer token; the tokens come
//! from `MCP_TOKEN_INTERNAL`, `MCP_TOKEN_COPILOT` and `MCP_TOKEN_EXTERNAL`. An
//! unset one is generated at random for this run and printed on stderr (there are
//! no default tokens: a known token would open the server to anyone). Once
//! listening, the server prints `listening on http://ADDR` on stdout.
//!
//! A client gets 3 s to send its first byte, 10 s to send a request's headers and
//! 10 s for its body, a request 120 s to be answered; at most 8192 connections
//! are open at once, 64 of them from one peer (an IPv4 address or an IPv6 /64;
//! `MCP_CONNECTIONS_PER_PEER` changes it: raise it behind a proxy, whose address
//! every client shares) (`toolkit::serving::HttpLimits`); slower clients are cut
//! off, a peer's connections over its share are closed at once.
//!
//! Each tool's declared `quota` limits the calls of each principal (the client
//! kind, or the token's subject in OAuth mode), counted in the approval store's
//! database so that every replica counts against one quota (in memory without
//! `--approvals-db`); `MCP_QUOTAS=create_transfers=30/min,get_tasks=600/min` sets
//! limits in place of the declared ones.
//!
//! `MCP_PEER_LIMIT=20/min` limits each peer's requests that fail authentication
//! (no token, a wrong or forged one): over it a peer is answered `429` with
//! `Retry-After` before its token is looked at (`toolkit::serving::PeerLimit`,
//! counted in this process). Behind a load balancer, name it in
//! `MCP_TRUSTED_PROXIES=10.0.0.2,10.0.0.3`: the peer is then read from its
//! `X-Forwarded-For`.
//!
//! `GET /livez` answers `ok` while the process serves; `GET /readyz` answers
//! `ok` while the approval store answers within a second too, else `503`: a load
//! balancer checks it to take a frozen or cut-off replica out of rotation.
//!
//! With `OTEL_EXPORTER_OTLP_ENDPOINT` set (`http://collector:4318`), spans and
//! metrics go there over OTLP/HTTP (toolkit's `otel` feature; see
//! `src/telemetry.rs`), and a client's `traceparent` in `params._meta` parents
//! the server's spans; the usual `OTEL_*` variables apply. On `SIGTERM` or
//! `SIGINT` the server stops and exports the spans and metrics still buffered,
//! waiting at most 5 s for the collector.
//!
//! People decide `approve` calls in the approval inbox at `/approvals`, signed in
//! with `MCP_INBOX_TOKEN` as a bearer token or an `inbox_token` cookie (unset, a
//! random one for this run is printed on stderr). A call approved there that
//! nobody resumes within `MCP_APPROVAL_RUNNER_GRACE_SECONDS` (default 60) runs on
//! whichever replica's runner gets to it first, once; its outcome is in the
//! inbox's audit list.
//!
//! Over stdio and HTTP, a client that declares MCP Apps (`io.modelcontextprotocol/ui`)
//! gets the preview card of `confirm` tools and the approval card of `approve`
//! tools; over HTTP the approval card's button opens the inbox at the call
//! (`http://ADDR/approvals`, or the `--resource` URL's origin with OAuth and an
//! inbox). Other clients see exactly the lists and results they saw without them.
//!
//! Approvals are signed with `MCP_APPROVAL_KEY` and sealed into MCP `requestState`
//! with `MCP_REQUEST_STATE_KEY` (each at least 32 bytes; `openssl rand -hex 32`
//! makes one). Unset, each is a random key of this process, said on stderr: its
//! approvals can't outlive it. Processes that share these keys and
//! `--approvals-db` serve the same endpoints (an approval asked for by one is
//! resumed by any, and runs once), so `--approvals-db` refuses to start without
//! both keys.
//!
//! With `--approvals-db postgres://...` the replicas may run on many hosts (a
//! fleet behind a load balancer); `MCP_APPROVAL_PREVIOUS_KEYS` (comma-separated)
//! lists keys that still verify during a key rotation;
//! `MCP_APPROVAL_RUN_LEASE_SECONDS` (default 30) is how long a run of an approved
//! call holds it without renewing it (a live run renews it every third of that)
//! before a run that did not complete (a killed or frozen replica's) is run
//! again; `MCP_REPLICA` names this replica in the ledger of `create_transfers` (the
//! `approve` tool these servers add, kept in the same database) and of
//! `create_notes` (an `auto` tool writing one row per call, that the fleet test
//! counts against its quota) and of `create_reports` (an `auto` tool that is only
//! ever a task, working for the seconds it is asked, with one row per task: the
//! fleet test's long run).

use std::io::Write as _;

use example_assistant::AssistantState;
use example_mcp_server::signin::SignIn;
use example_mcp_server::{
    CLIENTS, Settings, health, http_router, inbox, oauth_inbox, oauth_resource_server,
    oauth_router, serve, stdio_server,
};

const USAGE: &str = "usage: mcp_server stdio [--client internal|copilot|external]\n       mcp_server http [--addr 127.0.0.1:8080] [--approvals-db PATH|postgres://...] [--oauth-issuer URL --resource URL [--inbox-client-id ID [--inbox-approver SUBJECT ...]]] [--allowed-host NAME ...]";

/// The longest the server waits, once told to stop, for the collector to take
/// the spans and metrics still buffered.
const TELEMETRY_FLUSH: std::time::Duration = std::time::Duration::from_secs(5);

#[tokio::main]
async fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    // OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set; flushed on return
    // and when a signal stops the server (the default action of SIGTERM and
    // SIGINT would end the process with the batch exporter's spans unsent).
    let telemetry = example_mcp_server::telemetry::Telemetry::from_env()
        .unwrap_or_else(|error| fail(&format!("mcp_server: telemetry: {error}")));
    // The handlers are in place before the server listens: a signal right after
    // the first call is caught too.
    let stop = stop_signal();
    let outcome = tokio::select! {
        outcome = run(&arguments) => outcome,
        signal = stop => {
            eprintln!("mcp_server: {signal}: stopping");
            Ok(())
        }
    };
    if let Some(telemetry) = telemetry {
        telemetry.shutdown(TELEMETRY_FLUSH);
    }
    if let Err(error) = outcome {
        fail(&format!("mcp_server: {error}"));
    }
}

/// The name of the signal that asks the server to stop (`SIGTERM` from a
/// process manager, `SIGINT` from a terminal), once one comes. The handlers
/// are installed when this is called, not when the future is first polled.
#[cfg(unix)]
fn stop_signal() -> impl Future<Output = &'static str> {
    use tokio::signal::unix::{SignalKind, signal};
    let handlers = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    );
    async move {
        match handlers {
            (Ok(mut terminate), Ok(mut interrupt)) => tokio::select! {
                _ = terminate.recv() => "SIGTERM",
                _ = interrupt.recv() => "SIGINT",
            },
            // Without handlers the signals keep their default action.
            (Err(error), _) | (_, Err(error)) => {
                eprintln!(
                    "mcp_server: no signal handler ({error}); a signal stops the server \
                     without flushing telemetry"
                );
                std::future::pending().await
            }
        }
    }
}

/// Ctrl-C, where there are no Unix signals.
#[cfg(not(unix))]
fn stop_signal() -> impl Future<Output = &'static str> {
    async {
        match tokio::signal::ctrl_c().await {
            Ok(()) => "Ctrl-C",
            Err(_) => std::future::pending().await,
        }
    }
}

/// Serves as the command line says, until the transport ends or fails.
async fn run(arguments: &[String]) -> std::io::Result<()> {
    let option = |name: &str| {
        arguments
            .iter()
            .position(|argument| argument == name)
            .and_then(|at| arguments.get(at + 1))
            .map(String::as_str)
    };
    match arguments.first().map(String::as_str) {
        Some("stdio") => {
            let client = option("--client").unwrap_or("internal");
            if CLIENTS.iter().all(|&(known, _)| known != client) {
                fail(&format!("unknown client kind `{client}`\n{USAGE}"));
            }
            stdio_server(client, AssistantState::new(), settings(None).await)
                .serve_stdio()
                .await
        }
        Some("http") => {
            // Every `--allowed-host NAME`, in order.
            let hosts = arguments
                .windows(2)
                .filter(|pair| pair[0] == "--allowed-host")
                .map(|pair| pair[1].clone());
            let settings = settings(option("--approvals-db"))
                .await
                .allowed_hosts(hosts);
            let addr = option("--addr").unwrap_or("127.0.0.1:8080");
            match (option("--oauth-issuer"), option("--resource")) {
                (None, None) => serve_http(addr, settings).await,
                (Some(issuer), Some(resource)) => {
                    let approvers = arguments
                        .windows(2)
                        .filter(|pair| pair[0] == "--inbox-approver")
                        .map(|pair| pair[1].clone())
                        .collect();
                    serve_oauth(
                        addr,
                        settings,
                        (issuer, resource),
                        option("--inbox-client-id"),
                        approvers,
                    )
                    .await
                }
                _ => fail(&format!(
                    "--oauth-issuer and --resource go together\n{USAGE}"
                )),
            }
        }
        _ => fail(USAGE),
    }
}

async fn settings(store: Option<&str>) -> Settings {
    let key = |name: &str| match std::env::var(name) {
        Ok(key) if key.len() >= 32 => key,
        Ok(_) => fail(&format!(
            "mcp_server: {name} is shorter than 32 bytes; `openssl rand -hex 32` makes a key"
        )),
        // Other processes sharing the store could not verify what this one signs.
        Err(_) if store.is_some() => fail(&format!(
            "mcp_server: --approvals-db needs {name}, the same in every process sharing the \
             store (at least 32 bytes; `openssl rand -hex 32` makes one)"
        )),
        Err(_) => {
            eprintln!(
                "mcp_server: {name} is not set: using a random key for this process; \
                 its pending approvals can't be resumed by another process or after a restart"
            );
            random_secret()
        }
    };
    let approval_key = key("MCP_APPROVAL_KEY");
    let request_state_key = key("MCP_REQUEST_STATE_KEY");
    let settings = match store {
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            // Keys of a rotation in progress: they still verify, the first key signs.
            let previous: Vec<Vec<u8>> = std::env::var("MCP_APPROVAL_PREVIOUS_KEYS")
                .unwrap_or_default()
                .split(',')
                .filter(|key| !key.is_empty())
                .map(|key| key.as_bytes().to_vec())
                .collect();
            let lease = match std::env::var("MCP_APPROVAL_RUN_LEASE_SECONDS") {
                Ok(seconds) => seconds.parse::<u64>().ok().filter(|&s| s > 0).unwrap_or_else(|| {
                    fail("mcp_server: MCP_APPROVAL_RUN_LEASE_SECONDS is not a positive number of seconds")
                }),
                Err(_) => 30,
            };
            let replica = std::env::var("MCP_REPLICA")
                .unwrap_or_else(|_| format!("pid-{}", std::process::id()));
            Settings::postgres(
                approval_key.as_bytes(),
                &previous,
                request_state_key.as_bytes(),
                url,
                std::time::Duration::from_secs(lease),
                &replica,
            )
            .await
        }
        store => Settings::new(
            approval_key.as_bytes(),
            request_state_key.as_bytes(),
            store.map(std::path::Path::new),
        ),
    };
    let settings =
        settings.unwrap_or_else(|error| fail(&format!("mcp_server: the approval store: {error}")));
    // Limits in place of the tools' declared ones: `create_transfers=30/min,...`.
    let settings = match std::env::var("MCP_QUOTAS") {
        Ok(text) => {
            let limits = text
                .split(',')
                .filter(|pair| !pair.is_empty())
                .map(|pair| {
                    let (tool, limit) = pair.split_once('=').unwrap_or_else(|| {
                        fail("mcp_server: MCP_QUOTAS is `tool=30/min,tool=5/h`")
                    });
                    let limit = limit
                        .parse()
                        .unwrap_or_else(|error| fail(&format!("mcp_server: MCP_QUOTAS: {error}")));
                    (tool.to_owned(), limit)
                })
                .collect::<Vec<_>>();
            settings
                .quota_limits(&limits)
                .unwrap_or_else(|error| fail(&format!("mcp_server: MCP_QUOTAS: {error}")))
        }
        Err(_) => settings,
    };
    // Failed authentications per peer, and the proxies that name the peer.
    let settings = match std::env::var("MCP_PEER_LIMIT") {
        Ok(limit) => {
            let quota = limit
                .parse()
                .unwrap_or_else(|error| fail(&format!("mcp_server: MCP_PEER_LIMIT: {error}")));
            let proxies = std::env::var("MCP_TRUSTED_PROXIES").unwrap_or_default();
            let proxies = proxies
                .split(',')
                .filter(|proxy| !proxy.is_empty())
                .map(|proxy| {
                    proxy.trim().parse().unwrap_or_else(|_| {
                        fail(&format!(
                            "mcp_server: MCP_TRUSTED_PROXIES: `{proxy}` is not an IP address"
                        ))
                    })
                })
                .collect();
            settings.peer_limit(quota, proxies)
        }
        Err(_) => settings,
    };
    // Behind a proxy every client comes from the proxy's address.
    match std::env::var("MCP_CONNECTIONS_PER_PEER") {
        Ok(count) => {
            let count = count
                .parse::<usize>()
                .ok()
                .filter(|&n| n > 0)
                .unwrap_or_else(|| {
                    fail("mcp_server: MCP_CONNECTIONS_PER_PEER is not a positive number")
                });
            let limits = settings.limits.connections_per_peer(count);
            settings.limits(limits)
        }
        Err(_) => settings,
    }
}

/// 32 random bytes from the operating system, as hex.
fn random_secret() -> String {
    example_mcp_server::random_secret()
        .unwrap_or_else(|error| fail(&format!("mcp_server: no randomness: {error}")))
}

async fn serve_http(addr: &str, settings: Settings) -> std::io::Result<()> {
    let token = |kind: &str| {
        let name = format!("MCP_TOKEN_{}", kind.to_uppercase());
        std::env::var(&name).unwrap_or_else(|_| {
            let token = random_secret();
            eprintln!(
                "mcp_server: {name} is not set: the `{kind}` endpoint's token for this run is \
                 {token} (set {name} to choose it)"
            );
            token
        })
    };
    let tokens = CLIENTS.map(|(kind, _)| token(kind));
    let inbox_token = std::env::var("MCP_INBOX_TOKEN").unwrap_or_else(|_| {
        let token = random_secret();
        eprintln!(
            "mcp_server: MCP_INBOX_TOKEN is not set: the approval inbox's token for this run is \
             {token} (set MCP_INBOX_TOKEN to choose it)"
        );
        token
    });
    // Bound first: the approval card's button opens the inbox at this address.
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let settings = settings.inbox_url(&format!("http://{local}/approvals"));
    let state = AssistantState::new();
    spawn_runner(state.clone(), settings);
    let limits = settings.limits;
    let router = http_router(
        state,
        settings,
        [&tokens[0], &tokens[1], &tokens[2]].map(String::as_str),
    )
    .nest("/approvals", inbox(settings, &inbox_token).router())
    // axum routes the nesting path with a trailing slash to neither router.
    .route(
        "/approvals/",
        axum::routing::get(|| async { axum::response::Redirect::permanent("/approvals") }),
    )
    .merge(health(settings));
    let mut stdout = std::io::stdout();
    writeln!(stdout, "listening on http://{local}")?;
    stdout.flush()?;
    serve(listener, router, limits).await
}

/// Runs the calls approved in the inbox that nobody resumed, every two seconds,
/// once they were decided `MCP_APPROVAL_RUNNER_GRACE_SECONDS` ago (default 60: the
/// time a client holding the call's request state has to run it itself), and the
/// tasks whose replica died (after their lease).
fn spawn_runner(state: AssistantState, settings: Settings) {
    let grace = match std::env::var("MCP_APPROVAL_RUNNER_GRACE_SECONDS") {
        Ok(seconds) => seconds.parse::<u64>().unwrap_or_else(|_| {
            fail("mcp_server: MCP_APPROVAL_RUNNER_GRACE_SECONDS is not a number of seconds")
        }),
        Err(_) => 60,
    };
    let grace = std::time::Duration::from_secs(grace);
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(2));
        loop {
            every.tick().await;
            match example_mcp_server::run_decided(&state, settings, grace).await {
                Ok(pass) if pass.ran + pass.failed + pass.refused > 0 => {
                    eprintln!("mcp_server: approval runner: {pass:?}");
                }
                Ok(_) => {}
                Err(error) => eprintln!("mcp_server: approval runner: {error}"),
            }
            // Tasks whose replica died: run again after their lease, here or on
            // whichever replica's pass claims them first.
            match example_mcp_server::run_tasks(&state, settings).await {
                Ok(pass) if pass.ran + pass.cancelled + pass.refused > 0 => {
                    eprintln!("mcp_server: task runner: {pass:?}");
                }
                Ok(_) => {}
                Err(error) => eprintln!("mcp_server: task runner: {error}"),
            }
        }
    });
}

/// `scheme://host[:port]` of `url`.
fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    (!authority.is_empty()).then(|| format!("{scheme}://{authority}"))
}

async fn serve_oauth(
    addr: &str,
    settings: Settings,
    (issuer, resource): (&str, &str),
    inbox_client: Option<&str>,
    approvers: Vec<String>,
) -> std::io::Result<()> {
    let auth = oauth_resource_server(issuer, resource)
        .await
        .unwrap_or_else(|error| fail(&format!("mcp_server: the authorization server: {error}")));
    // With an inbox, on the resource URL's origin, the approval card opens it.
    let public = inbox_client.map(|_| {
        origin(resource)
            .unwrap_or_else(|| fail(&format!("mcp_server: --resource `{resource}` is not a URL")))
    });
    let settings = match &public {
        Some(public) => settings.inbox_url(&format!("{public}/approvals")),
        None => settings,
    };
    let state = AssistantState::new();
    spawn_runner(state.clone(), settings);
    let limits = settings.limits;
    let mut router = oauth_router(state, settings, auth).merge(health(settings));
    if let (Some(client_id), Some(public)) = (inbox_client, public) {
        // The inbox's sign-in: the same issuer, as the public client `client_id`,
        // its redirect URI on the resource URL's origin.
        let secret = std::env::var("MCP_INBOX_SESSION_KEY").unwrap_or_else(|_| {
            eprintln!(
                "mcp_server: MCP_INBOX_SESSION_KEY is not set: using a random key for this \
                 process; its inbox sessions end with it and no other replica accepts them"
            );
            random_secret()
        });
        let signin = SignIn::discover(
            issuer,
            client_id,
            &public,
            secret.as_bytes(),
            approvers,
            settings.approvals,
            "/approvals",
        )
        .await
        .unwrap_or_else(|error| fail(&format!("mcp_server: the inbox sign-in: {error}")));
        router = router
            .merge(signin.router())
            .nest("/approvals", oauth_inbox(settings, signin).router())
            .route(
                "/approvals/",
                axum::routing::get(|| async { axum::response::Redirect::permanent("/approvals") }),
            );
    }
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "listening on http://{local}")?;
    stdout.flush()?;
    serve(listener, router, limits).await
}

fn fail(message: &str) -> ! {
    eprintln!("{message}");
    std::process::exit(2)
}

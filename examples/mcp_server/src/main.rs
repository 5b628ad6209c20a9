//! Serves the assistant example's tools over MCP.
//!
//! ```text
//! mcp_server stdio [--client internal|copilot|external]
//! mcp_server http [--addr 127.0.0.1:8080] [--approvals-db approvals.sqlite3]
//! ```
//!
//! Over HTTP each client kind has its endpoint and bearer token; the tokens come
//! from `MCP_TOKEN_INTERNAL`, `MCP_TOKEN_COPILOT` and `MCP_TOKEN_EXTERNAL`
//! (demo defaults `internal-token`, `copilot-token`, `external-token`). Once
//! listening, the server prints `listening on http://ADDR` on stdout.
//!
//! People decide `approve` calls in the approval inbox at `/approvals`, signed in
//! with `MCP_INBOX_TOKEN` (demo default `inbox-token`) as a bearer token or an
//! `inbox_token` cookie.
//!
//! Approvals are signed with `MCP_APPROVAL_KEY` and sealed into MCP `requestState`
//! with `MCP_REQUEST_STATE_KEY` (demo defaults; each at least 32 bytes). Processes
//! that share these keys and `--approvals-db` serve the same endpoints: an approval
//! asked for by one is resumed by any, and runs once.

use std::io::Write as _;

use example_assistant::AssistantState;
use example_mcp_server::{CLIENTS, Settings, http_router, inbox, stdio_server};

const USAGE: &str = "usage: mcp_server stdio [--client internal|copilot|external]\n       mcp_server http [--addr 127.0.0.1:8080] [--approvals-db PATH]";

#[tokio::main]
async fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let option = |name: &str| {
        arguments
            .iter()
            .position(|argument| argument == name)
            .and_then(|at| arguments.get(at + 1))
            .map(String::as_str)
    };
    let outcome = match arguments.first().map(String::as_str) {
        Some("stdio") => {
            let client = option("--client").unwrap_or("internal");
            if CLIENTS.iter().all(|&(known, _)| known != client) {
                fail(&format!("unknown client kind `{client}`\n{USAGE}"));
            }
            stdio_server(client, AssistantState::new(), settings(None))
                .serve_stdio()
                .await
        }
        Some("http") => {
            let settings = settings(option("--approvals-db"));
            serve_http(option("--addr").unwrap_or("127.0.0.1:8080"), settings).await
        }
        _ => fail(USAGE),
    };
    if let Err(error) = outcome {
        fail(&format!("mcp_server: {error}"));
    }
}

fn settings(store: Option<&str>) -> Settings {
    let key = |name: &str, demo: &str| std::env::var(name).unwrap_or_else(|_| demo.to_owned());
    let approval_key = key(
        "MCP_APPROVAL_KEY",
        "demo approval key, at least 32 bytes long",
    );
    let request_state_key = key(
        "MCP_REQUEST_STATE_KEY",
        "demo request-state key, 32 bytes or more",
    );
    Settings::new(
        approval_key.as_bytes(),
        request_state_key.as_bytes(),
        store.map(std::path::Path::new),
    )
    .unwrap_or_else(|error| fail(&format!("mcp_server: the approval store: {error}")))
}

async fn serve_http(addr: &str, settings: Settings) -> std::io::Result<()> {
    let token = |kind: &str| {
        std::env::var(format!("MCP_TOKEN_{}", kind.to_uppercase()))
            .unwrap_or_else(|_| format!("{kind}-token"))
    };
    let tokens = CLIENTS.map(|(kind, _)| token(kind));
    let inbox_token = std::env::var("MCP_INBOX_TOKEN").unwrap_or_else(|_| "inbox-token".to_owned());
    let router = http_router(
        AssistantState::new(),
        settings,
        [&tokens[0], &tokens[1], &tokens[2]].map(String::as_str),
    )
    .nest("/approvals", inbox(settings, &inbox_token).router());
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "listening on http://{local}")?;
    stdout.flush()?;
    axum::serve(listener, router).await
}

fn fail(message: &str) -> ! {
    eprintln!("{message}");
    std::process::exit(2)
}

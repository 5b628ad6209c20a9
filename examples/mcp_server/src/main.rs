//! Serves the assistant example's tools over MCP.
//!
//! ```text
//! mcp_server stdio [--client internal|copilot|external]
//! mcp_server http [--addr 127.0.0.1:8080] [--approvals-db approvals.sqlite3 | postgres://...]
//! ```
//!
//! Over HTTP each client kind has its endpoint and bearer token; the tokens come
//! from `MCP_TOKEN_INTERNAL`, `MCP_TOKEN_COPILOT` and `MCP_TOKEN_EXTERNAL`
//! (demo defaults `internal-token`, `copilot-token`, `external-token`). Once
//! listening, the server prints `listening on http://ADDR` on stdout.
//!
//! Approvals are signed with `MCP_APPROVAL_KEY` and sealed into MCP `requestState`
//! with `MCP_REQUEST_STATE_KEY` (demo defaults; each at least 32 bytes). Processes
//! that share these keys and `--approvals-db` serve the same endpoints: an approval
//! asked for by one is resumed by any, and runs once. With `--approvals-db
//! postgres://...` the replicas may run on many hosts (a fleet behind a load
//! balancer); `MCP_APPROVAL_PREVIOUS_KEYS` (comma-separated) lists keys that still
//! verify during a key rotation.

use std::io::Write as _;

use example_assistant::AssistantState;
use example_mcp_server::{CLIENTS, Settings, http_router, stdio_server};

const USAGE: &str = "usage: mcp_server stdio [--client internal|copilot|external]\n       mcp_server http [--addr 127.0.0.1:8080] [--approvals-db PATH|postgres://...]";

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
            let settings = match option("--approvals-db") {
                Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                    postgres_settings(url).await
                }
                store => settings(store),
            };
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

async fn postgres_settings(url: &str) -> Settings {
    let key = |name: &str, demo: &str| std::env::var(name).unwrap_or_else(|_| demo.to_owned());
    let approval_key = key(
        "MCP_APPROVAL_KEY",
        "demo approval key, at least 32 bytes long",
    );
    let request_state_key = key(
        "MCP_REQUEST_STATE_KEY",
        "demo request-state key, 32 bytes or more",
    );
    let previous: Vec<Vec<u8>> = std::env::var("MCP_APPROVAL_PREVIOUS_KEYS")
        .unwrap_or_default()
        .split(',')
        .filter(|key| !key.is_empty())
        .map(|key| key.as_bytes().to_vec())
        .collect();
    Settings::postgres(
        approval_key.as_bytes(),
        &previous,
        request_state_key.as_bytes(),
        url,
    )
    .await
    .unwrap_or_else(|error| fail(&format!("mcp_server: the approval store: {error}")))
}

async fn serve_http(addr: &str, settings: Settings) -> std::io::Result<()> {
    let token = |kind: &str| {
        std::env::var(format!("MCP_TOKEN_{}", kind.to_uppercase()))
            .unwrap_or_else(|_| format!("{kind}-token"))
    };
    let tokens = CLIENTS.map(|(kind, _)| token(kind));
    let router = http_router(
        AssistantState::new(),
        settings,
        [&tokens[0], &tokens[1], &tokens[2]].map(String::as_str),
    );
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

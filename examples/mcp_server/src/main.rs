//! Serves the assistant example's tools over MCP.
//!
//! ```text
//! mcp_server stdio [--client internal|copilot|external]
//! mcp_server http [--addr 127.0.0.1:8080]
//! ```
//!
//! Over HTTP each client kind has its endpoint and bearer token; the tokens come
//! from `MCP_TOKEN_INTERNAL`, `MCP_TOKEN_COPILOT` and `MCP_TOKEN_EXTERNAL`
//! (demo defaults `internal-token`, `copilot-token`, `external-token`). Once
//! listening, the server prints `listening on http://ADDR` on stdout.

use std::io::Write as _;

use example_assistant::AssistantState;
use example_mcp_server::{CLIENTS, http_router, stdio_server};

const USAGE: &str = "usage: mcp_server stdio [--client internal|copilot|external]\n       mcp_server http [--addr 127.0.0.1:8080]";

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
            stdio_server(client, AssistantState::new())
                .serve_stdio()
                .await
        }
        Some("http") => serve_http(option("--addr").unwrap_or("127.0.0.1:8080")).await,
        _ => fail(USAGE),
    };
    if let Err(error) = outcome {
        fail(&format!("mcp_server: {error}"));
    }
}

async fn serve_http(addr: &str) -> std::io::Result<()> {
    let token = |kind: &str| {
        std::env::var(format!("MCP_TOKEN_{}", kind.to_uppercase()))
            .unwrap_or_else(|_| format!("{kind}-token"))
    };
    let tokens = CLIENTS.map(|(kind, _)| token(kind));
    let router = http_router(
        AssistantState::new(),
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

//! The brain over MCP (streamable HTTP) as an OAuth 2.1 resource server: one
//! endpoint, `/mcp`, for access tokens (JWTs) from `--oauth-issuer` whose
//! audience is `--resource` (the endpoint's public URL). The token's scopes
//! choose the view (`internal`, `copilot` or `external`, plus `mcp` on every
//! token); see `example_brain::server`.
//!
//! `cargo run -p example-brain --bin brain_server -- --oauth-issuer URL --resource URL [--addr 127.0.0.1:8090]`

use std::io::Write as _;
use std::sync::Arc;

use example_brain::server::{oauth_resource_server, oauth_router};
use example_brain::{Brain, Home};

const USAGE: &str = "usage: brain_server --oauth-issuer URL --resource URL [--addr 127.0.0.1:8090]";

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
    let (Some(issuer), Some(resource)) = (option("--oauth-issuer"), option("--resource")) else {
        fail(USAGE);
    };
    let addr = option("--addr").unwrap_or("127.0.0.1:8090");
    if let Err(error) = serve(issuer, resource, addr).await {
        fail(&format!("brain_server: {error}"));
    }
}

async fn serve(issuer: &str, resource: &str, addr: &str) -> std::io::Result<()> {
    let auth = oauth_resource_server(issuer, resource)
        .await
        .unwrap_or_else(|error| fail(&format!("brain_server: the authorization server: {error}")));
    let router = oauth_router(Arc::new(Brain::new(Home::sample())), auth);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let mut stdout = std::io::stdout();
    writeln!(
        stdout,
        "listening on http://{local}/mcp (resource {resource})"
    )?;
    stdout.flush()?;
    axum::serve(listener, router).await
}

fn fail(message: &str) -> ! {
    eprintln!("{message}");
    std::process::exit(2)
}

//! The OAuth mode against software no one here wrote: runs
//! `scripts/oauth_test.sh` (npm `oauth2-mock-server` as the authorization server,
//! the official Python MCP SDK getting its own token, the MCP Inspector CLI with
//! a bearer header) against this crate's server binary.

use std::path::Path;
use std::process::Command;

#[test]
fn real_clients_get_tokens_from_a_real_authorization_server() {
    let missing: Vec<&str> = ["python3", "npm", "curl"]
        .into_iter()
        .filter(|tool| Command::new(tool).arg("--version").output().is_err())
        .collect();
    if !missing.is_empty() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI must have {missing:?} for the OAuth client test"
        );
        println!("skipped: {missing:?} not installed, so the OAuth client test can't run");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new("bash")
        .arg(root.join("scripts/oauth_test.sh"))
        .env("MCP_SERVER_BIN", env!("CARGO_BIN_EXE_mcp_server"))
        .output()
        .expect("bash runs the script");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(output.status.success(), "the OAuth client checks failed");
    for line in [
        "python oauth client: 6 passed, 0 failed",
        "ok inspector_lists_the_tokens_view",
        "ok inspector_without_a_token_is_refused",
    ] {
        assert!(
            stdout.lines().any(|printed| printed == line),
            "missing: {line}"
        );
    }
}

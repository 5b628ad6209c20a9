//! The OAuth mode against software no one here wrote: runs
//! `scripts/oauth_test.sh` (npm `oauth2-mock-server` as the authorization server,
//! the official Python MCP SDK getting its own token, the MCP Inspector CLI with
//! a bearer header) against this crate's server binary.

use crate::common;

#[test]
fn real_clients_get_tokens_from_a_real_authorization_server() {
    let Some(stdout) = common::run_script(
        "oauth_test.sh",
        &["python3", "npm", "curl"],
        &[("MCP_SERVER_BIN", env!("CARGO_BIN_EXE_mcp_server"))],
        "the OAuth client checks",
    ) else {
        return;
    };
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

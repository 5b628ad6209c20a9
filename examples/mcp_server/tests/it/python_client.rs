//! The official Python MCP SDK as a client: runs `scripts/mcp_client_test.sh`
//! (its own virtual environment, a pinned `mcp` from PyPI) against this crate's
//! server binary, so `cargo test --workspace` covers it. Without python3 it
//! fails in CI and says so once elsewhere.

use crate::common;

#[test]
fn the_python_sdk_lists_calls_and_is_refused_where_it_should_be() {
    let Some(stdout) = common::run_script(
        "mcp_client_test.sh",
        &["python3"],
        &[("MCP_SERVER_BIN", env!("CARGO_BIN_EXE_mcp_server"))],
        "the Python MCP client checks",
    ) else {
        return;
    };
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("python mcp client: ")
                && line.ends_with(" passed, 0 failed")),
        "the script printed no summary"
    );
}

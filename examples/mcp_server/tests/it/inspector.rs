//! The MCP Inspector CLI (the TypeScript SDK's client; installed with Node 22
//! under `target/` by `scripts/mcp_inspector_test.sh`) lists and calls every tool
//! of `mcp_server` and `mcp_conformance`, over stdio and streamable HTTP. The
//! TypeScript SDK checks every result against the tool's output schema, error
//! results included: no result may be rejected.

use crate::common;

#[test]
fn the_inspector_lists_and_calls_every_tool_over_stdio_and_http() {
    let Some(stdout) = common::run_script(
        "mcp_inspector_test.sh",
        &["npm"],
        &[
            ("MCP_SERVER_BIN", env!("CARGO_BIN_EXE_mcp_server")),
            ("MCP_CONFORMANCE_BIN", env!("CARGO_BIN_EXE_mcp_conformance")),
        ],
        "the MCP Inspector checks",
    ) else {
        return;
    };
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("inspector: ") && line.ends_with(" passed, 0 failed")),
        "the script printed no summary"
    );
    // Every tool of both servers, over both transports, was called.
    let calls = stdout
        .lines()
        .filter(|line| line.starts_with("ok tools/call "))
        .count();
    assert!(calls >= 2 * (23 + 12), "only {calls} calls");
}

//! The MCP Inspector CLI (the TypeScript SDK's client; installed with Node 22
//! under `target/` by `scripts/mcp_inspector_test.sh`) lists and calls every tool
//! of `mcp_server` and `mcp_conformance`, over stdio and streamable HTTP. The
//! TypeScript SDK checks every result against the tool's output schema, error
//! results included: no result may be rejected.

use std::path::Path;
use std::process::Command;

#[test]
fn the_inspector_lists_and_calls_every_tool_over_stdio_and_http() {
    if Command::new("npm").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but npm is missing: the MCP Inspector can't be installed"
        );
        println!("skipped: npm is not installed, so the MCP Inspector can't run");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new("bash")
        .arg(root.join("scripts/mcp_inspector_test.sh"))
        .env("MCP_SERVER_BIN", env!("CARGO_BIN_EXE_mcp_server"))
        .env("MCP_CONFORMANCE_BIN", env!("CARGO_BIN_EXE_mcp_conformance"))
        .output()
        .expect("bash runs the script");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(output.status.success(), "the Inspector checks failed");
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

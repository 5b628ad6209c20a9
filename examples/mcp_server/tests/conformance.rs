//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, with
//! the Node 22 it needs, installed under `target/` by `scripts/mcp_conformance.sh`)
//! against this crate's `mcp_conformance` binary, so `cargo test --workspace`
//! runs it. Every tools, server and elicitation scenario must pass; the
//! resources, prompts and completion scenarios, which a tools-only server can't
//! serve, are the baseline in `scripts/mcp_conformance_baseline.yml` (the suite
//! fails if one of them starts passing too).

use std::path::Path;
use std::process::Command;

#[test]
fn the_official_conformance_suite_passes() {
    if Command::new("npm").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but npm is missing: the MCP conformance suite can't be installed"
        );
        println!("skipped: npm is not installed, so the MCP conformance suite can't run");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new("bash")
        .arg(root.join("scripts/mcp_conformance.sh"))
        .env("MCP_CONFORMANCE_BIN", env!("CARGO_BIN_EXE_mcp_conformance"))
        .output()
        .expect("bash runs the script");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(output.status.success(), "the MCP conformance suite failed");
    assert!(
        stdout.contains("Expected failures (in baseline)"),
        "the suite printed no summary"
    );
}

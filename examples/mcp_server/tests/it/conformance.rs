//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, with
//! the Node 22 it needs, installed under `target/` by `scripts/mcp_conformance.sh`)
//! against this crate's `mcp_conformance` binary, so `cargo test --workspace`
//! runs it. Every tools, server and elicitation scenario must pass; the
//! resources, prompts and completion scenarios, which a tools-only server can't
//! serve, are the baseline in `scripts/mcp_conformance_baseline.yml` (the suite
//! fails if one of them starts passing too).

use crate::common;

#[test]
fn the_official_conformance_suite_passes() {
    let Some(stdout) = common::run_script(
        "mcp_conformance.sh",
        &["npm"],
        &[("MCP_CONFORMANCE_BIN", env!("CARGO_BIN_EXE_mcp_conformance"))],
        "the MCP conformance suite",
    ) else {
        return;
    };
    assert!(
        stdout.contains("Expected failures (in baseline)"),
        "the suite printed no summary"
    );
}

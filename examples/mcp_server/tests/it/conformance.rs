//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, with
//! the Node 22 it needs, installed under `target/` by `scripts/mcp_conformance.sh`),
//! so `cargo test --workspace` runs it: 0.1.16's active scenarios against this
//! crate's `mcp_conformance` binary, and 0.2.0-alpha.12's 2026-07-28 requirement
//! set against that binary and against the stateless `mcp_server` users run.
//! Every scenario must pass but those in the run's baseline
//! (`scripts/mcp_conformance_baseline*.yml`, each with its reason); the suite
//! fails if one of those starts passing too.

use crate::common;

#[test]
fn the_official_conformance_suite_passes() {
    let Some(stdout) = common::run_script(
        "mcp_conformance.sh",
        &["npm"],
        &[
            ("MCP_CONFORMANCE_BIN", env!("CARGO_BIN_EXE_mcp_conformance")),
            ("MCP_SERVER_BIN", env!("CARGO_BIN_EXE_mcp_server")),
        ],
        "the MCP conformance suite",
    ) else {
        return;
    };
    // One verdict per run: 0.1.16, then 0.2 against each server.
    assert_eq!(
        stdout
            .matches("Baseline check passed: all failures are expected.")
            .count(),
        3,
        "a run printed no verdict"
    );
}

//! The official Python MCP SDK as a client: runs `scripts/mcp_client_test.sh`
//! (its own virtual environment, a pinned `mcp` from PyPI) against this crate's
//! server binary, so `cargo test --workspace` covers it.

use std::path::Path;
use std::process::Command;

#[test]
fn the_python_sdk_lists_calls_and_is_refused_where_it_should_be() {
    if Command::new("python3").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but python3 is missing: the Python MCP client can't run"
        );
        println!("skipped: python3 is not installed, so the Python MCP client can't run");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new("bash")
        .arg(root.join("scripts/mcp_client_test.sh"))
        .env("MCP_SERVER_BIN", env!("CARGO_BIN_EXE_mcp_server"))
        .output()
        .expect("bash runs the script");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(
        output.status.success(),
        "the Python MCP client checks failed"
    );
    assert!(
        stdout
            .lines()
            .any(|line| line.ends_with(" passed, 0 failed")),
        "the script printed no summary"
    );
}

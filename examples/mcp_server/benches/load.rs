//! `cargo bench` entry of the load benchmark: runs `scripts/load_bench.sh` on the
//! `load_server` and `mcp_server` binaries cargo just built with the bench profile.
//!
//! The script needs `wrk` (Debian's `wrk` package) and `python3` (`FastMCP` is
//! installed from PyPI into `target/fastmcp-venv`). Without `wrk` this says so
//! once and measures nothing, unless `CI=true`, where it fails.
//! `LOAD_SECONDS` sets the seconds per measurement (default 5); the script's own
//! variables (`LOAD_SERVERS`, `LOAD_CONNECTIONS`, `LOAD_FLEET_URL`, ...) pass
//! through.

use std::path::Path;
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    // `cargo test --benches` runs benches once as tests: nothing to load then.
    if std::env::args().any(|argument| argument == "--test") {
        return ExitCode::SUCCESS;
    }
    let has_wrk = Command::new("wrk")
        .arg("--version")
        .output()
        .is_ok_and(|output| !output.stdout.is_empty() || !output.stderr.is_empty());
    if !has_wrk {
        eprintln!("load bench: `wrk` is not installed (Debian: apt-get install wrk); skipped");
        return if std::env::var("CI").as_deref() == Ok("true") {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        };
    }
    let binaries = Path::new(env!("CARGO_BIN_EXE_load_server"))
        .parent()
        .expect("a binary lives in a directory");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/load_bench.sh");
    let seconds = std::env::var("LOAD_SECONDS").unwrap_or_else(|_| "5".to_owned());
    match Command::new("bash")
        .arg(script)
        .arg(seconds)
        .env("LOAD_BIN_DIR", binaries)
        .status()
    {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(status) => {
            eprintln!("load bench: scripts/load_bench.sh failed ({status})");
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("load bench: could not run bash: {error}");
            ExitCode::FAILURE
        }
    }
}

//! Running a project script (`scripts/*.sh`) from a test: the real clients,
//! servers and load balancers the scripts install and start.

use std::path::Path;
use std::process::Command;
use std::sync::{Mutex, PoisonError};

/// The exit status a script uses for "a prerequisite is missing and can't be
/// installed here" (no root, say), after printing one line saying what.
const MISSING: i32 = 3;

/// Whether this is CI, where nothing is skipped.
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| !value.is_empty() && value != "false" && value != "0")
}

/// A missing prerequisite: fails the test in CI, else says so once and skips.
fn missing(what: &str, why: &str) {
    assert!(!in_ci(), "CI is set but {why}: {what} can't run");
    println!("skipped: {why}, so {what} can't run");
}

/// One script at a time: several install into the same folders under `target/`
/// (the Python client's virtual environment, Node 22 and the npm clients), and the
/// test binary runs its tests side by side.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs `scripts/<script>` with bash and `env`, once the programs in `needs` are
/// installed; returns what it printed on stdout, or `None` when a prerequisite is
/// missing off CI (said in one line). In CI a missing prerequisite fails the test,
/// as does the script failing. `what` names the checks in messages.
pub fn run_script(
    script: &str,
    needs: &[&str],
    env: &[(&str, &str)],
    what: &str,
) -> Option<String> {
    let absent: Vec<&str> = needs
        .iter()
        .copied()
        .filter(|program| Command::new(program).arg("--version").output().is_err())
        .collect();
    if !absent.is_empty() {
        missing(what, &format!("{absent:?} not installed"));
        return None;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new("bash")
        .arg(root.join("scripts").join(script))
        .envs(env.iter().copied())
        .output()
        .expect("bash runs the script");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    if output.status.code() == Some(MISSING) {
        let why = stderr.lines().last().unwrap_or("a prerequisite is missing");
        missing(what, why);
        return None;
    }
    assert!(output.status.success(), "{what} failed");
    Some(stdout)
}

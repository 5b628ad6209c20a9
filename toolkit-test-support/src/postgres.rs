//! One throwaway `PostgreSQL` cluster per test binary, started by
//! `scripts/postgres.sh` (which installs Debian's `postgresql` where it is missing
//! and stops the cluster when this process exits). Under `CI=true` a missing
//! `PostgreSQL` fails the test; elsewhere it is said once and the test does nothing.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A running cluster.
pub struct Cluster {
    /// Its directory (data, log, socket).
    pub dir: String,
    /// `postgres://postgres@127.0.0.1:<port>/postgres`.
    pub url: String,
}

/// The repository's `scripts/` folder, found upwards from this crate.
#[must_use]
pub fn scripts() -> PathBuf {
    let mut dir = Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf();
    loop {
        if dir.join("scripts/postgres.sh").is_file() {
            return dir.join("scripts");
        }
        assert!(dir.pop(), "scripts/postgres.sh not found above the crate");
    }
}

/// The cluster, started on first use; `None` (said once) on a machine without
/// `PostgreSQL` and without root, outside CI.
///
/// # Panics
/// When `scripts/postgres.sh` fails, or finds no `PostgreSQL` under `CI=true`.
#[must_use]
pub fn cluster() -> Option<&'static Cluster> {
    static CLUSTER: OnceLock<Option<Cluster>> = OnceLock::new();
    CLUSTER
        .get_or_init(|| {
            let output = Command::new(scripts().join("postgres.sh"))
                .arg("start")
                .arg(std::process::id().to_string())
                .output()
                .expect("runs scripts/postgres.sh");
            let stderr = String::from_utf8_lossy(&output.stderr);
            if output.status.code() == Some(3) {
                assert!(
                    std::env::var("CI").as_deref() != Ok("true"),
                    "PostgreSQL is required in CI: {stderr}"
                );
                eprintln!("skipping the PostgreSQL tests: {stderr}");
                return None;
            }
            assert!(
                output.status.success(),
                "scripts/postgres.sh start failed: {stderr}"
            );
            let stdout = String::from_utf8_lossy(&output.stdout);
            let field = |name: &str| {
                stdout
                    .lines()
                    .find_map(|line| line.strip_prefix(name))
                    .unwrap_or_else(|| panic!("no {name} in {stdout}"))
                    .to_owned()
            };
            Some(Cluster {
                dir: field("DIR="),
                url: field("URL="),
            })
        })
        .as_ref()
}

impl Cluster {
    /// A new, empty database; its URL.
    #[must_use]
    pub fn database(&self) -> String {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!("test_{}", NEXT.fetch_add(1, Ordering::SeqCst));
        self.psql(&format!("CREATE DATABASE {name}"));
        format!("{}/{name}", self.url.trim_end_matches("/postgres"))
    }

    /// Runs `sql` with `psql` on the `postgres` database; its output.
    // Run for its effect as often as for its output: callers may drop it.
    #[allow(clippy::must_use_candidate)]
    pub fn psql(&self, sql: &str) -> String {
        self.psql_on(&self.url, sql)
    }

    /// Runs `sql` with `psql` on the database at `url`; its output.
    ///
    /// # Panics
    /// When `psql` fails (the test's SQL is wrong).
    // Run for its effect as often as for its output: callers may drop it.
    #[allow(clippy::must_use_candidate)]
    pub fn psql_on(&self, url: &str, sql: &str) -> String {
        let bin = std::fs::read_to_string(Path::new(&self.dir).join("bin")).expect("bin");
        let output = Command::new(Path::new(bin.trim()).join("psql"))
            .args([url, "-v", "ON_ERROR_STOP=1", "-tAc", sql])
            .output()
            .expect("runs psql");
        assert!(
            output.status.success(),
            "psql {sql}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    /// Stops the server, waits `pause`, and starts it again (same port, same data).
    pub fn restart(&self, pause: std::time::Duration) {
        let status = Command::new(scripts().join("postgres.sh"))
            .args(["restart", &self.dir, &pause.as_secs_f64().to_string()])
            .status()
            .expect("runs scripts/postgres.sh");
        assert!(status.success(), "restart failed");
    }
}

impl Cluster {
    /// Freezes the server (the postmaster and every backend, `SIGSTOP`) for
    /// `pause`, then lets it go on (`SIGCONT`): a database that stalls without
    /// closing a connection.
    pub fn freeze(&self, pause: std::time::Duration) {
        let pid_file = Path::new(&self.dir).join("data/postmaster.pid");
        let postmaster = std::fs::read_to_string(pid_file).expect("postmaster.pid");
        let postmaster = postmaster.lines().next().expect("a pid").trim().to_owned();
        let children = Command::new("pgrep")
            .args(["-P", &postmaster])
            .output()
            .expect("runs pgrep");
        let mut pids: Vec<String> = String::from_utf8_lossy(&children.stdout)
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        pids.push(postmaster);
        let signal = |name: &str| {
            let status = Command::new("kill")
                .arg(format!("-{name}"))
                .args(&pids)
                .status()
                .expect("runs kill");
            assert!(status.success(), "kill -{name} {pids:?}");
        };
        signal("STOP");
        std::thread::sleep(pause);
        signal("CONT");
    }
}

/// A runtime with two worker threads and the timer, as a replica has.
///
/// # Panics
/// When the runtime cannot be built.
#[must_use]
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// Runs `test` with the URL of a new, empty database of the cluster, on a
/// current-thread runtime with the timer (one test, one database): the shape of
/// every store contract suite's `PostgreSQL` run. Does nothing without a cluster
/// (see [`cluster`]).
///
/// # Panics
/// As [`cluster`], and when the runtime cannot be built.
pub fn on_new_database<F: Future>(test: impl FnOnce(String) -> F) {
    let Some(cluster) = cluster() else {
        return;
    };
    let url = cluster.database();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(test(url));
}

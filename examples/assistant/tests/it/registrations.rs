//! CI blocks a deployment whose code and database disagree (USE-CASES A): the
//! registry is checked both ways against the deployed `tool_registrations` table
//! in `PostgreSQL` (name, approval tier, group), seeded here from
//! `fixtures/tool_registrations.sql` into a throwaway cluster that
//! `scripts/postgres.sh` starts (installing Debian's `PostgreSQL` where it is
//! missing). In CI a missing `PostgreSQL` fails the test; elsewhere it says so once.

// The assistant's tools register themselves; naming the crate keeps them linked.
#[allow(unused_extern_crates)]
extern crate example_assistant;

use std::path::{Path, PathBuf};
use std::process::Command;

use toolkit::registry;

/// A throwaway cluster, stopped when dropped.
struct Cluster {
    dir: String,
    url: String,
    psql: PathBuf,
}

impl Cluster {
    fn start() -> Option<Cluster> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let output = Command::new("bash")
            .arg(root.join("scripts/postgres.sh"))
            .arg("start")
            .arg(std::process::id().to_string())
            .output()
            .expect("bash runs scripts/postgres.sh");
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.code() == Some(3) {
            let ci = std::env::var("CI").is_ok_and(|value| !value.is_empty() && value != "false");
            assert!(!ci, "CI is set but PostgreSQL can't be started: {stderr}");
            println!("skipped: {}", stderr.trim());
            return None;
        }
        assert!(
            output.status.success(),
            "scripts/postgres.sh failed: {stderr}"
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        let field = |name: &str| {
            stdout
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .unwrap_or_else(|| panic!("postgres.sh printed no {name}: {stdout}"))
                .to_owned()
        };
        let dir = field("DIR=");
        let bin = std::fs::read_to_string(Path::new(&dir).join("bin")).expect("the cluster's bin");
        Some(Cluster {
            url: field("URL="),
            psql: Path::new(bin.trim()).join("psql"),
            dir,
        })
    }

    /// Runs `sql` (or the file `-f PATH`), returning rows as `a|b|c` lines.
    fn psql(&self, arguments: &[&str]) -> String {
        let output = Command::new(&self.psql)
            .args([
                "-X",
                "-A",
                "-t",
                "-q",
                "-v",
                "ON_ERROR_STOP=1",
                "-d",
                &self.url,
            ])
            .args(arguments)
            .output()
            .expect("psql runs");
        assert!(
            output.status.success(),
            "psql {arguments:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// The registrations table, as `(name, tier, group)` rows.
    fn registrations(&self) -> Vec<(String, String, String)> {
        self.psql(&[
            "-c",
            "SELECT name, tier, tool_group FROM tool_registrations ORDER BY name",
        ])
        .lines()
        .map(|line| {
            let mut fields = line.split('|').map(str::to_owned);
            let mut next = || fields.next().unwrap_or_default();
            (next(), next(), next())
        })
        .collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let _ = Command::new("bash")
            .arg(root.join("scripts/postgres.sh"))
            .args(["stop", &self.dir])
            .output();
    }
}

/// Every way the registry and the table disagree, or `Ok` when they agree.
fn disagreements(rows: &[(String, String, String)]) -> Result<(), String> {
    let fixture = rows
        .iter()
        .map(|(name, _, _)| name.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    // Names both ways: the project's own check, whose message lists the drift.
    let names = std::panic::catch_unwind(|| {
        toolkit::testing::assert_tools_match(registry(), &fixture);
    })
    .map_err(|panic| {
        panic
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_else(|| "the names differ".to_owned())
    });
    let mut problems: Vec<String> = names.err().into_iter().collect();
    for (name, tier, group) in rows {
        let Some(tool) = registry().get(name).filter(|tool| tool.name == name) else {
            continue;
        };
        let tool = tool.tool();
        if tool.tier.as_str() != tier {
            problems.push(format!(
                "`{name}` is `{}` in code, `{tier}` in tool_registrations",
                tool.tier
            ));
        }
        if tool.group != Some(group.as_str()) {
            problems.push(format!(
                "`{name}` is in group `{}` in code, `{group}` in tool_registrations",
                tool.group.unwrap_or("none")
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

#[test]
fn the_registry_matches_the_deployed_tool_registrations_both_ways() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let seed = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tool_registrations.sql");
    cluster.psql(&["-f", &seed.display().to_string()]);
    let rows = cluster.registrations();
    assert_eq!(rows.len(), 23);
    assert_eq!(disagreements(&rows), Ok(()));

    // A deployment whose database drifted is blocked, with every difference named:
    // a ghost row, a tool with no row, a tier and a group changed in the database.
    cluster.psql(&[
        "-c",
        "INSERT INTO tool_registrations VALUES ('email_digest', 'auto', 'gmail');
         DELETE FROM tool_registrations WHERE name = 'get_context';
         UPDATE tool_registrations SET tier = 'auto' WHERE name = 'delete_memories';
         UPDATE tool_registrations SET tool_group = 'notes' WHERE name = 'link_memories';",
    ]);
    let drifted = cluster.registrations();
    assert_eq!(
        disagreements(&drifted),
        Err("the tools do not match the fixture:\n\
             - email_digest    (in the fixture, not registered)\n\
             + get_context    (registered, not in the fixture)\n\
             update the fixture if the change is intended, or restore the tools\n\
             `delete_memories` is `approve` in code, `auto` in tool_registrations\n\
             `link_memories` is in group `memories` in code, `notes` in tool_registrations"
            .to_owned())
    );
}

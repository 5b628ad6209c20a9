//! toolkit must not change how its users' `serde_json` behaves: cargo
//! unifies features, so a `preserve_order` turned on by toolkit, or by any of its
//! dependencies, makes every `serde_json::Map` in the user's program an `IndexMap`.
//! These tests ask cargo which features toolkit's own build resolves (no build:
//! `cargo tree` reads the lock file), for the default features and for each
//! optional integration.
//!
//! Why not check `serde_json::Map`'s iteration order at run time? Because this
//! workspace's own test build has `preserve_order` on: `examples/mcp_server` tests
//! the `rig` feature, rig-core turns it on, and `cargo test --workspace` unifies
//! features across every member. Only the resolution for toolkit alone says what a
//! user gets.

use std::process::Command;

/// The `cargo tree` lines saying which of `krate`'s features are on, and who turns
/// them on, in toolkit's normal build with `features`.
fn features_of(krate: &str, features: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let mut command = Command::new(cargo);
    command.args([
        "tree",
        "--offline",
        "--locked",
        "--manifest-path",
        manifest,
        "-p",
        env!("CARGO_PKG_NAME"),
        "-e",
        "features,normal",
        "-i",
        krate,
    ]);
    if !features.is_empty() {
        command.args(["--features", &features.join(",")]);
    }
    let output = command.output().expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("cargo tree writes UTF-8")
}

#[test]
fn the_default_build_leaves_preserve_order_off() {
    let serde_json = features_of("serde_json", &[]);
    // The check would pass vacuously if the tree were empty.
    assert!(
        serde_json.contains("serde_json feature \"std\""),
        "{serde_json}"
    );
    assert!(!serde_json.contains("preserve_order"), "{serde_json}");
    let schemars = features_of("schemars", &[]);
    assert!(
        schemars.contains("schemars feature \"derive\""),
        "{schemars}"
    );
    assert!(!schemars.contains("preserve_order"), "{schemars}");
}

#[test]
fn the_mcp_and_sqlite_integrations_leave_preserve_order_off() {
    let features = ["mcp", "mcp-client", "sqlite", "inbox"];
    assert!(!features_of("serde_json", &features).contains("preserve_order"));
    assert!(!features_of("schemars", &features).contains("preserve_order"));
}

/// rig-core turns `preserve_order` on for everything in a build that uses the
/// `rig` feature (guide, `schemas`); the renderings are the
/// same bytes either way.
#[test]
fn the_rig_integration_turns_preserve_order_on_through_rig_core() {
    let tree = features_of("serde_json", &["rig"]);
    let line = tree
        .lines()
        .position(|line| line.contains("serde_json feature \"preserve_order\""))
        .expect("rig-core turns preserve_order on");
    assert!(
        tree.lines()
            .nth(line + 1)
            .unwrap_or_default()
            .contains("rig-core"),
        "{tree}"
    );
}

//! Compile-time checks of `#[tool]`: every mistake a user can make is rejected with
//! a message pointing at the offending token, and the accepted shapes compile.
//!
//! `tests/ui/*.rs` must fail to compile with exactly the pinned `.stderr`;
//! `tests/ui/pass/*.rs` must compile and run. `tests/ui/config/` holds the cases
//! that need a `[package.metadata.toolkit]` table (see [`crate_config`]).
//! `TRYBUILD=overwrite cargo test -p toolkit-ui-tests --test ui` rewrites
//! every pinned `.stderr`; read the diff before keeping it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::{env, fs};

/// Set for every cargo the tests here start: trybuild writes its own Cargo.toml
/// without this workspace's profiles, so its copy of every dev-dependency and each
/// `pass` case's binary got full debug info: 2.6 GB under `target/tests/trybuild`.
/// Nothing reads it: a case's result is the compiler's text or the exit status.
const NO_DEBUG_INFO: (&str, &str) = ("CARGO_PROFILE_DEV_DEBUG", "false");

#[test]
fn ui() {
    // trybuild starts cargo with this process's environment and offers no other way
    // in. SAFETY: the only other thread here (`crate_config`) reads the environment
    // through `std::process::Command` alone, which takes the same lock as `set_var`.
    unsafe { env::set_var(NO_DEBUG_INFO.0, NO_DEBUG_INFO.1) };
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
    cases.pass("tests/ui/pass/*.rs");
}

/// The crate-level settings in `[package.metadata.toolkit]`.
///
/// trybuild compiles its cases in a crate whose Cargo.toml it writes itself,
/// without any `[package.metadata]`, so these cases get a small workspace of
/// their own: `tests/ui/config/NAME.rs` is the lib of crate `NAME`, `NAME.toml`
/// is appended to its Cargo.toml, `NAME.stderr` pins the compiler's
/// diagnostics for that crate, and the files of `NAME.data/`, if any, are copied
/// into the crate's directory. The workspace lives under the target directory and
/// uses this workspace's `Cargo.lock`, so no network is needed.
#[test]
fn crate_config() {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace_dir = manifest_dir
        .parent()
        .expect("toolkit-ui-tests sits inside the workspace");
    let cases_dir = manifest_dir.join("tests/ui/config");
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("toolkit-config");
    fs::create_dir_all(&root).expect("create the fixture workspace");

    let mut names: Vec<String> = fs::read_dir(&cases_dir)
        .expect("tests/ui/config exists")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "rs"))
        .map(|path| {
            path.file_stem()
                .expect("a file name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no cases in {}", cases_dir.display());

    for name in &names {
        let crate_dir = root.join(name);
        fs::create_dir_all(&crate_dir).expect("create the case's crate");
        let metadata = fs::read_to_string(cases_dir.join(format!("{name}.toml")))
            .expect("each case has a NAME.toml beside NAME.rs");
        // The dependency as a user writes it, keyed by the package's name: its
        // extern name is the library's, `toolkit`, which `#[tool]` must name
        // although Cargo.toml never spells it.
        let manifest = format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [lib]\npath = {lib:?}\n\n[dependencies]\ntoolkit-llm = {{ path = {toolkit:?} }}\n\n{metadata}",
            lib = cases_dir.join(format!("{name}.rs")),
            toolkit = workspace_dir.join("toolkit"),
        );
        fs::write(crate_dir.join("Cargo.toml"), manifest).expect("write the case's Cargo.toml");
        // Files the case reads from its crate's directory (`examples = "x.json"`).
        if let Ok(entries) = fs::read_dir(cases_dir.join(format!("{name}.data"))) {
            for entry in entries {
                let path = entry.expect("readable directory entry").path();
                let file = path.file_name().expect("a file name");
                fs::copy(&path, crate_dir.join(file)).expect("copy the case's data file");
            }
        }
    }
    let members: Vec<String> = names.iter().map(|name| format!("{name:?}")).collect();
    fs::write(
        root.join("Cargo.toml"),
        format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n",
            members.join(", ")
        ),
    )
    .expect("write the fixture workspace's Cargo.toml");
    fs::copy(workspace_dir.join("Cargo.lock"), root.join("Cargo.lock"))
        .expect("copy the workspace's Cargo.lock");

    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(&root)
        .env("CARGO_TARGET_DIR", root.join("target"))
        // The same whether or not `ui` has set it yet, so a rerun checks nothing again.
        .env(NO_DEBUG_INFO.0, NO_DEBUG_INFO.1)
        .args([
            "check",
            "--workspace",
            "--keep-going",
            "--offline",
            "--quiet",
            "--message-format=json",
        ])
        .output()
        .expect("run cargo");

    let prefix = format!("{}/", manifest_dir.display());
    let mut actual: BTreeMap<&str, String> = names
        .iter()
        .map(|name| (name.as_str(), String::new()))
        .collect();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if message["reason"] != "compiler-message" {
            continue;
        }
        let Some(text) = actual.get_mut(message["target"]["name"].as_str().unwrap_or_default())
        else {
            continue;
        };
        let summary = message["message"]["message"].as_str().unwrap_or_default();
        if summary.starts_with("aborting due to") || summary.ends_with("emitted") {
            continue;
        }
        let rendered = message["message"]["rendered"].as_str().unwrap_or_default();
        text.push_str(&rendered.replace(&prefix, ""));
    }

    let overwrite = env::var_os("TRYBUILD").is_some_and(|value| value == "overwrite");
    let mut failures = String::new();
    for (name, text) in &actual {
        let path = cases_dir.join(format!("{name}.stderr"));
        let expected = fs::read_to_string(&path).unwrap_or_default();
        if overwrite {
            fs::write(&path, text).expect("write the .stderr");
        } else if *text != expected {
            let _ = write!(
                failures,
                "\n--- tests/ui/config/{name}.stderr (expected)\n{expected}\n+++ actual\n{text}\n"
            );
        }
    }
    assert!(
        failures.is_empty(),
        "crate config cases differ (rerun with TRYBUILD=overwrite to accept):{failures}\ncargo's stderr:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

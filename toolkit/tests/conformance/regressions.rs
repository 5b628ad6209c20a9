//! The `schema` fuzz target's findings, replayed on every `cargo test`.
//!
//! Each file in `conformance/regressions/` is one schema the fuzzer found
//! (`fuzz/`, RELIABILITY.md) with what must come of it: the exact canonical
//! schema, and the exact error of each dialect that refuses it. Every other
//! dialect must render it and pass the conformance checker. With
//! `TOOLKIT_BLESS=1` the expectations are rewritten from what the code does
//! now (review the diff).

use std::cell::RefCell;
use std::path::Path;
use std::sync::LazyLock;

use serde_json::{Map, Value};
use toolkit::{Dialect, Registry, Tool};

use super::checker::{check, check_preserves};

thread_local! {
    /// The schema of the case being replayed on this thread.
    static CURRENT: RefCell<Value> = const { RefCell::new(Value::Null) };
}

fn current_schema() -> schemars::Schema {
    CURRENT
        .with(|current| schemars::Schema::try_from(current.borrow().clone()))
        .expect("a case's schema is an object or a boolean")
}

/// A real tool definition with its argument schema replaced (struct update keeps
/// it valid when `Tool` gains fields).
static REPLAYED: LazyLock<Tool> = LazyLock::new(|| Tool {
    name: "set_fuzzed",
    description: "Set a fuzzed value.",
    aliases: &[],
    schema: current_schema,
    output_schema: || None,
    ..*super::corpus::set_flag::definition()
});

/// What one case produces: the canonical schema, and each refusal's message by
/// dialect name; the problems the checker finds in the renderings.
fn replay(schema: &Value) -> (Value, Map<String, Value>, Vec<String>) {
    CURRENT.with(|current| *current.borrow_mut() = schema.clone());
    let registry = Registry::new([&*REPLAYED]).expect("one tool");
    let tool = registry.iter().next().expect("the tool");
    let mut refused = Map::new();
    let mut problems = Vec::new();
    for dialect in Dialect::ALL {
        match tool.render(dialect) {
            Ok(rendered) => {
                let mut violations = check(dialect, &rendered);
                violations.extend(check_preserves(dialect, &super::declared(tool), &rendered));
                problems.extend(
                    violations.into_iter().map(|violation| {
                        format!("{dialect:?}: {violation}\n  rendered: {rendered}")
                    }),
                );
            }
            Err(error) => {
                refused.insert(dialect.name().to_owned(), Value::String(error.to_string()));
            }
        }
    }
    (tool.schema().clone(), refused, problems)
}

#[test]
fn every_schema_the_fuzzer_found_renders_conforming_or_is_refused_as_recorded() {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/regressions");
    let bless = std::env::var_os("TOOLKIT_BLESS").is_some();
    let mut paths: Vec<_> = std::fs::read_dir(&directory)
        .expect("the regressions directory")
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "json")
        })
        .collect();
    paths.sort();
    assert!(paths.len() >= 26, "the fuzzer's cases are missing");
    let mut failures = Vec::new();
    for path in paths {
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&path).expect("a readable case");
        let mut case: Map<String, Value> =
            serde_json::from_str(&text).expect("a case is a JSON object");
        let (canonical, refused, problems) = replay(&case["schema"]);
        for problem in problems {
            failures.push(format!("{name}: {problem}"));
        }
        if bless {
            case.insert("canonical".to_owned(), canonical);
            case.insert("refused".to_owned(), Value::Object(refused));
            let text = serde_json::to_string_pretty(&case).expect("JSON") + "\n";
            std::fs::write(&path, text).expect("a writable case");
            continue;
        }
        if case["canonical"] != canonical {
            failures.push(format!(
                "{name}: canonical schema\n  expected {}\n  found    {canonical}",
                case["canonical"]
            ));
        }
        if case["refused"] != Value::Object(refused.clone()) {
            failures.push(format!(
                "{name}: refusals\n  expected {}\n  found    {}",
                case["refused"],
                Value::Object(refused)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

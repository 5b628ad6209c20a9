//! Fuzz target `schema`: the schema cleaner and every dialect renderer on
//! arbitrary schemas.
//!
//! The first byte picks the input's form: when it is a multiple of 8, the rest is
//! read as JSON text (and skipped if it isn't a JSON object or boolean);
//! otherwise [`crate::generate`] builds a schema from the bytes. Bit 3 also gives
//! the tool a generated result schema (MCP's `outputSchema`).
//!
//! For each input: cleaning twice gives the same canonical schema; two registries
//! built separately render every dialect to the same text (and the first renders
//! it again identically); for a schema `#[tool]` could produce
//! ([`crate::wellformed`]), every rendering a dialect accepts passes the
//! conformance checker (`toolkit/tests/conformance/checker.rs`, shared with the
//! conformance test), and every refusal names this tool, this dialect and a path.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{LazyLock, Mutex, PoisonError};

use schemars::Schema;
use serde_json::Value;
use toolkit::{Dialect, Registry, Tool, registry::RegisteredTool};

use crate::checker::{Declared, Rule, Violation, check, check_preserves};
use crate::generate::{Bytes, root_schema, schema};

thread_local! {
    /// The argument and result schemas of the input being run.
    static CURRENT: RefCell<(Value, Option<Value>)> = const { RefCell::new((Value::Null, None)) };
}

fn current_schema() -> Schema {
    CURRENT
        .with(|current| Schema::try_from(current.borrow().0.clone()))
        .unwrap_or_default()
}

fn current_output_schema() -> Option<Schema> {
    CURRENT
        .with(|current| current.borrow().1.clone())
        .and_then(|value| Schema::try_from(value).ok())
}

/// A tool whose schemas are the current input's: a real definition with its two
/// schema builders replaced (struct update keeps it valid when `Tool` gains
/// fields).
static FUZZED: LazyLock<Tool> = LazyLock::new(|| Tool {
    name: "set_fuzzed",
    description: "Set a fuzzed value.",
    aliases: &[],
    schema: current_schema,
    output_schema: current_output_schema,
    ..*crate::tricky::set_values::definition()
});

/// Violations the target tolerates, each a finding reported to the branch that
/// owns the code, with its reproducer under `fuzz/regressions/schema/`
/// (RELIABILITY.md lists them). Empty means every violation stops the run.
const KNOWN: &[fn(Dialect, &Violation) -> bool] = &[];

/// Survey mode: with `TOOLKIT_FUZZ_SURVEY=<dir>`, a checker violation does not
/// stop the run; the first input breaking each (dialect, rule) pair is written
/// to `<dir>/<dialect>-<rule>` with a `.txt` beside it saying what broke. Panics,
/// non-determinism and misplaced errors still stop it. One run then maps every
/// kind of violation instead of stopping at the first.
fn survey(data: &[u8], dialect: Dialect, violation: &Violation, report: &str) -> bool {
    static SEEN: Mutex<BTreeSet<(Dialect, Rule)>> = Mutex::new(BTreeSet::new());
    let Some(directory) = std::env::var_os("TOOLKIT_FUZZ_SURVEY") else {
        return false;
    };
    let mut seen = SEEN.lock().unwrap_or_else(PoisonError::into_inner);
    if seen.insert((dialect, violation.rule)) {
        let path = Path::new(&directory).join(format!("{dialect}-{:?}", violation.rule));
        // Best effort: a survey that cannot write still goes on fuzzing.
        let _ = std::fs::write(&path, data);
        let _ = std::fs::write(path.with_extension("txt"), report);
    }
    true
}

/// Runs one fuzz input.
pub fn run(data: &[u8]) {
    let mut bytes = Bytes::new(data);
    let mode = bytes.byte();
    let input = if mode.is_multiple_of(8) {
        match serde_json::from_slice::<Value>(data.get(1..).unwrap_or_default()) {
            Ok(value) => value,
            Err(_) => return,
        }
    } else {
        root_schema(&mut bytes)
    };
    let output = (mode & 8 != 0).then(|| schema(&mut bytes, 1));
    let Ok(raw) = Schema::try_from(input.clone()) else {
        return;
    };
    check_cleaner(&raw, output.as_ref());
    CURRENT.with(|current| *current.borrow_mut() = (input.clone(), output.clone()));
    let first = Registry::new([&*FUZZED]).expect("one tool");
    let second = Registry::new([&*FUZZED]).expect("one tool");
    let (Some(tool), Some(other)) = (first.iter().next(), second.iter().next()) else {
        panic!("a registry of one tool is empty");
    };
    let judged = crate::wellformed::is_well_formed(&input);
    // A result schema schemars could not write (`"$defs": "null"`) is not judged
    // either; the arguments still are.
    let output_judged = output
        .as_ref()
        .is_none_or(crate::wellformed::is_well_formed_output);
    let mut problems = Vec::new();
    for dialect in Dialect::ALL {
        let text = |tool: &RegisteredTool| match tool.render(dialect) {
            Ok(value) => value.to_string(),
            Err(error) => format!("error: {error}"),
        };
        let (one, two, again) = (text(tool), text(other), text(tool));
        if one != two || one != again {
            problems.push(format!(
                "{dialect:?}: not deterministic:\n{one}\n{two}\n{again}"
            ));
        }
        match tool.render(dialect) {
            Ok(rendered) if judged => {
                let mut violations = check(dialect, &rendered);
                violations.extend(check_preserves(dialect, &declared(tool), &rendered));
                violations.retain(|violation| {
                    output_judged || !violation.path.starts_with("/outputSchema")
                });
                for violation in violations {
                    let report = format!(
                        "{dialect:?}: {violation}\n  input: {input}\n  canonical: {}\n  rendered: {rendered}",
                        tool.schema()
                    );
                    if !KNOWN.iter().any(|known| known(dialect, &violation))
                        && !survey(data, dialect, &violation, &report)
                    {
                        problems.push(report);
                    }
                }
            }
            Ok(_) => {}
            Err(error) => {
                if error.tool != tool.name || error.dialect != dialect || error.path.is_empty() {
                    problems.push(format!(
                        "{dialect:?}: the error names the wrong place: {error:?}"
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "input schema: {input}\noutput schema: {output:?}\ncanonical: {}\n{}",
        tool.schema(),
        problems.join("\n")
    );
}

/// Cleaning the same schema twice gives the same value.
fn check_cleaner(raw: &Schema, output: Option<&Value>) {
    let one = toolkit::schema::clean(raw.clone());
    let two = toolkit::schema::clean(raw.clone());
    assert_eq!(
        one.to_string(),
        two.to_string(),
        "clean is not deterministic"
    );
    if let Some(output) = output.and_then(|value| Schema::try_from(value.clone()).ok()) {
        let one = toolkit::schema::clean_output(output.clone());
        let two = toolkit::schema::clean_output(output);
        assert_eq!(
            one.to_string(),
            two.to_string(),
            "clean_output is not deterministic"
        );
    }
}

/// What the checker compares a rendering with, as `toolkit/tests/conformance.rs`
/// builds it.
fn declared(tool: &RegisteredTool) -> Declared<'_> {
    let object_output = (tool.output_schema)()
        .is_some_and(|schema| schema.to_value().get("type") == Some(&Value::from("object")));
    Declared {
        name: tool.name,
        description: tool.description,
        title: tool.title,
        verb: tool.verb(),
        tier: tool.tier.as_str(),
        schema: tool.schema(),
        object_output,
    }
}

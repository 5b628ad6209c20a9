//! The model's argument text into the typed argument struct.
//!
//! The fast path is one `serde_json::from_str`. Only when that fails is the text
//! looked at again (the slow path): it is parsed into a `Value`, `null`s for
//! declared optional properties are dropped (strict dialects make the model send
//! them), and the arguments are tried again; if they still fail, every problem the
//! schema finds is reported, plus serde's own if the schema missed it.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::limits::{self, Limits};
use super::messages::{self, Problem};
use super::validate::Plan;
use crate::ToolError;

/// Parses the model's JSON text straight into the argument struct `T`.
pub fn parse_arguments<T: DeserializeOwned + JsonSchema + 'static>(
    arguments: &str,
) -> Result<T, ToolError> {
    match serde_json::from_str(arguments) {
        // serde's derived structs also accept a positional array; the model must
        // name its arguments.
        Ok(parsed) if first_byte(arguments) == Some(b'{') => Ok(parsed),
        Ok(_) => Err(not_an_object()),
        Err(_) => parse_failed(
            arguments,
            plan_for(TypeId::of::<T>(), crate::schema::raw_schema_for::<T>),
        ),
    }
}

fn first_byte(text: &str) -> Option<u8> {
    text.bytes().find(|byte| !byte.is_ascii_whitespace())
}

pub(crate) fn not_an_object() -> ToolError {
    Problem::new(
        ".",
        "the arguments must be a JSON object naming each parameter, like {\"id\": 7}",
    )
    .into_error()
}

/// The plan of an argument type, built once per type on its first slow path (the
/// fast path never needs it). Leaked: one per tool, for the life of the process.
/// Not generic: every tool's crate compiles it once, not once per tool.
fn plan_for(type_id: TypeId, schema: fn() -> schemars::Schema) -> &'static Plan {
    static PLANS: Mutex<Option<HashMap<TypeId, &'static Plan>>> = Mutex::new(None);
    let mut plans = PLANS.lock().unwrap_or_else(PoisonError::into_inner);
    plans
        .get_or_insert_with(HashMap::new)
        .entry(type_id)
        .or_insert_with(|| {
            let raw = schema();
            let raw_value = raw.as_value().clone();
            Box::leak(Box::new(Plan::new(&raw_value, crate::schema::clean(raw))))
        })
}

/// The one generic piece of the slow path: `T` parsed from a text with path
/// tracking, kept by the caller. Everything around it is compiled once, not once
/// per tool (issue 9, "Build time").
type Tracked<'p> = dyn FnMut(&str) -> Result<(), Failure> + 'p;

/// The slow path, after the fast parse failed.
#[cold]
fn parse_failed<T: DeserializeOwned>(arguments: &str, plan: &Plan) -> Result<T, ToolError> {
    let mut parsed = None;
    slow_path(arguments, plan, &mut |text| {
        tracked::<T>(text).map(|value| parsed = Some(value))
    })?;
    parsed.ok_or_else(|| Problem::new(".", "the arguments are not accepted").into_error())
}

fn slow_path(arguments: &str, plan: &Plan, parse: &mut Tracked<'_>) -> Result<(), ToolError> {
    let trimmed = arguments.trim();
    // Providers send "" (or `null`) for tools without parameters.
    if trimmed.is_empty() || trimmed == "null" {
        return from_value(&Value::Object(serde_json::Map::new()), plan, parse);
    }
    // `Tool::call` has no application limits at hand; the defaults keep the
    // slow path (a `Value`, walked recursively) off the stack's edge.
    limits::check_text(
        arguments,
        &Limits {
            max_argument_bytes: usize::MAX,
            ..Limits::DEFAULT
        },
    )?;
    let value = parse_value(arguments)?;
    if !value.is_object() {
        return Err(not_an_object());
    }
    let mut value = value;
    let stripped = plan.strip_optional_nulls(&mut value);
    match from_value(&value, plan, parse) {
        // Valid once the permitted nulls are gone: the first failure was theirs.
        Ok(()) if stripped => Ok(()),
        // The text failed where its `Value` passes: something only the text
        // shows (a duplicate key). Report serde's error on the text.
        Ok(()) => Err(text_error(arguments, parse)),
        Err(error) => Err(error),
    }
}

/// Parses text that is known not to be of the fast path into a `Value`: syntax
/// errors are `malformed_json`; a number too large or a lone surrogate escape is
/// valid JSON grammar, named with its path.
pub(crate) fn parse_value(arguments: &str) -> Result<Value, ToolError> {
    // The schema check of a constrained tool comes here with valid text: no path
    // tracking unless it fails.
    if let Ok(value) = serde_json::from_str(arguments) {
        return Ok(value);
    }
    let mut deserializer = serde_json::Deserializer::from_str(arguments);
    let parsed = serde_path_to_error::deserialize::<_, Value>(&mut deserializer);
    let parsed = match parsed {
        Ok(value) => match deserializer.end() {
            Ok(()) => Ok(value),
            Err(error) => {
                return Err(ToolError::MalformedJson {
                    message: strip_position(&error),
                    line: error.line(),
                    column: error.column(),
                });
            }
        },
        Err(error) => Err(error),
    };
    match parsed {
        Ok(value) => Ok(value),
        Err(error) => {
            let path = messages::serde_path(error.path());
            let inner = error.into_inner();
            let message = strip_position(&inner);
            let lone_surrogate =
                message.contains("hex escape") && arguments.to_ascii_lowercase().contains("\\ud");
            if message.contains("surrogate")
                || lone_surrogate
                || message.contains("invalid unicode code point")
                || message.starts_with("number out of range")
            {
                let message = if lone_surrogate {
                    "lone surrogate"
                } else {
                    message.as_str()
                };
                return Err(messages::from_serde(&path, message, None).into_error());
            }
            Err(ToolError::MalformedJson {
                message,
                line: inner.line(),
                column: inner.column(),
            })
        }
    }
}

/// The typed arguments from a checked `Value` (kept by `parse`), or every problem
/// in it.
///
/// The value is deserialized from its compact text, through the same
/// path-tracking deserializer as [`text_error`]: one instantiation of `T`'s
/// `Deserialize` for the whole slow path (each costs build time in every crate of
/// tools, issue 9 "Build time"), and serde's words are the same on text as on a
/// `Value` once the position is cut.
fn from_value(value: &Value, plan: &Plan, parse: &mut Tracked<'_>) -> Result<(), ToolError> {
    let text = value.to_string();
    let typed = parse(&text);
    // The common slow path (nulls a strict dialect sent, now gone) asks only
    // whether the value is valid; the problems are collected when it is not.
    if typed.is_ok() && plan.is_valid(value) {
        return Ok(());
    }
    let mut problems = plan.problems(value);
    match typed {
        Ok(()) if problems.is_empty() => Ok(()),
        Ok(()) => Err(messages::into_error(problems)),
        Err(Failure::Data {
            path,
            segments,
            message,
        }) => {
            let at = value_at(value, &segments);
            let problem = messages::from_serde(&path, &message, at);
            // The schema's problems come first; serde's is added when the schema
            // said nothing about that place (a range the schema leaves out, a
            // type's own rule).
            if !problems.iter().any(|known| {
                nested(&known.path, &problem.path) || nested(&problem.path, &known.path)
            }) {
                problems.push(problem);
            }
            Err(messages::into_error(problems))
        }
        // The text of a `Value` always ends where it should.
        Err(Failure::Trailing(error)) => Err(error),
    }
}

/// Why [`tracked`] failed.
enum Failure {
    /// serde's error, with its path (as shown, and as steps into a `Value`).
    Data {
        path: String,
        segments: Vec<Segment>,
        message: String,
    },
    /// The value parsed, and the text goes on after it.
    Trailing(ToolError),
}

/// One step of a path, owned (non-generic code reads it after the parse).
enum Segment {
    Index(usize),
    Key(String),
    Other,
}

/// `T` from `text` with serde's path tracking: the one generic slow-path parse.
fn tracked<T: DeserializeOwned>(text: &str) -> Result<T, Failure> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    match serde_path_to_error::deserialize::<_, T>(&mut deserializer) {
        Ok(parsed) => match deserializer.end() {
            Ok(()) => Ok(parsed),
            Err(error) => Err(Failure::Trailing(ToolError::MalformedJson {
                message: strip_position(&error),
                line: error.line(),
                column: error.column(),
            })),
        },
        Err(error) => Err(data_failure(&error)),
    }
}

/// The non-generic half of [`tracked`]'s error.
fn data_failure(error: &serde_path_to_error::Error<serde_json::Error>) -> Failure {
    use serde_path_to_error::Segment as Step;
    Failure::Data {
        path: messages::serde_path(error.path()),
        segments: error
            .path()
            .iter()
            .map(|segment| match segment {
                Step::Seq { index } => Segment::Index(*index),
                Step::Map { key } => Segment::Key(key.clone()),
                Step::Enum { .. } | Step::Unknown => Segment::Other,
            })
            .collect(),
        message: strip_position(error.inner()),
    }
}

/// Whether `inner` is `outer` or a place inside it.
fn nested(outer: &str, inner: &str) -> bool {
    outer == "."
        || inner == outer
        || inner
            .strip_prefix(outer)
            .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
}

/// serde's error on the text itself, with its path.
fn text_error(arguments: &str, parse: &mut Tracked<'_>) -> ToolError {
    match parse(arguments) {
        Err(Failure::Data { path, message, .. }) => {
            messages::from_serde(&path, &message, None).into_error()
        }
        // Only the trailing text can be wrong then.
        Err(Failure::Trailing(error)) => error,
        Ok(()) => Problem::new(".", "the arguments are not accepted").into_error(),
    }
}

/// The value a path points at, if it can be followed.
fn value_at<'v>(mut value: &'v Value, path: &[Segment]) -> Option<&'v Value> {
    for segment in path {
        value = match segment {
            Segment::Index(index) => value.get(*index)?,
            Segment::Key(key) => value.get(key)?,
            Segment::Other => return None,
        };
    }
    Some(value)
}

/// `serde_json` appends " at line L column C" to every message; the position is
/// reported separately (or, for data errors, replaced by the field path).
pub(crate) fn strip_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    text.strip_suffix(&suffix)
        .map_or(text.clone(), str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, schemars::JsonSchema, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Args {
        tasks: Vec<Task>,
    }

    #[derive(Debug, serde::Deserialize, schemars::JsonSchema, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Task {
        title: String,
        due: Option<u32>,
    }

    fn invalid(path: &str, message: &str) -> ToolError {
        ToolError::invalid_arguments(path, message)
    }

    #[test]
    fn names_the_path_of_a_wrong_type() {
        let error = parse_arguments::<Args>(
            r#"{"tasks":[{"title":"a"},{"title":"b"},{"title":"c","due":"soon"}]}"#,
        )
        .unwrap_err();
        assert_eq!(
            error,
            invalid(
                "tasks[2].due",
                "expected a non-negative integer, got the string \"soon\""
            )
        );
    }

    #[test]
    fn reports_every_problem() {
        let error = parse_arguments::<Args>(
            r#"{"tasks":[{"title":1},{"due":-1},{"title":"c","due":"soon","x":1}]}"#,
        )
        .unwrap_err();
        let ToolError::InvalidArguments { problems } = &error else {
            panic!("{error:?}")
        };
        let listed: Vec<(&str, &str)> = problems
            .iter()
            .map(|problem| (problem.path.as_str(), problem.message.as_str()))
            .collect();
        assert_eq!(
            listed,
            [
                ("tasks[0].title", "expected a string, got 1"),
                ("tasks[1].due", "must be at least 0, got -1"),
                ("tasks[1].title", "missing required field"),
                (
                    "tasks[2].due",
                    "expected a non-negative integer, got the string \"soon\""
                ),
                (
                    "tasks[2].x",
                    "unknown field; expected one of `due`, `title`"
                ),
            ]
        );
    }

    #[test]
    fn names_a_missing_field_itself() {
        let error = parse_arguments::<Args>(r#"{"tasks":[{"due":1}]}"#).unwrap_err();
        assert_eq!(error, invalid("tasks[0].title", "missing required field"));
    }

    #[test]
    fn reports_unknown_fields_with_the_expected_ones() {
        let error = parse_arguments::<Args>(r#"{"tasks":[{"title":"a","dew":1}]}"#).unwrap_err();
        assert_eq!(
            error,
            ToolError::UnknownField {
                path: "tasks[0].dew".to_owned(),
                field: "dew".to_owned(),
                expected: vec!["due".to_owned(), "title".to_owned()],
            }
        );
    }

    #[test]
    fn malformed_json_is_always_malformed() {
        let error = parse_arguments::<Args>("{\"tasks\": [}").unwrap_err();
        assert_eq!(
            error,
            ToolError::MalformedJson {
                message: "expected value".to_owned(),
                line: 1,
                column: 12,
            }
        );
        let trailing = parse_arguments::<Args>(r#"{"tasks":[]} x"#).unwrap_err();
        assert_eq!(trailing.kind(), "malformed_json");
        // serde's derive would see the unknown key before the syntax error.
        assert_eq!(
            parse_arguments::<Args>(r#"{"a"}"#).unwrap_err().kind(),
            "malformed_json"
        );
    }

    #[test]
    fn a_struct_given_as_an_array_is_refused_on_the_slow_path() {
        let error = parse_arguments::<Args>(r#"{"tasks":[["a", null]], "x": 1}"#).unwrap_err();
        let ToolError::InvalidArguments { problems } = &error else {
            panic!("{error:?}")
        };
        assert_eq!(problems[0].path, "tasks[0]");
        assert_eq!(
            problems[0].message,
            "expected an object, got an array of 2 items"
        );
    }

    #[test]
    fn null_members_mean_absent_only_where_declared_optional() {
        #[derive(Debug, serde::Deserialize, schemars::JsonSchema, PartialEq)]
        #[serde(deny_unknown_fields)]
        struct Defaults {
            #[serde(default)]
            labels: Vec<String>,
            note: Option<String>,
            title: String,
        }
        assert_eq!(
            parse_arguments::<Defaults>(r#"{"labels": null, "note": null, "title": "x"}"#),
            Ok(Defaults {
                labels: Vec::new(),
                note: None,
                title: "x".to_owned(),
            })
        );
        // A required field stays required.
        assert_eq!(
            parse_arguments::<Defaults>(r#"{"title": null}"#),
            Err(invalid("title", "expected a string, got null"))
        );
        // A permitted null never takes the blame for another error.
        assert_eq!(
            parse_arguments::<Defaults>(r#"{"labels": null, "title": 5}"#),
            Err(invalid("title", "expected a string, got 5"))
        );
    }

    #[test]
    fn arguments_must_be_named_in_an_object() {
        #[derive(Debug, serde::Deserialize, schemars::JsonSchema, PartialEq)]
        struct Pair {
            a: u32,
        }
        let expected = Err(invalid(
            ".",
            "the arguments must be a JSON object naming each parameter, like {\"id\": 7}",
        ));
        assert_eq!(parse_arguments::<Pair>("[1]"), expected);
        assert_eq!(parse_arguments::<Pair>("7"), expected);
        assert_eq!(parse_arguments::<Pair>(" {\"a\": 1}"), Ok(Pair { a: 1 }));
    }

    #[test]
    fn empty_arguments_are_an_empty_object() {
        #[derive(Debug, serde::Deserialize, schemars::JsonSchema, PartialEq)]
        #[serde(deny_unknown_fields)]
        struct NoArgs {}
        assert_eq!(parse_arguments::<NoArgs>("  "), Ok(NoArgs {}));
        assert_eq!(parse_arguments::<NoArgs>("null"), Ok(NoArgs {}));
    }
}

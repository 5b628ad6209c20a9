//! What the code `#[tool]` generates calls into. Not public API: names and
//! signatures here change without notice.

use std::any::Any;
use std::fmt::Display;

use serde::Serialize;
use serde::de::DeserializeOwned;

pub use futures_util;
pub use linkme;
pub use schemars;
pub use serde;
pub use serde_json;

pub use crate::__toolkit_items as items;
pub use crate::binding::{
    Kind as BindingKind, required as required_bindings, rules as binding_rules,
};
pub use crate::diagnostics;
pub use crate::preview::{
    FutureTag, IntoPreview, PreviewIsFuture, PreviewIsValue, ValueTag, default_preview,
};
pub use crate::schema::raw_schema_for;
pub use crate::tool::{CallFuture, Location, Param};
pub use crate::{
    Binding, Context, FromContext, Preview, Response, Scope, Tier, Tool, ToolError, ToolHandle,
};

/// Every `#[tool]` in the binary, whichever crate defined it.
#[linkme::distributed_slice]
pub static TOOLS: [Tool];

/// Parses the model's JSON text straight into the argument struct `T`.
///
/// The fast path is one `serde_json::from_str`. Only when that fails is the text
/// looked at again: a `null` member means "absent" (OpenAI strict mode makes the
/// model send `null` for every optional field), and otherwise `serde_path_to_error`
/// names the offending field.
pub fn parse_arguments<T: DeserializeOwned>(arguments: &str) -> Result<T, ToolError> {
    match serde_json::from_str(arguments) {
        // serde's derived structs also accept a positional array; the model must
        // name its arguments.
        Ok(parsed) if first_byte(arguments) == Some(b'{') => Ok(parsed),
        Ok(_) => Err(not_an_object()),
        Err(error) => parse_failed(arguments, &error),
    }
}

fn first_byte(text: &str) -> Option<u8> {
    text.bytes().find(|byte| !byte.is_ascii_whitespace())
}

fn not_an_object() -> ToolError {
    ToolError::InvalidArguments {
        path: ".".to_owned(),
        message: "the arguments must be a JSON object naming each parameter, like {\"id\": 7}"
            .to_owned(),
    }
}

/// The slow path, after the fast parse failed.
#[cold]
fn parse_failed<T: DeserializeOwned>(
    arguments: &str,
    error: &serde_json::Error,
) -> Result<T, ToolError> {
    let trimmed = arguments.trim();
    // Providers send "" (or `null`) for tools without parameters.
    if trimmed.is_empty() || trimmed == "null" {
        return parse_arguments("{}");
    }
    if error.is_data() || is_valid_json(arguments) {
        if first_byte(arguments) != Some(b'{') {
            return Err(not_an_object());
        }
        if let Some(parsed) = without_null_members(arguments) {
            return Ok(parsed);
        }
        return Err(locate_data_error::<T>(arguments, error));
    }
    Err(ToolError::MalformedJson {
        message: strip_position(error),
        line: error.line(),
        column: error.column(),
    })
}

/// The arguments parsed again with every `null` object member removed, if there
/// were any and that makes them valid.
fn without_null_members<T: DeserializeOwned>(arguments: &str) -> Option<T> {
    fn strip(value: &mut serde_json::Value) -> bool {
        match value {
            serde_json::Value::Object(members) => {
                let before = members.len();
                members.retain(|_, member| !member.is_null());
                let mut changed = members.len() != before;
                for member in members.values_mut() {
                    changed |= strip(member);
                }
                changed
            }
            serde_json::Value::Array(items) => items
                .iter_mut()
                .fold(false, |changed, item| strip(item) | changed),
            _ => false,
        }
    }
    if !arguments.contains("null") {
        return None;
    }
    let mut value: serde_json::Value = serde_json::from_str(arguments).ok()?;
    if !strip(&mut value) {
        return None;
    }
    serde_json::from_value(value).ok()
}

/// `serde_json` reports some type mismatches (a number where an enum is expected)
/// as syntax errors; text that parses as JSON is never malformed.
fn is_valid_json(arguments: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(arguments).is_ok()
}

fn locate_data_error<T: DeserializeOwned>(arguments: &str, first: &serde_json::Error) -> ToolError {
    // A "syntax" error on valid JSON is a value of the wrong kind (see above).
    let wrong_kind = !first.is_data();
    let mut deserializer = serde_json::Deserializer::from_str(arguments);
    let (path, error) = match serde_path_to_error::deserialize::<_, T>(&mut deserializer) {
        Err(error) => (error.path().to_string(), error.into_inner()),
        // Cannot happen for the same input; keep the first error rather than panic.
        Ok(_) => (
            ".".to_owned(),
            serde_json::Error::io(std::io::Error::other(first.to_string())),
        ),
    };
    let message = strip_position(&error);
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let mut names = backticked(rest);
        if !names.is_empty() {
            let field = names.remove(0);
            // Inside an internally tagged enum serde reports the enum's path, not
            // the field's.
            let path = if path.rsplit(['.', ']']).next() == Some(field.as_str()) {
                path
            } else if path == "." {
                field.clone()
            } else {
                format!("{path}.{field}")
            };
            return ToolError::UnknownField {
                path,
                field,
                expected: names,
            };
        }
    }
    if let Some(rest) = message.strip_prefix("missing field ") {
        // serde reports a missing field at its parent object; name the field itself.
        if let Some(field) = backticked(rest).into_iter().next() {
            let path = if path == "." {
                field
            } else {
                format!("{path}.{field}")
            };
            return ToolError::InvalidArguments {
                path,
                message: "missing required field".to_owned(),
            };
        }
    }
    ToolError::InvalidArguments {
        path,
        message: if wrong_kind {
            "a value of the wrong kind; the tool's schema lists what this field accepts".to_owned()
        } else {
            in_json_terms(&message)
        },
    }
}

/// serde names Rust types in its messages ("expected u32"); the model thinks in
/// JSON. Rewrites the expectation after "expected " into JSON terms.
fn in_json_terms(message: &str) -> String {
    const TERMS: &[(&str, &str)] = &[
        ("u8", "a non-negative integer"),
        ("u16", "a non-negative integer"),
        ("u32", "a non-negative integer"),
        ("u64", "a non-negative integer"),
        ("u128", "a non-negative integer"),
        ("usize", "a non-negative integer"),
        ("i8", "an integer"),
        ("i16", "an integer"),
        ("i32", "an integer"),
        ("i64", "an integer"),
        ("i128", "an integer"),
        ("isize", "an integer"),
        ("f32", "a number"),
        ("f64", "a number"),
        ("a sequence", "an array"),
        ("a boolean", "true or false"),
        ("a map", "an object"),
    ];
    let Some((head, expected)) = message.rsplit_once(", expected ") else {
        return message.to_owned();
    };
    let expected = if let Some(&(_, term)) = TERMS.iter().find(|(rust, _)| *rust == expected) {
        term.to_owned()
    } else if let Some(name) = expected.strip_prefix("struct ") {
        // The arguments struct is generated; its name means nothing to the model.
        if name.starts_with("__toolkit_") {
            "an object".to_owned()
        } else {
            format!("an object ({name})")
        }
    } else {
        expected.to_owned()
    };
    format!("{head}, expected {expected}")
}

/// `serde_json` appends " at line L column C" to every message; the position is
/// reported separately (or, for data errors, replaced by the field path).
fn strip_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    text.strip_suffix(&suffix)
        .map_or(text.clone(), str::to_owned)
}

/// The `name`s in "`a`, expected one of `b`, `c`".
fn backticked(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// Takes a `#[ctx]` parameter from the context.
pub fn extract<T: FromContext>(ctx: &Context) -> Result<T, ToolError> {
    T::from_context(ctx)
}

/// A tool's plain return value, serialized.
pub fn output<T: Serialize>(value: &T) -> Response {
    match serde_json::to_value(value) {
        Ok(value) => Response::Result(value),
        Err(error) => Response::Error(ToolError::InvalidOutput {
            message: error.to_string(),
        }),
    }
}

/// A tool's `Result` return value: the value serialized, or the error converted.
pub fn output_result<T: Serialize, E: Display + 'static>(result: Result<T, E>) -> Response {
    match result {
        Ok(value) => output(&value),
        Err(error) => Response::Error(into_tool_error(error)),
    }
}

/// A [`ToolError`] stays what it is; any other error becomes
/// [`ToolError::Failed`] with its `Display` text.
pub(crate) fn into_tool_error<E: Display + 'static>(error: E) -> ToolError {
    let mut slot = Some(error);
    if let Some(tool_error) = (&mut slot as &mut dyn Any)
        .downcast_mut::<Option<ToolError>>()
        .and_then(Option::take)
    {
        return tool_error;
    }
    match slot {
        Some(error) => ToolError::failed(error),
        None => ToolError::failed("unknown error"),
    }
}

/// Probes at compile time whether a tool's output type has a JSON schema, without
/// requiring one: `(&OutputSchema::<T>::new()).output_schema()` picks
/// [`HasOutputSchema`] when `T: JsonSchema` and [`NoOutputSchema`] otherwise
/// (method resolution prefers the by-value receiver before the auto-ref).
pub struct OutputSchema<T: ?Sized>(std::marker::PhantomData<T>);

impl<T: ?Sized> OutputSchema<T> {
    /// A probe for `T`.
    #[must_use]
    pub const fn new() -> Self {
        OutputSchema(std::marker::PhantomData)
    }
}

impl<T: ?Sized> Default for OutputSchema<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The output type has a schema.
pub trait HasOutputSchema {
    /// The schema of the output type.
    fn output_schema(&self) -> Option<schemars::Schema>;
}

impl<T: schemars::JsonSchema + ?Sized> HasOutputSchema for OutputSchema<T> {
    fn output_schema(&self) -> Option<schemars::Schema> {
        Some(crate::schema::raw_output_schema_for::<T>())
    }
}

/// The output type has no schema.
pub trait NoOutputSchema {
    /// Nothing.
    fn output_schema(&self) -> Option<schemars::Schema>;
}

impl<T: ?Sized> NoOutputSchema for &OutputSchema<T> {
    fn output_schema(&self) -> Option<schemars::Schema> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Args {
        tasks: Vec<Task>,
    }

    #[derive(Debug, serde::Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Task {
        title: String,
        due: Option<u32>,
    }

    #[test]
    fn names_the_path_of_a_wrong_type() {
        let error = parse_arguments::<Args>(
            r#"{"tasks":[{"title":"a"},{"title":"b"},{"title":"c","due":"soon"}]}"#,
        )
        .unwrap_err();
        assert_eq!(
            error,
            ToolError::InvalidArguments {
                path: "tasks[2].due".to_owned(),
                message: "invalid type: string \"soon\", expected a non-negative integer"
                    .to_owned(),
            }
        );
    }

    #[test]
    fn names_a_missing_field_itself() {
        let error = parse_arguments::<Args>(r#"{"tasks":[{"due":1}]}"#).unwrap_err();
        assert_eq!(
            error,
            ToolError::InvalidArguments {
                path: "tasks[0].title".to_owned(),
                message: "missing required field".to_owned(),
            }
        );
    }

    #[test]
    fn reports_unknown_fields_with_the_expected_ones() {
        let error = parse_arguments::<Args>(r#"{"tasks":[{"title":"a","dew":1}]}"#).unwrap_err();
        assert_eq!(
            error,
            ToolError::UnknownField {
                path: "tasks[0].dew".to_owned(),
                field: "dew".to_owned(),
                expected: vec!["title".to_owned(), "due".to_owned()],
            }
        );
    }

    #[test]
    fn reports_malformed_json_with_position() {
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
    }

    #[test]
    fn a_valid_json_value_of_the_wrong_kind_is_invalid_not_malformed() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(rename_all = "snake_case")]
        enum Unit {
            Celsius,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct WithEnum {
            unit: Unit,
        }
        let error = parse_arguments::<WithEnum>(r#"{"unit": 5}"#).unwrap_err();
        assert_eq!(
            error,
            ToolError::InvalidArguments {
                path: "unit".to_owned(),
                message:
                    "a value of the wrong kind; the tool's schema lists what this field accepts"
                        .to_owned(),
            }
        );
    }

    #[test]
    fn null_members_mean_absent() {
        #[derive(Debug, serde::Deserialize, PartialEq)]
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
            Err(ToolError::InvalidArguments {
                path: "title".to_owned(),
                message: "invalid type: null, expected a string".to_owned(),
            })
        );
    }

    #[test]
    fn unknown_fields_inside_tagged_enums_name_the_field() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
        #[allow(dead_code)]
        enum Recurrence {
            Hourly {},
            Daily { time: String },
        }
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Schedule {
            recurrence: Recurrence,
        }
        let error =
            parse_arguments::<Schedule>(r#"{"recurrence": {"kind": "hourly", "time": "07:00"}}"#)
                .unwrap_err();
        assert_eq!(
            error,
            ToolError::UnknownField {
                path: "recurrence.time".to_owned(),
                field: "time".to_owned(),
                expected: Vec::new(),
            }
        );
        assert_eq!(
            error.to_string(),
            "unknown field `recurrence.time`; no fields are allowed here"
        );
    }

    #[test]
    fn arguments_must_be_named_in_an_object() {
        #[derive(Debug, serde::Deserialize, PartialEq)]
        struct Pair {
            a: u32,
        }
        let expected = Err(ToolError::InvalidArguments {
            path: ".".to_owned(),
            message: "the arguments must be a JSON object naming each parameter, like {\"id\": 7}"
                .to_owned(),
        });
        assert_eq!(parse_arguments::<Pair>("[1]"), expected);
        assert_eq!(parse_arguments::<Pair>("7"), expected);
        assert_eq!(parse_arguments::<Pair>(" {\"a\": 1}"), Ok(Pair { a: 1 }));
    }

    #[test]
    fn empty_arguments_are_an_empty_object() {
        #[derive(Debug, serde::Deserialize, PartialEq)]
        #[serde(deny_unknown_fields)]
        struct NoArgs {}
        assert_eq!(parse_arguments::<NoArgs>("  "), Ok(NoArgs {}));
        assert_eq!(parse_arguments::<NoArgs>("null"), Ok(NoArgs {}));
    }

    #[test]
    fn tool_errors_pass_through_and_others_become_failed() {
        let own: Result<(), ToolError> = Err(ToolError::missing_context::<u8>());
        assert_eq!(
            output_result(own),
            Response::Error(ToolError::MissingContext {
                type_name: "u8".to_owned()
            })
        );
        let io: Result<(), std::io::Error> = Err(std::io::Error::other("disk full"));
        assert_eq!(
            output_result(io),
            Response::Error(ToolError::Failed {
                message: "disk full".to_owned()
            })
        );
    }
}

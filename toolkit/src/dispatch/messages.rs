//! The words a model reads when its arguments are refused: JSON terms only (never a
//! Rust type or serde's vocabulary), a path to every problem, and never more than a
//! bounded, cleaned prefix of what was sent.
//!
//! Why here: serde's and jsonschema's messages speak Rust and serde (`u8`,
//! "invalid type: string, expected a sequence") and echo what was sent in full;
//! no crate rewrites them for a reader that only knows JSON. Only refused calls
//! pay for this module; the tests in `parse` pin the words the model reads.

use serde_json::Value;

use crate::echo::{ECHO_CHARS, clean, echo};
use crate::error::{Problem as PublicProblem, ToolError};

/// At most this many problems are listed in one error; the rest are counted.
pub(crate) const MAX_PROBLEMS: usize = 20;

/// One thing wrong with the arguments, before it becomes a [`ToolError`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    pub(crate) path: String,
    pub(crate) message: String,
    /// For an unknown field: its name and the fields allowed beside it.
    pub(crate) unknown: Option<(String, Vec<String>)>,
}

impl Problem {
    pub(crate) fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Problem {
            path: path.into(),
            message: message.into(),
            unknown: None,
        }
    }

    pub(crate) fn unknown_field(parent: &str, field: &str, expected: Vec<String>) -> Self {
        let message = if expected.is_empty() {
            "unknown field; no fields are allowed here".to_owned()
        } else {
            format!("unknown field; expected one of `{}`", expected.join("`, `"))
        };
        Problem {
            path: join_key(parent, field),
            message,
            unknown: Some((echo(field), expected)),
        }
    }

    pub(crate) fn into_error(self) -> ToolError {
        into_error(vec![self])
    }
}

/// The error for a list of problems: a lone unknown field keeps its own kind
/// (`unknown_field`), anything else is `invalid_arguments` listing every problem.
pub(crate) fn into_error(mut problems: Vec<Problem>) -> ToolError {
    let mut seen = std::collections::HashSet::new();
    problems.retain(|problem| seen.insert((problem.path.clone(), problem.message.clone())));
    if problems.len() == 1 && problems[0].unknown.is_some() {
        let problem = problems.remove(0);
        let (field, expected) = problem.unknown.unwrap_or_default();
        return ToolError::UnknownField {
            path: problem.path,
            field,
            expected,
        };
    }
    let hidden = problems.len().saturating_sub(MAX_PROBLEMS);
    problems.truncate(MAX_PROBLEMS);
    let mut problems: Vec<PublicProblem> = problems
        .into_iter()
        .map(|problem| PublicProblem {
            path: problem.path,
            message: problem.message,
        })
        .collect();
    if hidden > 0 {
        problems.push(PublicProblem {
            path: ".".to_owned(),
            message: format!("{hidden} more problems not listed; fix these first"),
        });
    }
    ToolError::InvalidArguments { problems }
}

/// `parent.key`, or `parent["odd key"]` for a key that isn't a plain name; never
/// empty (the root is `.`).
pub(crate) fn join_key(parent: &str, key: &str) -> String {
    let key = display_key(key);
    if parent == "." || parent.is_empty() {
        key
    } else if key.starts_with('[') {
        format!("{parent}{key}")
    } else {
        format!("{parent}.{key}")
    }
}

/// `parent[index]`.
pub(crate) fn join_index(parent: &str, index: usize) -> String {
    if parent == "." || parent.is_empty() {
        format!("[{index}]")
    } else {
        format!("{parent}[{index}]")
    }
}

/// A key as it appears in a path: plain names as they are, anything else (the
/// empty key, spaces, dots, control characters) quoted, cleaned and cut.
pub(crate) fn display_key(key: &str) -> String {
    let plain = !key.is_empty()
        && key.len() <= ECHO_CHARS
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '$');
    if plain {
        key.to_owned()
    } else {
        format!("[\"{}\"]", clean(key, ECHO_CHARS))
    }
}

/// What a value is, in a few words, for "got ...": bounded whatever its size.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) => {
            let text = number.to_string();
            if text.len() > ECHO_CHARS {
                format!("a number ({} digits)", text.len())
            } else {
                text
            }
        }
        Value::String(text) => format!("the string \"{}\"", clean(text, ECHO_CHARS)),
        Value::Array(items) => match items.len() {
            0 => "an empty array".to_owned(),
            1 => "an array of 1 item".to_owned(),
            n => format!("an array of {n} items"),
        },
        Value::Object(members) if members.is_empty() => "an empty object".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

/// The range of an integer type serde names (`u8`, `i64`, ...).
pub(crate) fn integer_range(rust: &str) -> Option<(i128, i128)> {
    Some(match rust {
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" | "usize" => (0, u64::MAX.into()),
        "u128" => (0, i128::MAX),
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => (i64::MIN.into(), i64::MAX.into()),
        "i128" => (i128::MIN, i128::MAX),
        _ => return None,
    })
}

/// serde's "expected ..." in JSON terms: no Rust type names, no `sequence` or `map`.
pub(crate) fn expected_in_json_terms(expected: &str) -> String {
    let expected = expected.trim();
    if let Some((min, max)) = integer_range(expected) {
        return format!("an integer between {min} and {max}");
    }
    if let Some(rust) = expected.strip_prefix("a nonzero ")
        && let Some((min, max)) = integer_range(rust)
    {
        return if min == 0 {
            format!("an integer between 1 and {max}")
        } else {
            format!("a non-zero integer between {min} and {max}")
        };
    }
    let words = match expected {
        "f32" | "f64" => "a number",
        "a boolean" | "bool" => "true or false",
        "a string" | "a borrowed string" | "string" | "a string or bytes" => "a string",
        "a character" | "char" => "a string of one character",
        "unit" | "null" => "null",
        "a sequence" | "a tuple" | "a set" => "an array",
        "a map" | "map" => "an object",
        "variant identifier" | "field identifier" => "a name",
        _ => "",
    };
    if !words.is_empty() {
        return words.to_owned();
    }
    if let Some(size) = expected
        .strip_prefix("a tuple of size ")
        .or_else(|| expected.strip_prefix("an array of length "))
        .or_else(|| {
            expected
                .strip_prefix("tuple of ")
                .and_then(|rest| rest.strip_suffix(" elements"))
        })
    {
        return format!("an array of exactly {size} items");
    }
    if expected.starts_with("struct ")
        || expected.starts_with("internally tagged enum ")
        || expected.starts_with("adjacently tagged enum ")
        || expected.starts_with("struct variant ")
    {
        return "an object".to_owned();
    }
    if expected.starts_with("tuple struct ") || expected.starts_with("tuple variant ") {
        return "an array".to_owned();
    }
    if expected.starts_with("enum ") || expected.starts_with("unit variant ") {
        return "one of the values the tool's schema lists here".to_owned();
    }
    if expected.starts_with('`') || expected.starts_with("one of ") {
        // Already JSON: a list of accepted strings.
        return expected.to_owned();
    }
    if expected.starts_with("newtype struct ") {
        return "a value of the kind the tool's schema lists here".to_owned();
    }
    // Custom expectations (`Visitor::expecting` of a user's type) are written by
    // people; keep them, cut.
    clean(expected, 2 * ECHO_CHARS)
}

/// One of serde's messages, rewritten for the model. `value` is the offending value
/// when the caller has it (it is described from there, bounded, instead of echoing
/// serde's copy of it); returns the problem's path and message.
pub(crate) fn from_serde(path: &str, message: &str, value: Option<&Value>) -> Problem {
    if let Some(rest) = message.strip_prefix("missing field ")
        && let Some(field) = backticked(rest).into_iter().next()
    {
        return Problem::new(join_key(path, &field), "missing required field");
    }
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let mut names = backticked(rest);
        if !names.is_empty() {
            let field = names.remove(0);
            // Inside an internally tagged enum serde reports the enum's path, not
            // the field's.
            let parent = path
                .strip_suffix(&display_key(&field))
                .map(|parent| parent.trim_end_matches('.'))
                .filter(|parent| !parent.is_empty())
                .unwrap_or(path);
            let parent = if path == display_key(&field) {
                "."
            } else {
                parent
            };
            return Problem::unknown_field(parent, &field, names);
        }
    }
    if let Some(rest) = message.strip_prefix("duplicate field ")
        && let Some(field) = backticked(rest).into_iter().next()
    {
        return Problem::new(
            join_key(path, &field),
            "given more than once; name each field once",
        );
    }

    if let Some(rest) = message.strip_prefix("unknown variant ") {
        let mut names = backticked(rest);
        if !names.is_empty() {
            let got = names.remove(0);
            let got = format!("the string \"{}\"", clean(&got, ECHO_CHARS));
            return Problem::new(path, expected_one_of(&names, &got));
        }
    }
    if message.starts_with("data did not match any variant of untagged enum") {
        return Problem::new(
            path,
            "matches none of the shapes the tool's schema lists for this field",
        );
    }
    if let Some(rest) = message.strip_prefix("invalid length ")
        && let Some((got, expected)) = rest.split_once(", expected ")
    {
        return Problem::new(
            path,
            format!(
                "expected {}, got an array of {got} items",
                expected_in_json_terms(expected)
            ),
        );
    }

    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(prefix)
            && let Some((got, expected)) = rest.rsplit_once(", expected ")
        {
            let got = value.map_or_else(|| got_from_serde(got), describe);
            let integer = integer_range(expected.trim_start_matches("a nonzero "));
            let number = value
                .filter(|value| value.is_number())
                .and_then(Value::as_f64);
            if let (Some((min, max)), Some(number)) = (integer, number) {
                // Precision is lost on purpose: this only decides the wording.
                #[allow(clippy::cast_precision_loss)]
                let outside = number < min as f64 || number > max as f64;
                if outside {
                    return Problem::new(
                        path,
                        format!("must be between {min} and {max}, got {got}"),
                    );
                }
                if value.is_some_and(Value::is_f64) && !is_fractional(number) {
                    return Problem::new(
                        path,
                        format!(
                            "expected {}, got {got}; write whole numbers without a decimal point or exponent",
                            expected_in_json_terms(expected)
                        ),
                    );
                }
            }
            return Problem::new(
                path,
                format!("expected {}, got {got}", expected_in_json_terms(expected)),
            );
        }
    }
    if message.contains("surrogate") || message.contains("invalid unicode code point") {
        return Problem::new(
            path,
            "a string here contains a lone surrogate escape (like \"\\ud800\"), which is no character; \
             send the character itself or a complete surrogate pair",
        );
    }
    if message.starts_with("number out of range") {
        return Problem::new(
            path,
            "a number here is too large to represent; numbers must fit in a 64-bit float, integers in 64 bits",
        );
    }
    if message.starts_with("recursion limit exceeded") {
        return Problem::new(path, "the arguments nest too deeply here; flatten them");
    }
    // A type's own error (`Deserialize` written by hand, chrono, uuid): people
    // wrote it; keep it, cut and cleaned.
    Problem::new(
        path,
        format!("not accepted: {}", clean(message, 2 * ECHO_CHARS)),
    )
}

fn is_fractional(number: f64) -> bool {
    number.fract() != 0.0
}

/// "expected one of `a`, `b`, got X".
pub(crate) fn expected_one_of(names: &[String], got: &str) -> String {
    match names {
        [] => format!("no value is accepted here, got {got}"),
        [one] => format!("expected `{one}`, got {got}"),
        _ => format!("expected one of `{}`, got {got}", names.join("`, `")),
    }
}

/// serde's own description of the unexpected value (a string, an integer in
/// backticks, `map`), for when the value itself is not at hand.
fn got_from_serde(got: &str) -> String {
    if let Some(text) = got
        .strip_prefix("string \"")
        .and_then(|text| text.strip_suffix('"'))
    {
        return format!("the string \"{}\"", clean(text, ECHO_CHARS));
    }
    for (rust, json) in [
        ("integer `", ""),
        ("floating point `", ""),
        ("boolean `", ""),
    ] {
        if let Some(text) = got
            .strip_prefix(rust)
            .and_then(|text| text.strip_suffix('`'))
        {
            return format!("{json}{}", clean(text, ECHO_CHARS));
        }
    }
    match got {
        "map" => "an object".to_owned(),
        "sequence" => "an array".to_owned(),
        "unit" | "null" => "null".to_owned(),
        other => clean(other, ECHO_CHARS),
    }
}

/// The `name`s in "`a`, expected one of `b`, `c`".
fn backticked(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_described_string_is_cut() {
        let long = "x".repeat(1000);
        assert_eq!(describe(&Value::String(long)).len(), 104);
    }

    #[test]
    fn paths_are_never_empty_or_question_marks() {
        assert_eq!(join_key(".", ""), "[\"\"]");
        assert_eq!(join_key("config", ""), "config[\"\"]");
        assert_eq!(join_key("config", "a b"), "config[\"a b\"]");
        assert_eq!(join_key(".", "title"), "title");
        assert_eq!(join_index(".", 2), "[2]");
        assert_eq!(join_index("tasks", 2), "tasks[2]");
    }

    #[test]
    fn serde_words_become_json_words() {
        for (rust, json) in [
            ("i8", "an integer between -128 and 127"),
            ("u64", "an integer between 0 and 18446744073709551615"),
            ("a nonzero u32", "an integer between 1 and 4294967295"),
            ("a sequence", "an array"),
            ("a map", "an object"),
            ("internally tagged enum Recurrence", "an object"),
            ("struct Task", "an object"),
            ("a tuple of size 2", "an array of exactly 2 items"),
            ("tuple struct Point", "an array"),
            ("a boolean", "true or false"),
        ] {
            assert_eq!(expected_in_json_terms(rust), json, "{rust}");
        }
    }

    #[test]
    fn serde_messages_are_rewritten_with_bounded_echoes() {
        let long = "v".repeat(500);
        let cases = [
            (
                "invalid length 3, expected a tuple of size 2".to_owned(),
                "expected an array of exactly 2 items, got an array of 3 items",
            ),
            (
                "data did not match any variant of untagged enum Who".to_owned(),
                "matches none of the shapes the tool's schema lists for this field",
            ),
            (
                format!("unknown variant `{long}`, expected `asc` or `desc`"),
                "expected one of `asc`, `desc`, got the string \"vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv…(500 characters in all)\"",
            ),
            (
                "invalid value: integer `0`, expected a nonzero u32".to_owned(),
                "expected an integer between 1 and 4294967295, got 0",
            ),
            (
                "invalid type: map, expected a sequence".to_owned(),
                "expected an array, got an object",
            ),
            (
                "premature end of input".to_owned(),
                "not accepted: premature end of input",
            ),
        ];
        for (serde, ours) in cases {
            assert_eq!(from_serde("a", &serde, None).message, ours, "{serde}");
        }
        assert_eq!(
            from_serde(".", "duplicate field `limit`", None).path,
            "limit"
        );
    }
}

//! How much work one call may ask for: argument size and nesting depth, checked on
//! the raw text before anything parses it, so the work of a call is bounded by its
//! input's size whatever the model sends.
//!
//! Why not `serde_json`'s own limit: it is a fixed recursion depth of 128, reached
//! while parsing (the work is done by then), and its error has no path. These
//! checks cost a vectorized count of the opening brackets, and only a text with
//! more of them than the depth allows is scanned for its path.

use serde_json::Value;

use super::messages::{Problem, display_key};
use crate::error::ToolError;

/// The bounds every call's arguments must stay within, set by the application.
///
/// Both are checked on the raw text before it is parsed, so an oversized or
/// over-deep payload costs one scan of its bytes and nothing more.
///
/// ```
/// let limits = toolkit::call::Limits { max_argument_bytes: 64 * 1024, ..toolkit::call::Limits::default() };
/// toolkit::registry().set_limits(limits);
/// assert_eq!(toolkit::registry().limits().max_depth, 32);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The longest argument text accepted, in bytes (default 1 MiB: far more than a
    /// model writes into one call).
    pub max_argument_bytes: usize,
    /// How deeply objects and arrays may nest, the root object being level 1
    /// (default 32: well under `serde_json`'s own limit of 128, which already
    /// overflows a 128 KiB thread stack, and far deeper than any tool's schema).
    pub max_depth: usize,
}

impl Limits {
    /// The default limits: 1 MiB of arguments, 32 levels of nesting.
    pub const DEFAULT: Limits = Limits {
        max_argument_bytes: 1024 * 1024,
        max_depth: 32,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// Refuses text over the size or depth limit, before it is parsed.
pub(crate) fn check_text(text: &str, limits: &Limits) -> Result<(), ToolError> {
    if text.len() > limits.max_argument_bytes {
        return Err(too_large(text.len(), limits.max_argument_bytes));
    }
    // Fewer brackets than the limit can't nest past it; counting them is a
    // vectorized loop, so the common small call never runs the precise scan.
    if text.len() > limits.max_depth
        && opening_brackets(text.as_bytes()) > limits.max_depth
        && let Some(path) = too_deep(text.as_bytes(), limits.max_depth)
    {
        return Err(nested_too_deep(&path, limits.max_depth));
    }
    Ok(())
}

/// How many `{` and `[` the text has, strings included (an upper bound on its
/// depth). `{` (0x7B) and `[` (0x5B) differ only in bit 5, so one comparison of
/// each byte with bit 5 set finds both; counting into a byte per block of 255
/// lets the compiler compare 16 bytes at a time (a `usize` sum per byte compiled
/// to about six instructions a byte: 418 for a 70-byte call, by callgrind).
fn opening_brackets(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|block| {
            let count = block
                .iter()
                .fold(0_u8, |count, &byte| count + u8::from((byte | 0x20) == b'{'));
            usize::from(count)
        })
        .sum()
}

fn too_large(length: usize, limit: usize) -> ToolError {
    Problem::new(
        ".",
        format!("the arguments are {length} bytes long; at most {limit} bytes are accepted"),
    )
    .into_error()
}

fn nested_too_deep(path: &str, limit: usize) -> ToolError {
    Problem::new(
        path,
        format!(
            "the arguments nest deeper than {limit} levels of objects and arrays here; flatten them"
        ),
    )
    .into_error()
}

/// One open container during the scan: where it sits in its parent.
enum Step<'a> {
    Root,
    Key(&'a [u8]),
    Index(usize),
}

/// The path (cut for reading) of the first container past `limit` levels, if any.
/// Strings are skipped with their escapes; the text need not be valid JSON (a
/// malformed one is reported by the parser afterwards).
fn too_deep(bytes: &[u8], limit: usize) -> Option<String> {
    let mut stack: Vec<(Step<'_>, bool)> = Vec::new(); // (place, is_array)
    let mut last_string: Option<&[u8]> = None;
    let mut index_stack: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                last_string = Some(&bytes[start..i.min(bytes.len())]);
            }
            open @ (b'{' | b'[') => {
                let place = match stack.last() {
                    None => Step::Root,
                    Some((_, true)) => Step::Index(index_stack.last().copied().unwrap_or(0)),
                    Some((_, false)) => Step::Key(last_string.unwrap_or_default()),
                };
                stack.push((place, open == b'['));
                index_stack.push(0);
                if stack.len() > limit {
                    return Some(cut_path(&stack));
                }
            }
            b'}' | b']' => {
                stack.pop();
                index_stack.pop();
            }
            b',' => {
                if let (Some((_, true)), Some(index)) = (stack.last(), index_stack.last_mut()) {
                    *index += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// A path a model can read: the first four steps, an ellipsis, the last two.
fn cut_path(stack: &[(Step<'_>, bool)]) -> String {
    let steps: Vec<String> = stack
        .iter()
        .filter_map(|(step, _)| match step {
            Step::Root => None,
            Step::Key(key) => Some(display_key(&String::from_utf8_lossy(key))),
            Step::Index(index) => Some(format!("[{index}]")),
        })
        .collect();
    let join = |steps: &[String]| {
        let mut path = String::new();
        for step in steps {
            if !path.is_empty() && !step.starts_with('[') {
                path.push('.');
            }
            path.push_str(step);
        }
        path
    };
    if steps.is_empty() {
        ".".to_owned()
    } else if steps.len() <= 6 {
        join(&steps)
    } else {
        let tail = join(&steps[steps.len() - 2..]);
        let separator = if tail.starts_with('[') { "" } else { "." };
        format!(
            "{}.…({} more levels)…{separator}{tail}",
            join(&steps[..4]),
            steps.len() - 6
        )
    }
}

/// Refuses a caller-built [`Value`] nested past the limit, without recursion (a
/// `Value` can be deeper than any stack; `call_value` must not overflow on it).
pub(crate) fn check_value(value: &Value, limits: &Limits) -> Result<(), ToolError> {
    if nests_deeper_than(value, limits.max_depth) {
        return Err(nested_too_deep(".", limits.max_depth));
    }
    Ok(())
}

/// A checked [`Value`]'s JSON text, for the text-first dispatch: written into a
/// byte buffer, which costs about half of `Value`'s `Display` (that goes through
/// `fmt::Formatter` a piece at a time). The same text either way.
pub(crate) fn value_text(value: &Value) -> String {
    // A `Value`'s keys are strings, so writing one cannot fail; `Display` is the
    // same text should it ever.
    serde_json::to_string(value).unwrap_or_else(|_| value.to_string())
}

/// How deep `serde_json` parses text (its recursion limit): any value read from
/// JSON text nests at most this deep, so serializing it again is safe on any stack.
#[cfg(feature = "mcp")]
pub(crate) const TEXT_DEPTH: usize = 128;

/// The members of an arguments object built in code (the object itself is level
/// 1), refused when they nest deeper than `max_depth`, without recursion.
#[cfg(feature = "mcp")]
pub(crate) fn check_members(
    members: &serde_json::Map<String, Value>,
    max_depth: usize,
) -> Result<(), ToolError> {
    let too_deep = max_depth == 0
        || members
            .values()
            .any(|member| nests_deeper_than(member, max_depth - 1));
    if too_deep {
        return Err(nested_too_deep(".", max_depth));
    }
    Ok(())
}

/// Whether `value` nests objects and arrays more than `max` levels deep (the
/// value itself is level 1), found with a heap stack instead of recursion.
pub(crate) fn nests_deeper_than(value: &Value, max: usize) -> bool {
    // Only arrays and objects nest, so only they are kept for later, and the
    // value itself is looked at before the stack is used: arguments made of
    // scalars (most calls) are checked without touching the heap.
    let is_container = |value: &&Value| matches!(value, Value::Array(_) | Value::Object(_));
    let mut pending: Vec<(&Value, usize)> = Vec::new();
    let mut next = Some((value, 1));
    while let Some((value, depth)) = next.take().or_else(|| pending.pop()) {
        match value {
            Value::Array(items) => {
                if depth > max {
                    return true;
                }
                let deeper = items.iter().filter(is_container);
                pending.extend(deeper.map(|child| (child, depth + 1)));
            }
            Value::Object(members) => {
                if depth > max {
                    return true;
                }
                let deeper = members.values().filter(is_container);
                pending.extend(deeper.map(|child| (child, depth + 1)));
            }
            _ => {}
        }
    }
    false
}

/// Drops a value without recursion: `Value`'s own drop recurses once per level,
/// so a refused value built in code, deeper than the stack, must not be dropped
/// the ordinary way where the refusal happens.
pub(crate) fn dismantle(value: Value) {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Array(items) => pending.extend(items),
            Value::Object(members) => pending.extend(members.into_iter().map(|(_, member)| member)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deep(levels: usize) -> String {
        format!("{}1{}", "{\"a\":".repeat(levels), "}".repeat(levels))
    }

    #[test]
    fn opening_brackets_are_counted_in_every_block() {
        assert_eq!(opening_brackets(b""), 0);
        assert_eq!(opening_brackets(br#"{"a": [1, {"b": "[{"}], "c": "x"}"#), 5);
        // Neither `;` (0x3B) nor `{`'s other neighbours count.
        assert_eq!(opening_brackets(b";KkK{|}[]"), 2);
        let long = "[".repeat(700) + &"x".repeat(300) + &"{".repeat(10);
        assert_eq!(opening_brackets(long.as_bytes()), 710);
    }

    #[test]
    fn size_is_refused_before_parsing() {
        let limits = Limits {
            max_argument_bytes: 10,
            ..Limits::DEFAULT
        };
        assert_eq!(check_text("{\"a\": 1}", &limits), Ok(()));
        assert_eq!(
            check_text("{\"a\": \"0123456789\"}", &limits)
                .unwrap_err()
                .to_string(),
            "invalid arguments at `.`: the arguments are 19 bytes long; at most 10 bytes are accepted"
        );
    }

    #[test]
    fn depth_is_counted_outside_strings() {
        let limits = Limits {
            max_depth: 3,
            ..Limits::DEFAULT
        };
        assert_eq!(check_text(&deep(3), &limits), Ok(()));
        assert_eq!(
            check_text(r#"{"a": "[[[[[[{{{{{", "b": [1, [2]]}"#, &limits),
            Ok(())
        );
        assert_eq!(
            check_text(&deep(4), &limits).unwrap_err().to_string(),
            "invalid arguments at `a.a.a`: the arguments nest deeper than 3 levels of objects and arrays here; flatten them"
        );
        assert_eq!(
            check_text(r#"{"x": [0, 1, [[5]]]}"#, &limits)
                .unwrap_err()
                .to_string(),
            "invalid arguments at `x[2][0]`: the arguments nest deeper than 3 levels of objects and arrays here; flatten them"
        );
    }

    #[test]
    fn the_default_depth_is_refused_long_before_serde_json_recursion_limit() {
        const { assert!(Limits::DEFAULT.max_depth < 128) };
        let error = check_text(&deep(100), &Limits::DEFAULT).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid arguments at `a.a.a.a.…(26 more levels)….a.a`: the arguments nest deeper than 32 levels of objects and arrays here; flatten them"
        );
    }

    #[test]
    fn a_values_text_is_its_display_text() {
        // What the text-first dispatch parses must be what `Display` wrote before:
        // escapes, numbers and key order alike.
        let value = serde_json::json!({
            "b": [1, -2.5, 1e300, u64::MAX, null, true],
            "a": "quote \" slash \\ line\n tab\t bell\u{7} \u{2028} é 𝄞",
            "": {"nested": []},
        });
        assert_eq!(value_text(&value), value.to_string());
        assert_eq!(value_text(&Value::Null), "null");
    }

    #[test]
    fn depth_counts_containers_only_and_stops_at_the_limit() {
        let value = serde_json::json!({"a": [1, {"b": 2}], "c": "d"});
        assert!(!nests_deeper_than(&value, 3));
        assert!(nests_deeper_than(&value, 2));
        let array = serde_json::json!([1, "two", [3]]);
        assert!(!nests_deeper_than(&array, 2));
        assert!(nests_deeper_than(&array, 1));
        // A scalar nests no level; an empty container is one.
        assert!(!nests_deeper_than(&serde_json::json!(1), 0));
        assert!(nests_deeper_than(&serde_json::json!({}), 0));
        assert!(!nests_deeper_than(&serde_json::json!({}), 1));
    }

    #[test]
    fn deep_values_are_refused_without_recursion() {
        let mut value = Value::Null;
        for _ in 0..100_000 {
            value = Value::Array(vec![value]);
        }
        assert!(check_value(&value, &Limits::DEFAULT).is_err());
        assert_eq!(
            check_value(&serde_json::json!({"a": [1, {"b": 2}]}), &Limits::DEFAULT),
            Ok(())
        );
        // Dropping it recursively would overflow this test's stack, too.
        while let Value::Array(mut items) = value {
            value = items.pop().unwrap_or(Value::Null);
        }
    }
}

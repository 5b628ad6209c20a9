//! The model's argument text into the typed argument struct.
//!
//! The fast path is one `serde_json::from_str`. Only when that fails is the text
//! looked at again (the slow path): it is parsed into a `Value`, `null`s for
//! declared optional properties are dropped (strict dialects make the model send
//! them), and the arguments are tried again; if they still fail, every problem the
//! schema finds is reported, plus serde's own if the schema missed it. serde's
//! errors are placed by the line they come at in a laid-out copy of the text
//! ([`layout`](super::layout)), parsed by the fast path's own `from_str::<T>`: the
//! slow path compiles no second `Deserialize` of any argument type.
//!
//! Cost: a call that parses pays `from_str` and an object check; everything else
//! here runs for refused text only (`BENCHMARKS.md`, "Dispatch").

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::layout::{self, Layout, Segment, value_at};
use super::limits::{self, Limits};
use super::messages::{self, Problem};
use super::validate::Plan;
use crate::error::ToolError;

/// Parses the model's JSON text straight into the argument struct `T`.
///
/// This is the only code here compiled once per argument type (once per tool),
/// so it is kept to one parse (`from_text`, tried again on the slow path's text)
/// and calls of plain functions: everything else is compiled once for all tools
/// (`BENCHMARKS.md`, "Build time").
pub fn parse_arguments<T: DeserializeOwned + JsonSchema + 'static>(
    arguments: &str,
) -> Result<T, ToolError> {
    let mut retry = None;
    loop {
        if let Ok(parsed) = from_text::<T>(retry.as_deref().unwrap_or(arguments)) {
            return Ok(parsed);
        }
        retry_text(
            arguments,
            &mut retry,
            TypeId::of::<T>(),
            crate::schema::raw_schema_for::<T>,
            fits::<T>,
        )?;
    }
}

/// After a failed parse: the first time, the text the slow path says `T` is to be
/// parsed from (the arguments less the nulls a strict dialect sent, or `{}` for
/// none) is put in `retry`, or every problem found is the error; a second failure
/// (of the slow path's own text) is final.
fn retry_text(
    arguments: &str,
    retry: &mut Option<String>,
    type_id: TypeId,
    schema: fn() -> schemars::Schema,
    parse: Typed,
) -> Result<(), ToolError> {
    if retry.is_some() {
        return Err(not_accepted());
    }
    *retry = Some(slow_path(arguments, plan_for(type_id, schema), parse)?);
    Ok(())
}

/// `T` from a JSON text whose top level is an object.
///
/// A derived struct's `Deserialize` asks `serde_json`'s `deserialize_struct`, which
/// takes a positional array too (the model must name its arguments, so one is
/// refused anyway); asked for a map, `serde_json` reads an object only, and neither
/// its array branch nor the struct's `visit_seq` is compiled for the tool's type.
/// serde's messages about what is inside the object are the same either way.
fn from_text<T: DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    // `match`, not `?`: no `Try` impls instantiated for `Result<T, _>`.
    match T::deserialize(ObjectOnly(&mut deserializer)) {
        Ok(value) => match deserializer.end() {
            Ok(()) => Ok(value),
            Err(error) => Err(error),
        },
        Err(error) => Err(error),
    }
}

/// Whether `text` is a `T`, with serde's error when not: the slow path's one
/// question of the argument type, asked through a plain `fn` pointer.
fn fits<T: DeserializeOwned>(text: &str) -> Result<(), serde_json::Error> {
    match from_text::<T>(text) {
        Ok(_) => Ok(()),
        Err(error) => Err(error),
    }
}

/// `serde_json`'s deserializer, asked for an object whatever the type asks for.
struct ObjectOnly<'a, 'de>(&'a mut serde_json::Deserializer<serde_json::de::StrRead<'de>>);

impl<'de> serde::Deserializer<'de> for ObjectOnly<'_, 'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        serde::Deserializer::deserialize_map(self.0, visitor)
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        serde::Deserializer::deserialize_map(self.0, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

fn not_accepted() -> ToolError {
    Problem::new(".", "the arguments are not accepted").into_error()
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

/// The one question the slow path asks of the argument type: does this text
/// parse as `T` ([`fits`]), and serde's error if not. A plain `fn` pointer, so
/// everything around it is compiled once, not once per tool, and no second
/// instantiation of `T`'s `Deserialize` exists (which would double the build time
/// of every tool crate).
type Typed = fn(&str) -> Result<(), serde_json::Error>;

/// The slow path, after the fast parse failed: the text that parses as the
/// argument type (the arguments less the nulls a strict dialect sent for optional
/// parameters, or `{}` for none), or every problem found.
#[cold]
fn slow_path(arguments: &str, plan: &Plan, parse: Typed) -> Result<String, ToolError> {
    let trimmed = arguments.trim();
    // Providers send "" (or `null`) for tools without parameters.
    if trimmed.is_empty() || trimmed == "null" {
        from_value(&Value::Object(serde_json::Map::new()), plan, parse)?;
        return Ok("{}".to_owned());
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
        Ok(()) if stripped => Ok(value.to_string()),
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
            let path = layout::serde_path(error.path());
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
/// The value is parsed from its text, laid out one member per line
/// ([`layout`](super::layout)): serde's words are the same on text as on a
/// `Value` once the position is cut, and the line of its error gives the path.
fn from_value(value: &Value, plan: &Plan, parse: Typed) -> Result<(), ToolError> {
    let typed = typed_parse(&value.to_string(), Some(value), parse);
    // The common slow path (nulls a strict dialect sent, now gone) asks only
    // whether the value is valid; the problems are collected when it is not.
    if typed.is_ok() && plan.is_valid(value) {
        return Ok(());
    }
    let mut problems = plan.problems(value);
    match typed {
        Ok(()) if problems.is_empty() => Ok(()),
        Ok(()) => Err(messages::into_error(problems)),
        Err(failure) => {
            let at = value_at(value, &failure.steps);
            let problem = messages::from_serde(&failure.path, &failure.message, at);
            // The schema's problems come first; serde's is added when the schema
            // said nothing about that place (a range the schema leaves out, a
            // type's own rule). A field the schema already names missing is
            // serde's too, wherever the layout placed it: a buffered enum's
            // "missing field" can surface only once its container has ended,
            // and a container without that field (the root, say) looks like
            // its owner.
            let told = problems.iter().any(|known| {
                nested(&known.path, &problem.path)
                    || nested(&problem.path, &known.path)
                    || (problem.message == MISSING
                        && known.message == MISSING
                        && last_key(&known.path) == last_key(&problem.path))
            });
            if !told {
                problems.push(problem);
            }
            Err(messages::into_error(problems))
        }
    }
}

/// serde's error on a text, with its place.
struct Failure {
    /// The place as shown.
    path: String,
    /// The place as steps into the `Value`.
    steps: Vec<Segment>,
    /// serde's message, without its position.
    message: String,
}

/// Parses valid JSON `text`, laid out, into `T`: nothing, or serde's error and its
/// place; `value` is the value `text` was written from, if any.
fn typed_parse(text: &str, value: Option<&Value>, parse: Typed) -> Result<(), Failure> {
    let Some(layout) = Layout::new(text) else {
        // Only valid JSON comes here; should it not be, serde's error stands
        // without a place.
        return parse(text).map_err(|error| Failure {
            path: ".".to_owned(),
            steps: Vec::new(),
            message: strip_position(&error),
        });
    };
    parse(&layout.text).map_err(|error| {
        let message = strip_position(&error);
        let grammar = error.classify() == serde_json::error::Category::Syntax;
        let steps = layout.place(error.line(), error.column(), &message, grammar, value);
        Failure {
            path: layout::display(&steps),
            steps,
            message,
        }
    })
}

/// The words of a missing required field, from the schema and from serde alike.
const MISSING: &str = "missing required field";

/// The last key of a path (`h` of `shape.h`, `["a b"]` of `x["a b"]`).
fn last_key(path: &str) -> &str {
    if path.ends_with("\"]")
        && let Some(at) = path.rfind("[\"")
    {
        return &path[at..];
    }
    path.rfind('.').map_or(path, |at| &path[at + 1..])
}

/// Whether `inner` is `outer` or a place inside it.
fn nested(outer: &str, inner: &str) -> bool {
    outer == "."
        || inner == outer
        || inner
            .strip_prefix(outer)
            .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
}

/// serde's error on the text itself (valid JSON whose `Value` passed: a key
/// given twice), with its path.
fn text_error(arguments: &str, parse: Typed) -> ToolError {
    match typed_parse(arguments, None, parse) {
        Err(failure) => messages::from_serde(&failure.path, &failure.message, None).into_error(),
        Ok(()) => not_accepted(),
    }
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
    fn names_a_key_given_twice_at_any_depth() {
        assert_eq!(
            parse_arguments::<Args>(
                r#"{"tasks": [{"title": "a"}, {"title": "b",  "due": 1, "title": "c"}]}"#
            )
            .unwrap_err(),
            invalid(
                "tasks[1].title",
                "given more than once; name each field once"
            )
        );
        assert_eq!(
            parse_arguments::<Args>(r#"{"tasks": [], "tasks": []}"#).unwrap_err(),
            invalid("tasks", "given more than once; name each field once")
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

    /// The layout's place for serde's errors is the place `serde_path_to_error`
    /// (which the slow path used before, at twice the build cost) names, for
    /// every single change of valid arguments of a type with nested structs,
    /// arrays, tuples, maps, enums (external, internally tagged, untagged) and
    /// `try_from` rules, in sequences too (where a buffered enum's error is
    /// placed only after the sequence read on past the element). Known
    /// differences, each naming a value that holds the mistake: an adjacently
    /// tagged enum whose content comes before its tag (serde buffers the content
    /// and fails after the tag, which is then named; path tracking names the
    /// enum); and a buffered enum as an object's last member, missing a field
    /// the object lacks too (the object is named: the same words are its own).
    #[test]
    fn places_agree_with_path_tracking() {
        use std::collections::BTreeMap;

        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Root {
            name: String,
            count: u8,
            tags: Vec<String>,
            items: Vec<Item>,
            pair: (u32, bool),
            map: BTreeMap<String, u16>,
            numbered: BTreeMap<u8, bool>,
            kind: Kind,
            shape: Shape,
            either: Either,
            code: Code,
            note: Option<Item>,
            shapes: Vec<Shape>,
            optional_shapes: Vec<Option<Shape>>,
            codes: Vec<Code>,
            eithers: Vec<Either>,
        }
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Item {
            title: String,
            due: Option<u32>,
            code: Code,
        }
        #[derive(Debug, serde::Deserialize)]
        #[serde(rename_all = "snake_case")]
        #[allow(dead_code)]
        enum Kind {
            Plain,
            Weighted { weight: f32 },
            Pair(u8, u8),
        }
        #[derive(Debug, serde::Deserialize)]
        #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
        #[allow(dead_code)]
        enum Shape {
            Circle { radius: u32 },
            Square { side: u32 },
            Line { ends: (u8, u8) },
        }
        #[derive(Debug, serde::Deserialize)]
        #[serde(untagged)]
        #[allow(dead_code)]
        enum Either {
            Number(u32),
            Text(String),
        }
        #[derive(Debug, serde::Deserialize)]
        #[serde(try_from = "String")]
        #[allow(dead_code)]
        struct Code(String);
        impl TryFrom<String> for Code {
            type Error = String;
            fn try_from(text: String) -> Result<Self, String> {
                if text.len() == 3 {
                    Ok(Code(text))
                } else {
                    Err(format!("`{text}` is not a 3-letter code"))
                }
            }
        }

        let valid = serde_json::json!({
            "name": "n", "count": 3, "tags": ["a", "b"],
            "items": [{"title": "a", "due": 1, "code": "abc"}, {"title": "b", "code": "xyz"}],
            "pair": [1, true], "map": {"k": 1, "l": 2}, "numbered": {"1": true},
            "kind": {"weighted": {"weight": 1.5}}, "shape": {"kind": "circle", "radius": 2},
            "either": 4, "code": "abc",
            "shapes": [{"kind": "line", "ends": [1, 2]}, {"kind": "square", "side": 3}],
            "optional_shapes": [null, {"kind": "line", "ends": [1, 2]}, {"kind": "circle", "radius": 2}],
            "codes": ["abc", "xyz"], "eithers": [1, "x"],
            "note": {"title": "c", "code": "def"}
        });
        assert!(serde_json::from_value::<Root>(valid.clone()).is_ok());

        // Every place in the value, and every change of it: a wrong kind of value,
        // a member removed or added, an element added.
        let mut places = vec![Vec::new()];
        let mut index = 0;
        while index < places.len() {
            let place: Vec<Segment> = places[index].clone();
            index += 1;
            match value_at(&valid, &place) {
                Some(Value::Object(members)) => places.extend(members.keys().map(|key| {
                    let mut child = place.clone();
                    child.push(Segment::Key(key.clone()));
                    child
                })),
                Some(Value::Array(elements)) => places.extend((0..elements.len()).map(|at| {
                    let mut child = place.clone();
                    child.push(Segment::Index(at));
                    child
                })),
                _ => {}
            }
        }
        let replacements = [
            serde_json::json!("text"),
            serde_json::json!("abcd"),
            serde_json::json!(-1),
            serde_json::json!(300),
            serde_json::json!(1.5),
            serde_json::json!(null),
            serde_json::json!(true),
            serde_json::json!([]),
            serde_json::json!([1, 2, 3]),
            serde_json::json!({}),
            serde_json::json!({"zz": 1}),
        ];
        let mut changed = Vec::new();
        for place in &places {
            for replacement in &replacements {
                let mut value = valid.clone();
                if let Some(target) = value_at_mut(&mut value, place) {
                    *target = replacement.clone();
                    changed.push(value);
                }
            }
            let mut value = valid.clone();
            match value_at_mut(&mut value, place) {
                Some(Value::Object(members)) => {
                    members.insert("extra".to_owned(), Value::Bool(true));
                    let keys: Vec<String> = members.keys().cloned().collect();
                    changed.push(value);
                    for key in keys {
                        let mut without = valid.clone();
                        if let Some(Value::Object(members)) = value_at_mut(&mut without, place) {
                            members.remove(&key);
                        }
                        changed.push(without);
                    }
                }
                Some(Value::Array(elements)) => {
                    elements.push(Value::Bool(false));
                    changed.push(value);
                }
                _ => {}
            }
        }
        let mut compared = 0;
        for value in &changed {
            let text = value.to_string();
            let mut deserializer = serde_json::Deserializer::from_str(&text);
            let Err(tracked) = serde_path_to_error::deserialize::<_, Root>(&mut deserializer)
            else {
                continue;
            };
            let expected = layout::serde_path(tracked.path());
            let failure = typed_parse(&text, Some(value), |text| {
                serde_json::from_str::<Root>(text).map(|_| ())
            })
            .err()
            .unwrap_or_else(|| panic!("parsed {text}"));
            assert_eq!(failure.message, strip_position(tracked.inner()), "{text}");
            assert_eq!(failure.path, expected, "{}: {text}", failure.message);
            compared += 1;
        }
        assert!(compared > 600, "{compared}");
    }

    /// The fuzz oracle's rule, over generated lists of valid items with one bad
    /// item among them, given directly and as `Option`s: every problem's path
    /// names the bad item, a place inside it, or a container holding it; never a
    /// valid neighbour.
    #[test]
    fn no_problem_names_a_valid_item() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, RngSeed, TestRunner};

        #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
        #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
        #[allow(dead_code)]
        enum Outline {
            Circle { radius: u32 },
            Poly { points: Vec<(i32, i32)> },
        }
        #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
        #[serde(untagged)]
        #[allow(dead_code)]
        enum Member {
            Id(u32),
            Named { name: String },
        }
        #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Lists {
            #[serde(default)]
            direct: Vec<Outline>,
            #[serde(default)]
            optional: Vec<Option<Outline>>,
            #[serde(default)]
            members: Vec<Option<Member>>,
        }

        let valid_outline = prop_oneof![
            Just(serde_json::json!(null)),
            (0..9u32).prop_map(|radius| serde_json::json!({"type": "circle", "radius": radius})),
            proptest::collection::vec((-9..9i32, -9..9i32), 0..3)
                .prop_map(|points| serde_json::json!({"type": "poly", "points": points})),
        ];
        let bad_outline = prop_oneof![
            Just(serde_json::json!({"type": "hex"})),
            Just(serde_json::json!({"type": "circle"})),
            Just(serde_json::json!({"type": "circle", "radius": {}})),
            Just(serde_json::json!({"type": "circle", "radius": [1]})),
            Just(serde_json::json!({"type": "circle", "radius": -1})),
            Just(serde_json::json!({"type": "poly", "points": [[1, 2, 3]]})),
            Just(serde_json::json!({"type": "poly", "points": [[1]]})),
            Just(serde_json::json!({"type": "poly", "points": [{}]})),
            Just(serde_json::json!({"type": "circle", "radius": 1, "x": 1})),
            Just(serde_json::json!([1, 2])),
            Just(serde_json::json!("circle")),
        ];
        let valid_member = prop_oneof![
            Just(serde_json::json!(null)),
            (0..9u32).prop_map(|id| serde_json::json!(id)),
            Just(serde_json::json!({"name": "a"})),
        ];
        let bad_member = prop_oneof![
            Just(serde_json::json!({"name": 1})),
            Just(serde_json::json!(-1)),
            Just(serde_json::json!([{}])),
            Just(serde_json::json!(true)),
        ];
        let list = |valid: BoxedStrategy<Value>, bad: BoxedStrategy<Value>| {
            (
                proptest::collection::vec(valid.clone(), 0..4),
                bad,
                proptest::collection::vec(valid, 0..4),
            )
        };
        let case = prop_oneof![
            (
                Just("direct"),
                list(
                    valid_outline
                        .clone()
                        .prop_filter("not null", |item| !item.is_null())
                        .boxed(),
                    bad_outline.clone().boxed()
                )
            ),
            (
                Just("optional"),
                list(valid_outline.boxed(), bad_outline.boxed())
            ),
            (
                Just("members"),
                list(valid_member.boxed(), bad_member.boxed())
            ),
        ];
        let config = Config {
            cases: 512,
            rng_seed: RngSeed::Fixed(33),
            failure_persistence: None,
            ..Config::default()
        };
        TestRunner::new(config)
            .run(&case, |(key, (before, bad, after))| {
                let at = before.len();
                let mut items = before;
                items.push(bad);
                items.extend(after);
                let text = serde_json::json!({ key: items }).to_string();
                let error = parse_arguments::<Lists>(&text)
                    .err()
                    .ok_or_else(|| TestCaseError::fail(format!("accepted {text}")))?;
                let paths: Vec<String> = match &error {
                    ToolError::InvalidArguments { problems } => problems
                        .iter()
                        .map(|problem| problem.path.clone())
                        .collect(),
                    ToolError::UnknownField { path, .. } => vec![path.clone()],
                    other => return Err(TestCaseError::fail(format!("{other:?}"))),
                };
                let item = format!("{key}[{at}]");
                for path in &paths {
                    let holds_it = path == "." || path == key;
                    prop_assert!(
                        holds_it || nested(&item, path),
                        "{path} is not {item} in {text}: {error:?}"
                    );
                }
                Ok(())
            })
            .unwrap_or_else(|failure| panic!("{failure}"));
    }

    fn value_at_mut<'v>(mut value: &'v mut Value, path: &[Segment]) -> Option<&'v mut Value> {
        for segment in path {
            value = match segment {
                Segment::Index(index) => value.get_mut(*index)?,
                Segment::Key(key) => value.get_mut(key)?,
            };
        }
        Some(value)
    }
}

//! The edit form: one field per parameter, typed by the tool's schema, and the way
//! back from what the form sends to JSON arguments and from problems to fields.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::approval::canonical_json;
use crate::error::{Problem, ToolError};
use crate::registry::{RegisteredTool, Registry};

/// How a parameter is edited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A line or block of text.
    Text,
    /// A whole number.
    Integer,
    /// Any number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// One of these strings.
    Choice(Vec<String>),
    /// Anything else (objects, arrays, unions), as JSON text.
    Json,
}

/// One parameter of the edit form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Field {
    /// The parameter's name.
    pub(crate) name: &'static str,
    /// Its doc comment.
    pub(crate) description: &'static str,
    /// Whether the tool needs it.
    pub(crate) required: bool,
    /// How it is edited.
    pub(crate) kind: Kind,
    /// Whether it is edited as JSON because the argument's value would not come
    /// back exactly from the field its type asks for (see [`fields_for`]).
    pub(crate) as_json: bool,
}

/// The form's name of a parameter's input: parameters are Rust identifiers, and the
/// prefix keeps them apart from the form's own fields (`csrf`, `call_id`, ...).
pub(crate) fn input_name(field: &str) -> String {
    format!("arg.{field}")
}

/// The fields of `tool`'s edit form, in declaration order.
pub(crate) fn fields(tool: &RegisteredTool) -> Vec<Field> {
    let schema = tool.schema();
    let properties = schema.get("properties").and_then(Value::as_object);
    tool.tool()
        .params
        .iter()
        .map(|param| Field {
            name: param.name,
            description: param.description,
            required: param.required,
            kind: properties
                .and_then(|properties| properties.get(param.name))
                .map_or(Kind::Json, |property| kind(schema, property)),
            as_json: false,
        })
        .collect()
}

/// The fields of the form that edits `arguments`: those of [`fields`], but a
/// parameter whose value its typed field would not send back exactly is edited as
/// JSON. A browser changes what a page gives it: the HTML parser turns a carriage
/// return into a line feed and NUL into U+FFFD, a one-line text box drops line
/// breaks, an empty optional field means "not given", a select holds only its
/// options; and characters that hide or reorder text can't be seen in a field at
/// all. JSON text writes each of them as an escape the approver can read, and
/// parses back to the very value asked for.
pub(crate) fn fields_for(tool: &RegisteredTool, arguments: &Value) -> Vec<Field> {
    fields(tool)
        .into_iter()
        .map(|mut field| {
            if field.kind != Kind::Json
                && let Some(value) = arguments.get(field.name)
                && !held_exactly(&field, value)
            {
                field.kind = Kind::Json;
                field.as_json = true;
            }
            field
        })
        .collect()
}

/// Whether `value`, shown in `field`'s input and sent back by a browser, parses
/// to `value` itself.
fn held_exactly(field: &Field, value: &Value) -> bool {
    if let Value::String(text) = value
        && text.chars().any(is_hidden)
    {
        return false;
    }
    // A select holds its options only: a browser sends the one it shows.
    if let Kind::Choice(choices) = &field.kind
        && !value
            .as_str()
            .is_some_and(|text| choices.iter().any(|choice| choice == text))
    {
        return false;
    }
    let shown = initial_text(&field.kind, Some(value));
    let sent = through_a_browser(&shown, single_line(&field.kind, &shown));
    parse_field(field, &sent).is_some_and(|parsed| parsed.as_ref().ok() == Some(value))
}

/// What a browser sends back of `text` put in a field's markup and left alone:
/// the HTML parser's newline normalization and NUL replacement (HTML,
/// "Preprocessing the input stream" and the tokenizer's NUL handling), and a text
/// box's value sanitization (line breaks stripped). Form submission turns line
/// feeds into CRLF pairs, which [`arguments_from_form`] turns back.
fn through_a_browser(text: &str, single_line: bool) -> String {
    let text = text
        .replace("\r\n", "\n")
        .replace('\r', "\n")
        .replace('\0', "\u{FFFD}");
    if single_line {
        text.replace('\n', "")
    } else {
        text
    }
}

/// Whether a field of `kind` holding `text` is a one-line text box (otherwise a
/// text area, or a select).
pub(crate) fn single_line(kind: &Kind, text: &str) -> bool {
    match kind {
        Kind::Text => text.len() <= 200 && !text.contains('\n'),
        Kind::Integer | Kind::Number => true,
        Kind::Boolean | Kind::Choice(_) | Kind::Json => false,
    }
}

/// Characters that change how text around them reads, or that can't be seen:
/// bidirectional overrides and isolates (an RLO makes `gpj.exe` look like
/// `exe.jpg`), zero-width characters, blanks that look like nothing or like a
/// space (U+2800 BRAILLE PATTERN BLANK, U+3164 HANGUL FILLER), line and paragraph
/// separators (U+2028, U+2029: a line break to some readers, nothing to others),
/// other format and control characters. The pages show them as their code point,
/// and the edit form as JSON escapes, so the approver sees every character the
/// model wrote.
pub(crate) fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c,
            '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{2800}'
            | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFFB}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}')
}

/// `value` as pretty JSON text, every hidden character (see [`is_hidden`]) written
/// as a `\uXXXX` escape: JSON's own structure is ASCII, so these only ever stand
/// inside strings, where an escape means the same character.
pub(crate) fn json_text(value: &Value) -> String {
    let pretty = serde_json::to_string_pretty(value).unwrap_or_default();
    let mut text = String::with_capacity(pretty.len());
    for c in pretty.chars() {
        if is_hidden(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(text, "\\u{unit:04x}");
            }
        } else {
            text.push(c);
        }
    }
    text
}

/// The schema of `property`, following a local `$ref` (one level: cleaned schemas
/// keep `$defs`).
pub(crate) fn resolve<'s>(root: &'s Value, property: &'s Value) -> &'s Value {
    property
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix("#/"))
        .and_then(|pointer| root.pointer(&format!("/{pointer}")))
        .unwrap_or(property)
}

fn kind(root: &Value, property: &Value) -> Kind {
    let property = resolve(root, property);
    if let Some(choices) = string_choices(property) {
        return Kind::Choice(choices);
    }
    let types: Vec<&str> = match property.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many
            .iter()
            .filter_map(Value::as_str)
            .filter(|kind| *kind != "null")
            .collect(),
        _ => Vec::new(),
    };
    match types.as_slice() {
        ["string"] => Kind::Text,
        ["integer"] => Kind::Integer,
        ["number"] => Kind::Number,
        ["boolean"] => Kind::Boolean,
        _ => Kind::Json,
    }
}

/// The strings of an `enum` of strings, or of a `oneOf` of string `const`s.
fn string_choices(property: &Value) -> Option<Vec<String>> {
    if let Some(Value::Array(values)) = property.get("enum") {
        let strings: Option<Vec<String>> = values
            .iter()
            .filter(|value| !value.is_null())
            .map(|value| value.as_str().map(str::to_owned))
            .collect();
        return strings.filter(|strings| !strings.is_empty());
    }
    if let Some(Value::Array(branches)) = property.get("oneOf") {
        let strings: Option<Vec<String>> = branches
            .iter()
            .map(|branch| branch.get("const")?.as_str().map(str::to_owned))
            .collect();
        return strings.filter(|strings| !strings.is_empty());
    }
    None
}

/// What a field shows before editing: the argument as it is.
pub(crate) fn initial_text(kind: &Kind, value: Option<&Value>) -> String {
    match (kind, value) {
        (Kind::Json, Some(Value::Null)) => "null".to_owned(),
        (_, None | Some(Value::Null)) => String::new(),
        (Kind::Text | Kind::Choice(_), Some(Value::String(text))) => text.clone(),
        (Kind::Integer | Kind::Number, Some(Value::Number(number))) => number.to_string(),
        (Kind::Boolean, Some(Value::Bool(flag))) => flag.to_string(),
        (_, Some(other)) => json_text(other),
    }
}

/// The value one field's text stands for: `None` when it is left out (an empty
/// optional field), a problem when it is JSON that does not parse.
fn parse_field(field: &Field, text: &str) -> Option<Result<Value, Problem>> {
    let trimmed = text.trim();
    if trimmed.is_empty() && !(field.required && field.kind == Kind::Text) {
        return None;
    }
    Some(Ok(match &field.kind {
        Kind::Text | Kind::Choice(_) => Value::String(text.to_owned()),
        Kind::Integer => trimmed
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| trimmed.parse::<u64>().map(Value::from))
            .unwrap_or_else(|_| Value::String(text.to_owned())),
        Kind::Number => trimmed
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| Value::String(text.to_owned()), Value::Number),
        Kind::Boolean => match trimmed {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::String(text.to_owned()),
        },
        Kind::Json => match serde_json::from_str(trimmed) {
            Ok(value) => value,
            Err(error) => {
                return Some(Err(Problem {
                    path: field.name.to_owned(),
                    message: format!("not valid JSON: {error}"),
                }));
            }
        },
    }))
}

/// The arguments the form describes, or the problems of each field.
///
/// An empty optional field is left out. A number field that does not hold a number,
/// a boolean that is neither `true` nor `false`, is passed on as the text typed, so
/// the schema check names the problem in the same words it uses for a model. A
/// JSON field that is not JSON is a problem of its own.
pub(crate) fn arguments_from_form(
    fields: &[Field],
    form: &[(String, String)],
) -> Result<Value, Vec<Problem>> {
    let mut arguments = Map::new();
    let mut problems = Vec::new();
    for field in fields {
        let name = input_name(field.name);
        let Some(text) = form
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, text)| text.as_str())
        else {
            continue;
        };
        // Browsers send a textarea's line breaks as CRLF (HTML's form submission
        // normalizes them); the model wrote LF.
        match parse_field(field, &text.replace("\r\n", "\n")) {
            None => {}
            Some(Ok(value)) => {
                arguments.insert(field.name.to_owned(), value);
            }
            Some(Err(problem)) => problems.push(problem),
        }
    }
    if problems.is_empty() {
        Ok(Value::Object(arguments))
    } else {
        Err(problems)
    }
}

/// Checks edited arguments exactly as dispatch will (limits, schema, typed parse):
/// the problems, each with its path.
pub(crate) fn check(
    registry: &Registry,
    tool: &RegisteredTool,
    arguments: &Value,
) -> Result<(), Vec<Problem>> {
    tool.check_arguments_with_limits(&canonical_json(arguments), &registry.limits())
        .map_err(problems_of)
}

/// The problems an argument error names, each with a path (`.` when the error is
/// about the arguments as a whole).
pub(crate) fn problems_of(error: ToolError) -> Vec<Problem> {
    match error {
        ToolError::InvalidArguments { problems } => problems,
        // The path names the unknown field itself (`tasks[0].dew`).
        ToolError::UnknownField { path, field, .. } => vec![Problem {
            path,
            message: format!("the tool has no field `{field}`"),
        }],
        other => vec![Problem {
            path: ".".to_owned(),
            message: other.to_string(),
        }],
    }
}

/// The parameter a problem belongs to: the first segment of its path, when that is
/// one of `fields`; `None` for problems of the whole form.
pub(crate) fn field_of<'f>(fields: &'f [Field], problem: &Problem) -> Option<&'f Field> {
    let path = problem.path.as_str();
    let end = path.find(['.', '[']).unwrap_or(path.len());
    let first = &path[..end];
    fields.iter().find(|field| field.name == first)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn field(name: &'static str, required: bool, kind: Kind) -> Field {
        Field {
            name,
            description: "",
            required,
            kind,
            as_json: false,
        }
    }

    fn form(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn kinds_follow_the_schema() {
        let root = json!({"$defs": {"Level": {"enum": ["low", "high"]}}});
        assert_eq!(kind(&root, &json!({"type": "string"})), Kind::Text);
        assert_eq!(
            kind(&root, &json!({"type": ["integer", "null"]})),
            Kind::Integer
        );
        assert_eq!(kind(&root, &json!({"type": "number"})), Kind::Number);
        assert_eq!(kind(&root, &json!({"type": "boolean"})), Kind::Boolean);
        assert_eq!(
            kind(&root, &json!({"$ref": "#/$defs/Level"})),
            Kind::Choice(vec!["low".to_owned(), "high".to_owned()])
        );
        assert_eq!(
            kind(&root, &json!({"oneOf": [{"const": "a"}, {"const": "b"}]})),
            Kind::Choice(vec!["a".to_owned(), "b".to_owned()])
        );
        assert_eq!(
            kind(&root, &json!({"type": "array", "items": {}})),
            Kind::Json
        );
        assert_eq!(
            kind(&root, &json!({"type": ["string", "integer"]})),
            Kind::Json
        );
        assert_eq!(kind(&root, &json!({"$ref": "#/$defs/Missing"})), Kind::Json);
    }

    #[test]
    fn form_text_becomes_typed_arguments() {
        let fields = [
            field("title", true, Kind::Text),
            field("note", false, Kind::Text),
            field("count", true, Kind::Integer),
            field("ratio", false, Kind::Number),
            field("done", true, Kind::Boolean),
            field("tags", false, Kind::Json),
        ];
        let arguments = arguments_from_form(
            &fields,
            &form(&[
                ("arg.title", " <b>Hi</b> "),
                ("arg.note", "  "),
                ("arg.count", " 12 "),
                ("arg.ratio", "0.5"),
                ("arg.done", "false"),
                ("arg.tags", r#"["a", "b"]"#),
                ("arg.unknown", "ignored"),
                ("csrf", "x"),
            ]),
        );
        assert_eq!(
            arguments,
            Ok(
                json!({"title": " <b>Hi</b> ", "count": 12, "ratio": 0.5, "done": false, "tags": ["a", "b"]})
            )
        );
    }

    #[test]
    fn text_that_is_not_a_number_is_left_for_the_schema_check_to_name() {
        let fields = [
            field("count", true, Kind::Integer),
            field("done", true, Kind::Boolean),
        ];
        assert_eq!(
            arguments_from_form(
                &fields,
                &form(&[("arg.count", "twelve"), ("arg.done", "yes")])
            ),
            Ok(json!({"count": "twelve", "done": "yes"}))
        );
    }

    #[test]
    fn json_that_does_not_parse_is_a_problem_of_its_field() {
        let fields = [
            field("tags", true, Kind::Json),
            field("more", true, Kind::Json),
        ];
        let problems =
            arguments_from_form(&fields, &form(&[("arg.tags", "[1,"), ("arg.more", "{")]))
                .unwrap_err();
        assert_eq!(
            problems
                .iter()
                .map(|problem| problem.path.as_str())
                .collect::<Vec<_>>(),
            ["tags", "more"]
        );
        assert!(
            problems[0].message.starts_with("not valid JSON: "),
            "{problems:?}"
        );
    }

    #[test]
    fn problems_land_on_the_parameter_their_path_starts_with() {
        let fields = [
            field("schedules", true, Kind::Json),
            field("at", true, Kind::Text),
        ];
        let on = |path: &str| {
            field_of(
                &fields,
                &Problem {
                    path: path.to_owned(),
                    message: String::new(),
                },
            )
            .map(|field| field.name)
        };
        assert_eq!(on("schedules[0].recurrence.at"), Some("schedules"));
        assert_eq!(on("at"), Some("at"));
        assert_eq!(on("attic"), None);
        assert_eq!(on("."), None);
    }

    #[test]
    fn json_text_writes_hidden_characters_as_escapes_that_parse_back() {
        let value = json!({"a": "x\u{202E}y\u{2800}\u{1D173}\r\u{0}"});
        let text = json_text(&value);
        assert_eq!(
            text,
            "{\n  \"a\": \"x\\u202ey\\u2800\\ud834\\udd73\\r\\u0000\"\n}"
        );
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
    }

    #[test]
    fn a_value_its_field_would_change_is_edited_as_json() {
        let text = field("note", false, Kind::Text);
        let number = field("ratio", true, Kind::Number);
        let choice = field("level", true, Kind::Choice(vec!["low".to_owned()]));
        for (field, value, exact) in [
            (&text, json!("plain"), true),
            (&text, json!("two\nlines"), true),
            (&text, json!("\nleading newline"), true),
            (&text, json!("cr\rkept"), false),
            (&text, json!("nul\u{0}kept"), false),
            (&text, json!("rlo\u{202E}"), false),
            (&text, json!(""), false),
            (&text, json!("  "), false),
            (&text, json!(null), false),
            (&number, json!(0.1), true),
            (&number, json!(7), false),
            (&choice, json!("low"), true),
            (&choice, json!("high"), false),
        ] {
            assert_eq!(held_exactly(field, &value), exact, "{value}");
        }
    }

    #[test]
    fn initial_text_shows_the_argument_as_it_is() {
        assert_eq!(
            initial_text(&Kind::Text, Some(&json!("\"quoted\""))),
            "\"quoted\""
        );
        assert_eq!(initial_text(&Kind::Integer, Some(&json!(7))), "7");
        assert_eq!(initial_text(&Kind::Boolean, Some(&json!(true))), "true");
        assert_eq!(initial_text(&Kind::Text, None), "");
        assert_eq!(initial_text(&Kind::Json, Some(&json!([1]))), "[\n  1\n]");
        // A value of another type than the schema says is shown as JSON.
        assert_eq!(initial_text(&Kind::Integer, Some(&json!("7"))), "\"7\"");
    }
}

//! Conformance: every corpus tool rendered in every dialect either passes that
//! dialect's checker or fails with a documented [`toolkit::render::RenderError`].
//!
//! The checker (`conformance/checker.rs`) is written from each provider's
//! documented rules for tool schemas, independently of the renderer; the corpus (`conformance/corpus.rs`) has
//! one tool per argument shape. Problems are collected over the whole matrix and
//! reported together.

#[path = "conformance/checker.rs"]
mod checker;
#[path = "conformance/checker_tests.rs"]
mod checker_tests;
#[path = "conformance/clients.rs"]
mod clients;
#[path = "conformance/corpus.rs"]
mod corpus;
#[path = "conformance/regressions.rs"]
mod regressions;

use std::collections::BTreeSet;

use serde_json::{Map, Value};
use toolkit::{Context, Dialect, Response, registry::RegisteredTool};

use checker::{Declared, check, check_preserves};

/// The (tool, dialect) pairs that must fail to render, and a substring of the
/// documented reason. Every other pair must render and pass the checker.
const EXPECTED_ERRORS: &[(&str, Dialect, &str)] = &[
    // A map's keys are open: strict modes close every object, Gemini has no
    // `additionalProperties`.
    ("set_quotas", Dialect::OpenAiChatStrict, "map"),
    ("set_quotas", Dialect::OpenAiResponsesStrict, "map"),
    ("set_quotas", Dialect::AnthropicStrict, "map"),
    ("set_quotas", Dialect::GeminiParameters, "map"),
    ("set_counters", Dialect::OpenAiChatStrict, "map"),
    ("set_counters", Dialect::OpenAiResponsesStrict, "map"),
    ("set_counters", Dialect::AnthropicStrict, "map"),
    ("set_counters", Dialect::GeminiParameters, "map"),
    // Recursion can't be closed in Anthropic strict mode nor inlined for Gemini.
    ("create_trees", Dialect::AnthropicStrict, "recursi"),
    ("create_trees", Dialect::GeminiParameters, "recursi"),
    // An untyped `serde_json::Value` where every node needs a type.
    ("set_metadata", Dialect::OpenAiChatStrict, "type"),
    ("set_metadata", Dialect::OpenAiResponsesStrict, "type"),
    ("set_metadata", Dialect::GeminiParameters, "type"),
    // A tuple's positions need `prefixItems`, which strict mode does not take.
    ("set_position", Dialect::OpenAiChatStrict, "tuple"),
    ("set_position", Dialect::OpenAiResponsesStrict, "tuple"),
    // Anthropic strict drops the length bounds and Gemini `parameters` has no
    // `prefixItems`: either would let the model send arguments the tool rejects.
    ("set_position", Dialect::AnthropicStrict, "tuple"),
    ("set_position", Dialect::GeminiParameters, "tuple"),
    // `due-date` is not a Gemini property name.
    ("set_due_date", Dialect::GeminiParameters, "due-date"),
    ("update_deadlines", Dialect::GeminiParameters, "due-date"),
    // The same shapes as entries that may be `null`: refused where used directly.
    (
        "update_optional_deadlines",
        Dialect::GeminiParameters,
        "due-date",
    ),
    ("set_optional_quotas", Dialect::OpenAiChatStrict, "map"),
    ("set_optional_quotas", Dialect::OpenAiResponsesStrict, "map"),
    ("set_optional_quotas", Dialect::AnthropicStrict, "map"),
    ("set_optional_quotas", Dialect::GeminiParameters, "map"),
    ("set_optional_cells", Dialect::OpenAiChatStrict, "tuple"),
    (
        "set_optional_cells",
        Dialect::OpenAiResponsesStrict,
        "tuple",
    ),
    ("set_optional_cells", Dialect::AnthropicStrict, "tuple"),
    ("set_optional_cells", Dialect::GeminiParameters, "tuple"),
];

/// The dialects that express every corpus shape.
const LENIENT: [Dialect; 4] = [
    Dialect::OpenAiChat,
    Dialect::Anthropic,
    Dialect::GeminiJsonSchema,
    Dialect::Mcp,
];

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

fn expected_error(tool: &str, dialect: Dialect) -> Option<&'static str> {
    EXPECTED_ERRORS
        .iter()
        .find(|(name, expected, _)| *name == tool && *expected == dialect)
        .map(|(_, _, reason)| *reason)
}

#[test]
fn every_tool_in_every_dialect_conforms_or_fails_as_documented() {
    let registry = corpus::registry();
    let mut problems = Vec::new();
    for tool in &registry {
        for dialect in Dialect::ALL {
            let pair = format!("{} × {dialect:?}", tool.name);
            match (tool.render(dialect), expected_error(tool.name, dialect)) {
                (Ok(rendered), None) => {
                    let mut violations = check(dialect, &rendered);
                    violations.extend(check_preserves(dialect, &declared(tool), &rendered));
                    for violation in violations {
                        problems.push(format!("{pair}: {violation}"));
                    }
                }
                (Ok(rendered), Some(reason)) => problems.push(format!(
                    "{pair}: expected an error about {reason:?}, but it rendered {rendered}"
                )),
                (Err(error), expected) => {
                    if error.tool != tool.name || error.dialect != dialect {
                        problems.push(format!(
                            "{pair}: the error names {} × {:?}",
                            error.tool, error.dialect
                        ));
                    }
                    if error.path.is_empty() {
                        problems.push(format!("{pair}: the error names no path: {error}"));
                    }
                    match expected {
                        None => problems.push(format!("{pair}: unexpected error: {error}")),
                        Some(reason) if !error.reason.contains(reason) => problems.push(format!(
                            "{pair}: expected a reason containing {reason:?}, got: {error}"
                        )),
                        Some(_) => {}
                    }
                }
            }
        }
    }
    let names: BTreeSet<&str> = registry.iter().map(|tool| tool.name).collect();
    for (name, dialect, _) in EXPECTED_ERRORS {
        if !names.contains(name) {
            problems.push(format!("{name} × {dialect:?}: no such corpus tool"));
        }
    }
    assert!(
        problems.is_empty(),
        "{} conformance problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Arguments a model could send under `schema`: every required property, and
/// where the schema allows `null`, `null` (when `prefer_null`) or the first
/// non-null alternative.
fn arguments(root: &Value, node: &Value, prefer_null: bool, depth: usize) -> Value {
    let mut node = node;
    while let Some(Value::String(reference)) = node.get("$ref") {
        let target = match reference.strip_prefix("#/") {
            Some(rest) => rest.split('/').try_fold(root, |at, token| at.get(token)),
            None => Some(root),
        };
        match target {
            Some(target) => node = target,
            None => return Value::Null,
        }
    }
    let Some(object) = node.as_object() else {
        return Value::Null;
    };
    if depth > 16 {
        return Value::Null;
    }
    let types: Vec<&str> = match object.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let nullable = types.contains(&"null") || object.get("nullable") == Some(&Value::Bool(true));
    let enum_allows_null = object
        .get("enum")
        .and_then(Value::as_array)
        .is_none_or(|values| values.contains(&Value::Null));
    if prefer_null && nullable && enum_allows_null {
        return Value::Null;
    }
    if let Some(value) = object.get("const") {
        return value.clone();
    }
    if let Some(first) = object
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|values| values.iter().find(|value| !value.is_null()))
    {
        return first.clone();
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = object.get(union) {
            let is_null = |branch: &&Value| branch.get("type") == Some(&Value::from("null"));
            if prefer_null && branches.iter().any(|branch| is_null(&branch)) {
                return Value::Null;
            }
            if let Some(branch) = branches.iter().find(|branch| !is_null(branch)) {
                return arguments(root, branch, prefer_null, depth + 1);
            }
        }
    }
    let kind = types
        .iter()
        .copied()
        .find(|kind| *kind != "null")
        .unwrap_or("");
    match kind.to_ascii_lowercase().as_str() {
        "object" => {
            let mut out = Map::new();
            let properties = object.get("properties").and_then(Value::as_object);
            for name in object
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if let Some(property) = properties.and_then(|map| map.get(name)) {
                    out.insert(
                        name.to_owned(),
                        arguments(root, property, prefer_null, depth + 1),
                    );
                }
            }
            Value::Object(out)
        }
        "array" => {
            let count = object.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let prefix = object.get("prefixItems").and_then(Value::as_array);
            (0..count)
                .map(|i| {
                    let item = prefix
                        .and_then(|items| items.get(usize::try_from(i).expect("small")))
                        .or_else(|| object.get("items"));
                    item.map_or(Value::Null, |item| {
                        arguments(root, item, prefer_null, depth + 1)
                    })
                })
                .collect()
        }
        "string" => Value::from("2024-01-31"),
        "integer" | "number" => object.get("minimum").cloned().unwrap_or(Value::from(0)),
        "boolean" => Value::Bool(false),
        _ => Value::Null,
    }
}

/// Whatever a rendered schema lets the model send, the tool accepts: `null` where
/// the schema allows it, and otherwise the first alternative.
#[test]
fn every_rendered_schema_only_allows_arguments_the_tool_accepts() {
    let registry = corpus::registry();
    let ctx = Context::new();
    let mut problems = Vec::new();
    for tool in &registry {
        for dialect in Dialect::ALL {
            let Ok(rendered) = tool.render(dialect) else {
                continue;
            };
            let tool_part = rendered.get("function").unwrap_or(&rendered);
            let schema = [
                "parameters",
                "input_schema",
                "inputSchema",
                "parametersJsonSchema",
            ]
            .iter()
            .find_map(|key| tool_part.get(*key))
            .cloned()
            .unwrap_or_else(|| serde_json::json!({"type": "object"}));
            let with_nulls = arguments(&schema, &schema, true, 0);
            let without = arguments(&schema, &schema, false, 0);
            let tries = if with_nulls == without {
                vec![with_nulls]
            } else {
                vec![with_nulls, without]
            };
            for sent in tries {
                // The raw runner: `Registry::call` never runs an `approve` tool, and
                // this checks the schema against the parser, not the tier.
                let response = futures_executor::block_on(tool.call(&sent.to_string(), &ctx));
                if let Response::Error(error) = response {
                    problems.push(format!(
                        "{} × {dialect:?}: the schema allows {sent}, the tool rejects it: {error}",
                        tool.name
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} rejected arguments:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_corpus_is_what_the_matrix_covers() {
    let registry = corpus::registry();
    assert_eq!(registry.len(), corpus::definitions().len());
    assert_eq!(registry.len(), 32);
    // The no-parameter tool really has none, and the renamed parameter kept its
    // wire name in the canonical schema.
    assert_eq!(
        registry.get("get_status").expect("corpus tool").schema()["properties"],
        serde_json::json!({})
    );
    assert!(
        registry.get("set_due_date").expect("corpus tool").schema()["properties"]
            .get("due-date")
            .is_some()
    );
}

#[test]
fn rendering_is_deterministic() {
    // Two registries built separately: nothing cached is shared, and a `HashMap`
    // iteration order would differ between them.
    let first = corpus::registry();
    let second = corpus::registry();
    let mut differences = Vec::new();
    for (a, b) in first.iter().zip(second.iter()) {
        for dialect in Dialect::ALL {
            let text = |tool: &RegisteredTool| match tool.render(dialect) {
                Ok(value) => value.to_string(),
                Err(error) => error.to_string(),
            };
            let (one, two, again) = (text(a), text(b), text(a));
            if one != two || one != again {
                differences.push(format!("{} × {dialect:?}:\n{one}\n{two}", a.name));
            }
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

#[test]
fn lenient_dialects_render_the_whole_corpus() {
    let registry = corpus::registry();
    for dialect in LENIENT {
        let all = toolkit::render::render(registry.iter(), dialect)
            .unwrap_or_else(|error| panic!("{dialect:?}: {error}"));
        let one_by_one: Vec<Value> = registry
            .iter()
            .map(|tool| tool.render(dialect).expect("each tool renders"))
            .collect();
        assert_eq!(all, Value::Array(one_by_one), "{dialect:?}");
        let rendered = registry.render(dialect);
        assert_eq!(rendered.skipped, Vec::new(), "{dialect:?}");
        assert_eq!(rendered.to_value(), all, "{dialect:?}");
    }
}

#[test]
fn a_set_is_its_tools_cached_texts_joined() {
    let registry = corpus::registry();
    for dialect in Dialect::ALL {
        let texts: Vec<&str> = registry
            .iter()
            .filter_map(|tool| tool.render_json(dialect).ok())
            .collect();
        let rendered = toolkit::render::render_set(&registry, dialect);
        assert_eq!(
            rendered.json,
            format!("[{}]", texts.join(",")),
            "{dialect:?}"
        );
        // The cached text is the tool's rendering as compact JSON (in the key
        // order the renderer writes, which a parsed `Value` does not keep).
        for tool in &registry {
            if let (Ok(text), Ok(value)) = (tool.render_json(dialect), tool.render(dialect)) {
                let parsed: Value = serde_json::from_str(text).expect("the text is JSON");
                assert_eq!(parsed, value, "{} × {dialect:?}", tool.name);
                assert_eq!(
                    text.len(),
                    value.to_string().len(),
                    "{} × {dialect:?}",
                    tool.name
                );
                // Borrowed from the cache: the same bytes every time.
                assert!(std::ptr::eq(
                    text,
                    tool.render_json(dialect).expect("rendered")
                ));
            }
        }
    }
    let empty = toolkit::render::render_set(std::iter::empty(), Dialect::Mcp);
    assert_eq!((empty.json.as_str(), empty.skipped.len()), ("[]", 0));
}

#[test]
fn a_set_keeps_the_tools_that_render_and_names_each_that_does_not() {
    let registry = corpus::registry();
    let rendered = registry.render(Dialect::AnthropicStrict);
    let skipped: Vec<(&str, Dialect, &str)> = rendered
        .skipped
        .iter()
        .map(|error| (error.tool.as_str(), error.dialect, error.path.as_str()))
        .collect();
    // In name order, like the registry.
    assert_eq!(
        skipped,
        [
            ("create_trees", Dialect::AnthropicStrict, "$defs.Node"),
            ("set_counters", Dialect::AnthropicStrict, "counters"),
            ("set_optional_cells", Dialect::AnthropicStrict, "cells[]"),
            ("set_optional_quotas", Dialect::AnthropicStrict, "quotas[]"),
            ("set_position", Dialect::AnthropicStrict, "position"),
            ("set_quotas", Dialect::AnthropicStrict, "quotas"),
        ]
    );
    let names: Vec<String> = rendered
        .to_value()
        .as_array()
        .expect("an array")
        .iter()
        .map(|tool| tool["name"].as_str().expect("a name").to_owned())
        .collect();
    let expected: Vec<&str> = registry
        .iter()
        .map(|tool| tool.name)
        .filter(|name| !skipped.iter().any(|(skipped, _, _)| skipped == name))
        .collect();
    assert_eq!(names, expected);
    assert_eq!(names.len(), 26);

    // Insisting on all of them gives the first failure in the order given.
    let error = registry
        .render(Dialect::AnthropicStrict)
        .all_or_error()
        .expect_err("the corpus has maps and recursion");
    assert_eq!(error, rendered.skipped[0]);
    let error = toolkit::render::render(registry.iter().rev(), Dialect::AnthropicStrict)
        .expect_err("the corpus has maps and recursion");
    assert_eq!(error.tool, "set_quotas");
}

#[test]
fn a_set_is_offered_as_text_raw_value_and_tree() {
    #[derive(serde::Serialize)]
    struct ListTools {
        tools: Box<serde_json::value::RawValue>,
    }
    let registry = corpus::registry();
    let rendered = registry.render(Dialect::Mcp);
    assert!(rendered.is_complete());
    let value = rendered.to_value();
    let raw = rendered.clone().into_raw_value();
    assert_eq!(raw.get(), rendered.json);
    // Embedded in a request as it is, without a tree.
    let body = serde_json::to_string(&ListTools { tools: raw }).expect("serializes");
    assert_eq!(body, format!(r#"{{"tools":{}}}"#, rendered.json));
    let json = rendered.all_or_error().expect("complete");
    assert_eq!(serde_json::from_str::<Value>(&json).expect("JSON"), value);
}

/// Local date-times and times of day, whose schemars formats no provider accepts.
mod local_times {
    /// Set when a reminder fires.
    #[toolkit::tool(scope = shared, tier = auto)]
    pub(crate) fn set_reminder_time(
        /// The first time it fires.
        at: chrono::NaiveDateTime,
        /// The time of day it repeats at.
        daily: chrono::NaiveTime,
    ) -> String {
        format!("{at} {daily}")
    }
}

#[test]
fn local_times_say_their_format_in_every_dialect() {
    let registry =
        toolkit::Registry::new([local_times::set_reminder_time::definition()]).expect("one tool");
    let tool = registry.get("set_reminder_time").expect("registered");
    let mut problems = Vec::new();
    for dialect in Dialect::ALL {
        let rendered = tool
            .render(dialect)
            .unwrap_or_else(|error| panic!("{error}"));
        for violation in check(dialect, &rendered).into_iter().chain(check_preserves(
            dialect,
            &declared(tool),
            &rendered,
        )) {
            problems.push(format!("{dialect:?}: {violation}"));
        }
        let text = rendered.to_string();
        for said in [
            "The first time it fires.\\nFormat: a date and time without a time zone, `YYYY-MM-DDTHH:MM:SS`",
            "The time of day it repeats at.\\nFormat: a time of day without a time zone, `HH:MM:SS`",
        ] {
            if !text.contains(said) {
                problems.push(format!("{dialect:?}: no {said:?} in {text}"));
            }
        }
        if text.contains("partial-") {
            problems.push(format!("{dialect:?}: a partial-* format in {text}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // What the description says is what the tool takes.
    let ctx = Context::new();
    let call = |arguments: &str| futures_executor::block_on(tool.call(arguments, &ctx));
    assert_eq!(
        call(r#"{"at": "2026-11-23T09:30:00", "daily": "07:15:00"}"#).result(),
        Some(&Value::from("2026-11-23 09:30:00 07:15:00"))
    );
    assert!(matches!(
        call(r#"{"at": "2026-11-23", "daily": "07:15:00"}"#),
        Response::Error(_)
    ));
}

/// For Gemini `parameters`, an entry that may be `null` (`Vec<Option<T>>`) is
/// `T` made `nullable`: rendered as `T` is where it is used directly, or refused
/// with the same reason.
#[test]
fn gemini_parameters_take_a_nullable_entry_as_its_type_used_directly() {
    let registry = corpus::registry();
    let render = |name: &str| {
        registry
            .get(name)
            .expect("corpus tool")
            .render(Dialect::GeminiParameters)
    };
    let direct = render("create_shapes").unwrap_or_else(|error| panic!("{error}"));
    let optional = render("create_optional_shapes").unwrap_or_else(|error| panic!("{error}"));
    // The enum's own summary stays on the entry: the list's doc is beside the
    // `Option`, not beside the enum.
    let mut expected = direct["parameters"]["properties"]["shapes"]["items"].clone();
    expected["description"] = Value::from("A shape, tagged by its `kind`.");
    expected["nullable"] = Value::Bool(true);
    assert_eq!(
        optional["parameters"]["properties"]["shapes"]["items"],
        expected
    );
    assert_eq!(
        expected["anyOf"][0]["properties"]["kind"],
        serde_json::json!({"type": "string", "enum": ["circle"]})
    );

    let refusal = |name: &str| match render(name) {
        Ok(rendered) => panic!("{name} rendered: {rendered}"),
        Err(error) => error,
    };
    let refusals = [
        (
            "update_deadlines",
            "update_optional_deadlines",
            "deadlines[]",
            "property name `deadlines[].due-date` is not accepted by Gemini (letters, digits and `_`, not starting with a digit, at most 64); rename it with `#[serde(rename = \"...\")]`",
        ),
        (
            "set_quotas",
            "set_optional_quotas",
            "quotas[]",
            "a map (an object with free-form keys) cannot be expressed in Gemini `parameters`, which has no `additionalProperties`; use a `Vec` of key/value structs, or GeminiJsonSchema",
        ),
        (
            "set_position",
            "set_optional_cells",
            "cells[]",
            "a tuple cannot be expressed in Gemini `parameters`, which has no `prefixItems`; use a struct",
        ),
    ];
    for (direct, optional, path, reason) in refusals {
        let error = refusal(optional);
        assert_eq!((error.path.as_str(), error.reason.as_str()), (path, reason));
        assert_eq!(refusal(direct).reason, reason, "{direct}");
    }
}

//! Properties of the assistant's tools over generated input (`proptest`), bounded
//! so the suite stays fast (256 cases each, small values):
//!
//! - any argument text, for any name, gives exactly one well-formed response;
//! - a call that fails leaves the stores exactly as they were;
//! - whatever a dialect's rendered schema admits, the tool's typed parse accepts.
//!
//! The fuzz targets in `fuzz/` push the first two much further (guide, `contributing`,
//! "Fuzzing"); these keep them true on every `cargo test`.

use std::sync::{Arc, LazyLock};

use example_assistant::AssistantState;
use futures_executor::block_on;
use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::{Config, RngSeed};
use serde_json::{Map, Value, json};
use toolkit::{Context, Dialect, Response, Tier, registry};

fn config() -> Config {
    let default = Config::default();
    Config {
        cases: 256,
        // The same cases on every run, so CI is deterministic; set
        // `PROPTEST_RNG_SEED` to explore others.
        rng_seed: match default.rng_seed {
            RngSeed::Random => RngSeed::Fixed(7),
            seed @ RngSeed::Fixed(_) => seed,
        },
        // Failures are reported with their shrunk input; nothing is persisted
        // next to the sources.
        failure_persistence: None,
        ..default
    }
}

/// Every name and alias of the assistant's tools.
fn names() -> Vec<&'static str> {
    registry()
        .iter()
        .flat_map(|tool| std::iter::once(tool.name).chain(tool.aliases.iter().copied()))
        .collect()
}

/// Whether `response` is well formed: a result is `{"result": ...}` and an error
/// `{"error": {...}}` with a `snake_case` `kind` matching its variant and a
/// non-empty `message`, nothing beside; no tool panicked. Any other response
/// (a confirmation preview, a pending approval) is a non-empty object.
fn well_formed(response: &Response) -> Result<(), String> {
    let json = response.to_json();
    let members = json
        .as_object()
        .ok_or_else(|| format!("not an object: {json}"))?;
    if let Some(value) = response.result() {
        if members.len() != 1 || json.get("result") != Some(value) {
            return Err(format!("not one `result`: {json}"));
        }
    } else if let Some(error) = response.error() {
        let body = &json["error"];
        let kind = body["kind"].as_str().unwrap_or("");
        let message = body["message"].as_str().unwrap_or("");
        if members.len() != 1 || !body.is_object() {
            return Err(format!("not one `error`: {json}"));
        }
        if kind != error.kind()
            || kind.is_empty()
            || kind.contains(|c: char| !c.is_ascii_lowercase() && c != '_')
        {
            return Err(format!("bad kind: {json}"));
        }
        if kind == "panicked" {
            return Err(format!("a tool panicked: {json}"));
        }
        if message.trim().is_empty() {
            return Err(format!("no message: {json}"));
        }
    } else if members.is_empty() {
        return Err(format!("an empty response: {json}"));
    }
    Ok(())
}

// --- any text --------------------------------------------------------------------

/// Field names the tools use, so generated objects sometimes get past the parse.
const KEYS: &[&str] = &[
    "id",
    "ids",
    "tasks",
    "title",
    "done",
    "priority",
    "reminders",
    "text",
    "at",
    "task_id",
    "memories",
    "content",
    "tags",
    "entities",
    "name",
    "kind",
    "query",
    "limit",
    "from",
    "to",
    "relation",
    "schedules",
    "prompt",
    "recurrence",
    "time",
    "day",
    "instructions",
    "mode",
    "include_done",
    "all_projects",
    "notes",
    "due",
];

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..10).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e3f64..1e3).prop_map(Value::from),
        "[a-z :0-9]{0,8}".prop_map(Value::from),
        prop::sample::select(KEYS).prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..4).prop_map(|pairs| {
                Value::Object(
                    pairs
                        .into_iter()
                        .map(|(key, value)| (key.to_owned(), value))
                        .collect(),
                )
            }),
        ]
    })
}

/// Argument text: JSON, JSON cut short, or any text at all.
fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => any_json().prop_map(|value| value.to_string()),
        1 => (any_json(), any::<prop::sample::Index>()).prop_map(|(value, cut)| {
            let text = value.to_string();
            let mut end = cut.index(text.len() + 1);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text[..end].to_owned()
        }),
        1 => "\\PC{0,24}",
    ]
}

fn any_name() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::sample::select(names()).prop_map(str::to_owned),
        1 => "[a-z_]{0,16}",
        1 => "\\PC{0,8}",
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_text_gives_one_well_formed_response(name in any_name(), text in any_text()) {
        let ctx = Context::new().with(AssistantState::new());
        let response = block_on(registry().call(&name, &text, &ctx));
        prop_assert_eq!(well_formed(&response), Ok(()), "{} {}", name, text);
    }
}

// --- failed calls change nothing ---------------------------------------------------

/// A state with something of everything: 3 tasks (one done), 2 reminders, 2
/// memories with entities and a link, a schedule, a project and instructions.
fn seeded() -> (AssistantState, Context) {
    let state = AssistantState::new();
    let ctx = Context::new().with(state.clone());
    let setup = [
        (
            "create_tasks",
            json!({"tasks": [{"title": "A"}, {"title": "B"}, {"title": "C"}]}),
        ),
        ("update_tasks", json!({"tasks": [{"id": 2, "done": true}]})),
        (
            "create_reminders",
            json!({"reminders": [
            {"text": "R1", "at": "2025-01-06T10:00:00Z", "task_id": 1},
            {"text": "R2", "at": "2025-01-07T10:00:00Z"}]}),
        ),
        (
            "create_memories",
            json!({"memories": [
            {"content": "Ada likes tea", "entities": [{"name": "Ada", "kind": "person"}]},
            {"content": "Paris in May", "tags": ["trip"], "entities": [{"name": "Paris"}, {"name": "Ada"}]}]}),
        ),
        ("link_memories", json!({"from": 1, "to": 2})),
        (
            "create_schedules",
            json!({"schedules": [{"prompt": "P", "recurrence": {"kind": "hourly"}}]}),
        ),
        ("set_project", json!({"name": "Home"})),
        ("update_instructions", json!({"instructions": "Be brief."})),
    ];
    for (name, arguments) in setup {
        // The user agreed to each `confirm` call of the setup.
        let arguments = agreed(name, arguments);
        let response = block_on(registry().call_value(name, &arguments, &ctx));
        assert!(response.is_success(), "{name}: {response:?}");
    }
    (state, ctx)
}

/// `arguments` as the model sends them once the user agreed: with
/// `confirmed: true` when `name` is a `confirm` tool.
fn agreed(name: &str, mut arguments: Value) -> Value {
    let tier = registry().get(name).map(|tool| tool.tier);
    if let (Some(Tier::Confirm), Some(members)) = (tier, arguments.as_object_mut()) {
        members.insert("confirmed".to_owned(), Value::Bool(true));
    }
    arguments
}

fn id() -> BoxedStrategy<Value> {
    prop_oneof![8 => (0u32..6).prop_map(Value::from), 1 => Just(json!(-1)), 1 => Just(json!("1"))]
        .boxed()
}

fn text() -> BoxedStrategy<Value> {
    prop::sample::select(vec![
        "",
        " ",
        "x",
        "Ada",
        "07:30",
        "25:00",
        "2025-01-06T10:00:00Z",
    ])
    .prop_map(Value::from)
    .boxed()
}

fn one_of(words: &'static [&'static str]) -> BoxedStrategy<Value> {
    prop::sample::select(words).prop_map(Value::from).boxed()
}

/// An object with `required` members always and `optional` ones half the time.
fn object(
    required: Vec<(&'static str, BoxedStrategy<Value>)>,
    optional: Vec<(&'static str, BoxedStrategy<Value>)>,
) -> BoxedStrategy<Value> {
    let required: Vec<_> = required
        .into_iter()
        .map(|(key, value)| value.prop_map(move |value| Some((key, value))).boxed())
        .collect();
    let optional: Vec<_> = optional
        .into_iter()
        .map(|(key, value)| prop::option::of(value.prop_map(move |value| (key, value))).boxed())
        .collect();
    (required, optional)
        .prop_map(|(required, optional)| {
            Value::Object(
                required
                    .into_iter()
                    .chain(optional)
                    .flatten()
                    .map(|(key, value)| (key.to_owned(), value))
                    .collect(),
            )
        })
        .boxed()
}

fn list(item: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    prop::collection::vec(item, 0..4)
        .prop_map(Value::Array)
        .boxed()
}

/// Calls shaped like the real ones, with ids that may not exist, blank texts
/// and bad times, so many pass the parse and fail inside the tool, often after
/// the first items of a list were fine.
fn call_shaped_like_a_model() -> BoxedStrategy<(&'static str, Value)> {
    let tools: Vec<(&'static str, BoxedStrategy<Value>)> = vec![
        (
            "create_tasks",
            object(
                vec![(
                    "tasks",
                    list(object(
                        vec![("title", text())],
                        vec![("priority", one_of(&["low", "high"]))],
                    )),
                )],
                vec![],
            ),
        ),
        (
            "update_tasks",
            object(
                vec![(
                    "tasks",
                    list(object(
                        vec![("id", id())],
                        vec![
                            ("title", text()),
                            ("done", any::<bool>().prop_map(Value::from).boxed()),
                        ],
                    )),
                )],
                vec![],
            ),
        ),
        ("delete_tasks", object(vec![("ids", list(id()))], vec![])),
        (
            "create_reminders",
            object(
                vec![(
                    "reminders",
                    list(object(
                        vec![("text", text()), ("at", text())],
                        vec![("task_id", id())],
                    )),
                )],
                vec![],
            ),
        ),
        (
            "delete_reminders",
            object(vec![("ids", list(id()))], vec![]),
        ),
        (
            "create_schedules",
            object(
                vec![(
                    "schedules",
                    list(object(
                        vec![
                            ("prompt", text()),
                            (
                                "recurrence",
                                object(
                                    vec![
                                        ("kind", one_of(&["daily", "weekdays"])),
                                        ("time", text()),
                                    ],
                                    vec![],
                                ),
                            ),
                        ],
                        vec![],
                    )),
                )],
                vec![],
            ),
        ),
        (
            "delete_schedules",
            object(vec![("ids", list(id()))], vec![]),
        ),
        (
            "create_memories",
            object(
                vec![(
                    "memories",
                    list(object(
                        vec![("content", text())],
                        vec![
                            ("tags", list(text())),
                            (
                                "entities",
                                list(object(
                                    vec![("name", text())],
                                    vec![("kind", one_of(&["person", "place"]))],
                                )),
                            ),
                        ],
                    )),
                )],
                vec![],
            ),
        ),
        (
            "update_memories",
            object(
                vec![(
                    "memories",
                    list(object(
                        vec![("id", id())],
                        vec![("content", text()), ("tags", list(text()))],
                    )),
                )],
                vec![],
            ),
        ),
        ("delete_memories", object(vec![("ids", list(id()))], vec![])),
        (
            "link_memories",
            object(
                vec![("from", id()), ("to", id())],
                vec![("relation", one_of(&["supports", "updates"]))],
            ),
        ),
        ("set_project", object(vec![], vec![("name", text())])),
        (
            "update_instructions",
            object(
                vec![("instructions", text())],
                vec![("mode", one_of(&["append", "replace"]))],
            ),
        ),
        (
            "get_tasks",
            object(vec![], vec![("id", id()), ("limit", id())]),
        ),
        ("get_memories", object(vec![], vec![("id", id())])),
        ("get_entities", object(vec![], vec![("id", id())])),
        ("search_memories", object(vec![("query", text())], vec![])),
        ("get_gmail", object(vec![], vec![("id", text())])),
    ];
    Union::new(tools.into_iter().map(|(name, arguments)| {
        arguments
            .prop_map(move |arguments| (name, arguments))
            .boxed()
    }))
    .boxed()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_failed_call_changes_nothing(
        (name, arguments) in call_shaped_like_a_model(),
        approved in any::<bool>(),
    ) {
        let (state, ctx) = seeded();
        let before = state.snapshot();
        // Half the calls go as after the user's yes: a `confirm` tool gets
        // `confirmed: true` and an `approve` tool runs through the registered
        // tool (no tier), so their own failures are reached, not only the
        // preview and the refusal, which must change nothing either.
        let tool = registry().get(name).expect("registered");
        let response = if approved && tool.tier == Tier::Approve {
            block_on(tool.call(&arguments.to_string(), &ctx))
        } else if approved {
            block_on(registry().call_value(name, &agreed(name, arguments.clone()), &ctx))
        } else {
            block_on(registry().call_value(name, &arguments, &ctx))
        };
        prop_assert_eq!(well_formed(&response), Ok(()));
        if !response.is_success() {
            prop_assert_eq!(state.snapshot(), before, "{} {} -> {:?}", name, arguments, response);
        }
    }

    #[test]
    fn a_failed_call_of_any_text_changes_nothing(name in any_name(), text in any_text()) {
        let (state, ctx) = seeded();
        let before = state.snapshot();
        let response = block_on(registry().call(&name, &text, &ctx));
        if !response.is_success() {
            prop_assert_eq!(state.snapshot(), before, "{} {} -> {:?}", name, text, response);
        }
    }
}

// --- what a schema admits, the tool accepts ------------------------------------------

/// The arguments' schema inside a rendered tool.
fn arguments_schema(rendered: &Value) -> Value {
    let tool = rendered.get("function").unwrap_or(rendered);
    [
        "parameters",
        "input_schema",
        "inputSchema",
        "parametersJsonSchema",
    ]
    .iter()
    .find_map(|key| tool.get(*key))
    .cloned()
    // Gemini `parameters` leaves the key out for a tool without arguments.
    .unwrap_or_else(|| json!({"type": "object", "properties": {}, "additionalProperties": false}))
}

/// Gemini `parameters` is OpenAPI: `nullable: true` means "or null". Rewritten
/// as a JSON Schema type union so a JSON Schema validator reads it the same way.
fn as_json_schema(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            if object.remove("nullable") == Some(Value::Bool(true)) {
                match object.get_mut("type") {
                    Some(Value::String(one)) => {
                        let one = one.clone();
                        object.insert("type".to_owned(), json!([one, "null"]));
                    }
                    _ => {
                        let inner = Value::Object(std::mem::take(object));
                        object.insert("anyOf".to_owned(), json!([inner, {"type": "null"}]));
                    }
                }
            }
            for value in object.values_mut() {
                as_json_schema(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(as_json_schema),
        _ => {}
    }
}

/// Copies `minimum` from the canonical schema onto the same places of a
/// rendering whose dialect dropped it, following the canonical `$ref`s the
/// rendering wrote in place.
fn restore_minimums(schema: &mut Value, canonical: &Value, root: &Value) {
    restore(schema, canonical, root, "minimum");
}

/// Copies `keyword` from the canonical schema onto the same places of a
/// rendering whose dialect dropped it, following the canonical `$ref`s the
/// rendering wrote in place.
fn restore(schema: &mut Value, canonical: &Value, root: &Value, keyword: &str) {
    let canonical = match canonical.get("$ref").and_then(Value::as_str) {
        Some(reference) if schema.get("$ref").is_none() => match resolve(root, reference) {
            Some(target) => target,
            None => return,
        },
        _ => canonical,
    };
    if let (Value::Object(object), Value::Object(original)) = (&mut *schema, canonical) {
        if let Some(kept) = original.get(keyword) {
            object
                .entry(keyword.to_owned())
                .or_insert_with(|| kept.clone());
        }
        for (key, value) in object.iter_mut() {
            if let Some(original) = original.get(key) {
                restore(value, original, root, keyword);
            }
        }
    } else if let (Value::Array(items), Value::Array(originals)) = (schema, canonical) {
        for (item, original) in items.iter_mut().zip(originals) {
            restore(item, original, root, keyword);
        }
    }
}

/// Marks every object schema closed (`additionalProperties: false`).
fn close_objects(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            if object.get("type") == Some(&json!("object")) {
                object.insert("additionalProperties".to_owned(), Value::Bool(false));
            }
            object.values_mut().for_each(close_objects);
        }
        Value::Array(items) => items.iter_mut().for_each(close_objects),
        _ => {}
    }
}

fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    reference
        .strip_prefix("#/")?
        .split('/')
        .try_fold(root, |node, token| {
            node.get(token.replace("~1", "/").replace("~0", "~"))
        })
}

/// Values `node` (inside `root`) admits, built from its keywords.
fn admitted(root: &Arc<Value>, node: &Value, depth: usize) -> BoxedStrategy<Value> {
    let Value::Object(object) = node else {
        return Just(json!({})).boxed();
    };
    if depth > 8 {
        return Just(Value::Null).boxed();
    }
    if let Some(Value::String(reference)) = object.get("$ref") {
        return match resolve(root, reference) {
            Some(target) => admitted(root, &target.clone(), depth + 1),
            None => Just(Value::Null).boxed(),
        };
    }
    if let Some(value) = object.get("const") {
        return Just(value.clone()).boxed();
    }
    if let Some(Value::Array(values)) = object.get("enum") {
        return prop::sample::select(values.clone()).boxed();
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = object.get(union) {
            return Union::new(
                branches
                    .iter()
                    .map(|branch| admitted(root, branch, depth + 1)),
            )
            .boxed();
        }
    }
    let types: Vec<String> = match object.get("type") {
        Some(Value::String(one)) => vec![one.clone()],
        Some(Value::Array(many)) => many
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => vec![],
    };
    if types.is_empty() {
        return any_json().boxed();
    }
    Union::new(types.iter().map(|kind| typed(root, object, kind, depth))).boxed()
}

fn typed(
    root: &Arc<Value>,
    object: &Map<String, Value>,
    kind: &str,
    depth: usize,
) -> BoxedStrategy<Value> {
    let number = |key: &str| object.get(key).and_then(Value::as_i64);
    match kind {
        "boolean" => any::<bool>().prop_map(Value::from).boxed(),
        "integer" => {
            let low = number("minimum").unwrap_or(-5);
            let high = number("maximum").unwrap_or(low.saturating_add(40)).max(low);
            (low..=high).prop_map(Value::from).boxed()
        }
        "number" => (-100.0f64..100.0).prop_map(Value::from).boxed(),
        "string" => match object.get("format").and_then(Value::as_str) {
            Some("date-time") => Just(Value::from("2025-01-06T10:00:00Z")).boxed(),
            Some("date") => Just(Value::from("2025-01-06")).boxed(),
            _ => "[a-zA-Z0-9 :]{0,6}".prop_map(Value::from).boxed(),
        },
        "array" => {
            let low = usize::try_from(number("minItems").unwrap_or(0)).unwrap_or(0);
            let high = usize::try_from(number("maxItems").unwrap_or(3))
                .unwrap_or(3)
                .clamp(low, low + 3);
            let item = object.get("items").map_or_else(
                || any_json().boxed(),
                |item| admitted(root, item, depth + 1),
            );
            prop::collection::vec(item, low..=high)
                .prop_map(Value::Array)
                .boxed()
        }
        "object" => {
            let empty = Map::new();
            let properties = object
                .get("properties")
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            let required: Vec<&str> = object
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let members: Vec<BoxedStrategy<Option<(String, Value)>>> = properties
                .iter()
                .map(|(name, schema)| {
                    let name = name.clone();
                    let value = admitted(root, schema, depth + 1);
                    if required.contains(&name.as_str()) {
                        value
                            .prop_map(move |value| Some((name.clone(), value)))
                            .boxed()
                    } else {
                        prop::option::of(value.prop_map(move |value| (name.clone(), value))).boxed()
                    }
                })
                .collect();
            // Where the schema leaves an object open, it admits a member it doesn't
            // name; so must the tool.
            let open = !matches!(object.get("additionalProperties"), Some(Value::Bool(false)));
            let extra = if open {
                prop::option::weighted(0.2, Just(("an_extra_member".to_owned(), json!(1)))).boxed()
            } else {
                Just(None).boxed()
            };
            (members, extra)
                .prop_map(|(members, extra)| {
                    Value::Object(members.into_iter().flatten().chain(extra).collect())
                })
                .boxed()
        }
        // `null`, and types no schema of ours has.
        _ => Just(Value::Null).boxed(),
    }
}

/// One assistant tool in one dialect that renders it: the arguments' schema and
/// a validator for it.
struct Case {
    tool: &'static str,
    dialect: Dialect,
    schema: Arc<Value>,
    validator: jsonschema::Validator,
}

static CASES: LazyLock<Vec<Case>> = LazyLock::new(|| {
    let mut cases = Vec::new();
    for tool in registry() {
        for dialect in Dialect::ALL {
            let Ok(rendered) = tool.render(dialect) else {
                continue;
            };
            let mut schema = arguments_schema(&rendered);
            if dialect == Dialect::GeminiParameters {
                as_json_schema(&mut schema);
            }
            let validator = jsonschema::validator_for(&schema).unwrap_or_else(|error| {
                panic!("{} × {dialect}: not a JSON Schema: {error}", tool.name)
            });
            if dialect == Dialect::GeminiParameters {
                // Gemini `parameters` has no `additionalProperties`, so it cannot
                // say an object is closed; an extra member is refused with
                // `unknown_field` (a documented limit of that dialect, guide
                // "Schemas and provider dialects"). Generate none there.
                close_objects(&mut schema);
            }
            if dialect == Dialect::AnthropicStrict {
                // Anthropic strict accepts no numeric bounds, so its schema
                // admits `-1` where the tool takes a `u32`: the bound is said in
                // the description instead ("Must be at least 0.") and dispatch
                // refuses `-1` with `invalid_arguments` (guide "Integer
                // bounds", RELIABILITY.md). A bound in words is not one a
                // validator reads, so generate what the canonical schema admits.
                restore_minimums(&mut schema, tool.schema(), tool.schema());
            }
            if !matches!(
                dialect,
                Dialect::OpenAiChatStrict
                    | Dialect::OpenAiResponsesStrict
                    | Dialect::AnthropicStrict
            ) {
                // The lenient dialects leave out a lone `minimum: 0` and
                // `additionalProperties: false` (guide, "Schemas and provider
                // dialects": they bind nothing a model plausibly sends), and
                // dispatch refuses what they would have refused. Generate what the
                // canonical schema admits there.
                restore_minimums(&mut schema, tool.schema(), tool.schema());
                restore(
                    &mut schema,
                    tool.schema(),
                    tool.schema(),
                    "additionalProperties",
                );
            }
            cases.push(Case {
                tool: tool.name,
                dialect,
                schema: Arc::new(schema),
                validator,
            });
        }
    }
    cases
});

/// A case and arguments its schema admits.
fn admitted_case() -> impl Strategy<Value = (usize, Value)> {
    let strategies: Vec<BoxedStrategy<Value>> = CASES
        .iter()
        .map(|case| admitted(&case.schema, &case.schema, 0))
        .collect();
    (0..strategies.len()).prop_flat_map(move |index| {
        strategies[index]
            .clone()
            .prop_map(move |arguments| (index, arguments))
    })
}

#[test]
fn every_tool_renders_in_most_dialects() {
    // The assistant's types are plain: every tool renders in every dialect, so
    // the property below covers all 23 tools x 9 dialects.
    assert_eq!(CASES.len(), registry().len() * Dialect::ALL.len());
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn what_a_rendered_schema_admits_the_tool_accepts((index, arguments) in admitted_case()) {
        let case = &CASES[index];
        // The generator follows the schema's main keywords; the validator has the
        // last word on what the schema admits.
        prop_assume!(case.validator.is_valid(&arguments));
        let ctx = Context::new().with(AssistantState::new());
        let tool = registry().get(case.tool).expect("registered");
        let response = block_on(tool.call(&arguments.to_string(), &ctx));
        if let Response::Error(error) = &response {
            prop_assert!(
                !matches!(error.kind(), "malformed_json" | "invalid_arguments" | "unknown_field"),
                "{} × {}: the schema admits {}, the tool rejects it: {}",
                case.tool, case.dialect, arguments, error
            );
        }
    }
}

use super::*;
use crate::{Context, Location, Response, Scope, Tier};
use serde_json::{Map, json};

fn no_schema() -> schemars::Schema {
    schemars::Schema::default()
}

fn no_output() -> Option<schemars::Schema> {
    None
}

fn no_call<'a>(_: &'a str, _: &'a Context) -> crate::CallFuture<'a> {
    Box::pin(async { Response::Result(Value::Null) })
}

const TOOL: Tool = Tool {
    name: "update_tasks",
    description: "Update tasks.",
    scope: Scope::Shared,
    tier: Tier::Confirm,
    always: false,
    group: None,
    aliases: &[],
    guidance: None,
    title: Some("Update tasks"),
    gate: None,
    tags: &[],
    params: &[],
    location: Location {
        file: "x.rs",
        line: 1,
        module_path: "x",
    },
    schema: no_schema,
    output_schema: no_output,
    dispatch: crate::Dispatch::Async(no_call),
    bindings: &[],
    validate: |_| Ok(()),
};

fn canonical() -> Value {
    json!({
        "type": "object",
        "properties": {
            "id": {"type": "integer", "minimum": 0, "description": "The task."},
            "note": {"type": "string", "description": "A note.", "maxLength": 200},
            "priority": {"description": "How urgent.", "$ref": "#/$defs/Priority"},
            "labels": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "description": "Labels."},
            "limit": {"type": "integer", "default": 20, "description": "At most this many."}
        },
        "required": ["id"],
        "additionalProperties": false,
        "$defs": {
            "Priority": {"type": "string", "enum": ["low", "high"], "description": "- `low`: Later.\n- `high`: Now."}
        }
    })
}

fn schema_of(dialect: Dialect, canonical: &Value) -> Result<Value, RenderError> {
    build(&TOOL, canonical, dialect)
}

#[test]
fn openai_strict_requires_everything_and_unions_optional_with_null() {
    let rendered = schema_of(Dialect::OpenAiChatStrict, &canonical()).unwrap();
    assert_eq!(
        rendered,
        json!({"type": "function", "function": {
            "name": "update_tasks",
            "description": "Update tasks.",
            "parameters": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer", "minimum": 0, "description": "The task."},
                    "note": {"type": ["string", "null"], "description": "A note."},
                    "priority": {
                        "description": "How urgent.\n- `low`: Later.\n- `high`: Now.",
                        "type": ["string", "null"],
                        "enum": ["low", "high", null]
                    },
                    "labels": {"type": ["array", "null"], "items": {"type": "string"}, "description": "Labels."},
                    "limit": {"type": ["integer", "null"], "description": "At most this many. Default: 20."}
                },
                "required": ["id", "note", "priority", "labels", "limit"],
                "additionalProperties": false
            },
            "strict": true
        }})
    );
}

#[test]
fn definitions_used_twice_stay_shared_and_strict_wraps_their_descriptions() {
    let canonical = json!({
        "type": "object",
        "properties": {
            "from": {"description": "Start.", "$ref": "#/$defs/Day"},
            "to": {"$ref": "#/$defs/Day"}
        },
        "required": ["from", "to"],
        "additionalProperties": false,
        "$defs": {"Day": {"type": "string", "enum": ["mon", "tue"]}}
    });
    let lenient = schema_of(Dialect::OpenAiChat, &canonical).unwrap();
    assert_eq!(lenient["function"]["parameters"], canonical);
    let strict = schema_of(Dialect::OpenAiChatStrict, &canonical).unwrap();
    assert_eq!(
        strict["function"]["parameters"]["properties"],
        json!({
            "from": {"description": "Start.", "anyOf": [{"$ref": "#/$defs/Day"}]},
            "to": {"$ref": "#/$defs/Day"}
        })
    );
}

#[test]
fn gemini_parameters_inlines_definitions_and_keeps_both_descriptions() {
    let rendered = schema_of(Dialect::GeminiParameters, &canonical()).unwrap();
    assert_eq!(
        rendered["parameters"],
        json!({
            "type": "object",
            "properties": {
                "id": {"type": "integer", "minimum": 0, "description": "The task."},
                "note": {"type": "string", "description": "A note.", "maxLength": 200},
                "priority": {"description": "How urgent.\n- `low`: Later.\n- `high`: Now.", "type": "string", "enum": ["low", "high"]},
                "labels": {"type": "array", "items": {"type": "string"}, "description": "Labels."},
                "limit": {"type": "integer", "default": 20, "description": "At most this many."}
            },
            "required": ["id"]
        })
    );
}

#[test]
fn anthropic_strict_drops_bounds_and_closes_objects() {
    let rendered = schema_of(Dialect::AnthropicStrict, &canonical()).unwrap();
    assert_eq!(rendered["strict"], json!(true));
    let properties = &rendered["input_schema"]["properties"];
    assert_eq!(
        properties["id"],
        json!({"type": "integer", "description": "The task."})
    );
    assert_eq!(
        properties["note"],
        json!({"type": "string", "description": "A note."})
    );
}

#[test]
fn maps_and_recursion_are_errors_in_the_dialects_that_cannot_say_them() {
    let map = json!({"type": "object", "properties": {
        "counts": {"type": "object", "additionalProperties": {"type": "integer"}, "description": "Counts."}
    }, "additionalProperties": false});
    let error = schema_of(Dialect::OpenAiChatStrict, &map).unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool `update_tasks` cannot be rendered for openai_chat_strict: at `counts`: a map (an object with free-form keys) cannot be expressed in OpenAI strict mode, where every object lists its properties; use a `Vec` of key/value structs"
    );
    assert!(schema_of(Dialect::OpenAiChat, &map).is_ok());

    let tree = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}});
    let error = schema_of(Dialect::GeminiParameters, &tree).unwrap_err();
    assert_eq!(
        (error.path.as_str(), error.dialect),
        ("$defs.Node", Dialect::GeminiParameters)
    );
    assert!(schema_of(Dialect::AnthropicStrict, &tree).is_err());
    assert!(schema_of(Dialect::OpenAiChatStrict, &tree).is_ok());
}

#[test]
fn openai_strict_counts_nesting_through_shared_definitions() {
    // Level{i} has two properties referring to Level{i+1}: shared definitions
    // stay behind `$ref`, so the nesting is only seen by following them.
    let chain = |levels: usize| {
        let mut defs = Map::new();
        for level in 0..levels {
            let next = json!({"$ref": format!("#/$defs/Level{}", level + 1)});
            let properties = if level + 1 == levels {
                json!({"leaf": {"type": "string"}})
            } else {
                json!({"a": next.clone(), "b": next})
            };
            defs.insert(
                format!("Level{level}"),
                json!({"type": "object", "properties": properties, "required": ["a"]}),
            );
        }
        json!({
            "type": "object",
            "properties": {"top": {"$ref": "#/$defs/Level0"}, "other": {"$ref": "#/$defs/Level0"}},
            "$defs": defs,
        })
    };
    assert!(schema_of(Dialect::OpenAiChatStrict, &chain(9)).is_ok());
    let error = schema_of(Dialect::OpenAiChatStrict, &chain(10)).unwrap_err();
    assert_eq!(
        error.reason,
        "objects nest 11 levels deep; OpenAI strict mode accepts at most 10"
    );
}

#[test]
fn mcp_annotations_follow_the_verb() {
    let rendered = schema_of(Dialect::Mcp, &canonical()).unwrap();
    assert_eq!(rendered["title"], json!("Update tasks"));
    assert_eq!(
        rendered["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true})
    );
    assert_eq!(
        rendered["_meta"],
        json!({"toolkit/tier": "confirm", "toolkit/scope": "shared"})
    );
    assert_eq!(rendered.get("outputSchema"), None);
}

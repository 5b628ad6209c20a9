use super::*;
use crate::context::Context;
use crate::declaration::{Location, Scope, Tier};
use crate::response::Response;
use serde_json::{Map, json};

fn no_schema() -> schemars::Schema {
    schemars::Schema::default()
}

fn no_output() -> Option<schemars::Schema> {
    None
}

fn no_call<'a>(_: &'a str, _: &'a Context) -> crate::tool::CallFuture<'a> {
    Box::pin(async { Response::Result(Value::Null) })
}

const TOOL: Tool = Tool {
    name: "update_tasks",
    description: "Update tasks.",
    scope: Scope::Shared,
    tier: Tier::Confirm,
    task: crate::declaration::TaskSupport::Forbidden,
    always: false,
    asks_first: false,
    group: None,
    aliases: &[],
    guidance: None,
    title: Some("Update tasks"),
    gate: None,
    tags: &[],
    examples: &[],
    asked_as: &[],
    params: &[],
    location: Location {
        file: "x.rs",
        line: 1,
        module_path: "x",
    },
    schema: no_schema,
    output_schema: no_output,
    dispatch: crate::tool::Dispatch::Async(no_call),
    bindings: &[],
    quota: None,
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
    build(&TOOL, canonical, None, dialect)
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
                "required": ["id", "labels", "limit", "note", "priority"],
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
    assert_eq!(
        lenient["function"]["parameters"],
        json!({
            "type": "object",
            "properties": {
                "from": {"description": "Start.", "$ref": "#/$defs/Day"},
                "to": {"$ref": "#/$defs/Day"}
            },
            "required": ["from", "to"],
            "$defs": {"Day": {"enum": ["mon", "tue"]}}
        })
    );
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
                "id": {"type": "integer", "description": "The task."},
                "note": {"type": "string", "description": "A note.", "maxLength": 200},
                "priority": {"description": "How urgent.\n- `low`: Later.\n- `high`: Now.", "type": "string", "enum": ["low", "high"]},
                "labels": {"type": "array", "items": {"type": "string"}, "description": "Labels."},
                "limit": {"type": "integer", "default": 20, "description": "At most this many."}
            },
            "required": ["id"]
        })
    );
}

/// Anthropic strict mode takes no numeric or length bounds: each one dropped is
/// said in the description (dispatch still refuses `-1` for a `u32`).
#[test]
fn anthropic_strict_states_dropped_bounds_in_words_and_closes_objects() {
    let rendered = schema_of(Dialect::AnthropicStrict, &canonical()).unwrap();
    assert_eq!(rendered["strict"], json!(true));
    let properties = &rendered["input_schema"]["properties"];
    assert_eq!(
        properties["id"],
        json!({"type": "integer", "description": "The task. Must be at least 0."})
    );
    assert_eq!(
        properties["note"],
        json!({"type": "string", "description": "A note. Must be at most 200 characters long."})
    );
    let bounded = json!({"type": "object", "properties": {
        "count": {"type": "integer", "minimum": 1, "maximum": 10, "multipleOf": 2},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.5, "description": "A share."},
        "code": {"type": "string", "minLength": 1, "maxLength": 1, "description": "One letter."},
        "tags": {"type": "array", "items": {"type": "string", "minLength": 2}, "minItems": 2, "maxItems": 5},
        "some": {"type": "array", "items": {"type": "string"}, "minItems": 1}
    }, "additionalProperties": false});
    assert_eq!(
        schema_of(Dialect::AnthropicStrict, &bounded).unwrap()["input_schema"],
        json!({"type": "object", "properties": {
            "count": {"type": "integer", "description": "Must be at least 1. Must be at most 10. Must be a multiple of 2."},
            "ratio": {"type": "number", "description": "A share. Must be greater than 0. Must be less than 0.5."},
            "code": {"type": "string", "description": "One letter. Must be at least 1 character long. Must be at most 1 character long."},
            "tags": {"type": "array", "items": {"type": "string", "description": "Must be at least 2 characters long."}, "description": "Must have at most 5 items. Must have at least 2 items."},
            "some": {"type": "array", "items": {"type": "string"}, "minItems": 1}
        }, "additionalProperties": false})
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

/// A tool that may be a task says how under `_meta["toolkit/task"]`, in the
/// words of 2025-11-25's `execution.taskSupport`; one that may not says nothing.
#[test]
fn mcp_meta_says_whether_a_call_may_be_a_task() {
    for (task, expected) in [
        (
            crate::declaration::TaskSupport::Optional,
            json!({"toolkit/tier": "auto", "toolkit/scope": "shared", "toolkit/task": "optional"}),
        ),
        (
            crate::declaration::TaskSupport::Required,
            json!({"toolkit/tier": "auto", "toolkit/scope": "shared", "toolkit/task": "required"}),
        ),
        (
            crate::declaration::TaskSupport::Forbidden,
            json!({"toolkit/tier": "auto", "toolkit/scope": "shared"}),
        ),
    ] {
        let tool = Tool {
            tier: Tier::Auto,
            task,
            ..TOOL
        };
        let rendered = build(&tool, &canonical(), None, Dialect::Mcp).unwrap();
        assert_eq!(rendered["_meta"], expected, "{task}");
    }
}

/// What carries no meaning for the model is left out of the lenient dialects: no
/// `strict: false` in Chat Completions (false is its default), no
/// `additionalProperties: false`, no lone `minimum: 0`, no `type` beside a string
/// `enum`, no `default` that is what absence means; the strict dialects, a
/// `minimum: 0` that is half of a range, a map's value schema and a default with
/// content keep theirs.
#[test]
fn lenient_dialects_leave_out_what_binds_nothing_for_the_model() {
    let canonical = json!({
        "type": "object",
        "properties": {
            "id": {"type": "integer", "minimum": 0},
            "level": {"type": "integer", "minimum": 0, "maximum": 255},
            "ratio": {"type": "number", "minimum": 0},
            "child": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}, "additionalProperties": false},
            "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
            "day": {"type": "string", "enum": ["mon", "tue"], "default": "mon"},
            "code": {"type": "integer", "enum": [1, 2]},
            "tags": {"type": "array", "items": {"type": "string"}, "default": []},
            "all": {"type": "boolean", "default": false},
            "loud": {"type": "boolean", "default": true}
        },
        "required": ["id"],
        "additionalProperties": false
    });
    let lenient = json!({
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "level": {"type": "integer", "minimum": 0, "maximum": 255},
            "ratio": {"type": "number", "minimum": 0},
            "child": {"type": "object", "properties": {"n": {"type": "integer"}}},
            "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
            "day": {"enum": ["mon", "tue"], "default": "mon"},
            "code": {"type": "integer", "enum": [1, 2]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "all": {"type": "boolean"},
            "loud": {"type": "boolean", "default": true}
        },
        "required": ["id"]
    });
    let chat = schema_of(Dialect::OpenAiChat, &canonical).unwrap();
    assert_eq!(
        chat,
        json!({"type": "function", "function": {
            "name": "update_tasks", "description": "Update tasks.", "parameters": lenient
        }})
    );
    let responses = schema_of(Dialect::OpenAiResponses, &canonical).unwrap();
    assert_eq!(responses["strict"], json!(false));
    assert_eq!(responses["parameters"], lenient);
    assert_eq!(
        schema_of(Dialect::Anthropic, &canonical).unwrap()["input_schema"],
        lenient
    );
    // Gemini's JSON Schema keeps `type` beside an `enum`.
    let mut gemini_json = lenient.clone();
    gemini_json["properties"]["day"]["type"] = json!("string");
    assert_eq!(
        schema_of(Dialect::GeminiJsonSchema, &canonical).unwrap()["parametersJsonSchema"],
        gemini_json
    );
    assert_eq!(
        schema_of(Dialect::Mcp, &canonical).unwrap()["inputSchema"],
        lenient
    );
    // Gemini `parameters` can't say a map, says an `enum`'s type, and takes only
    // string `enum`s (other values are said in words).
    let mut without_map = canonical.clone();
    without_map["properties"]
        .as_object_mut()
        .unwrap()
        .remove("counts");
    let mut gemini = gemini_json.clone();
    gemini["properties"]
        .as_object_mut()
        .unwrap()
        .remove("counts");
    gemini["properties"]["code"] =
        json!({"type": "integer", "description": "Must be one of 1, 2."});
    assert_eq!(
        schema_of(Dialect::GeminiParameters, &without_map).unwrap()["parameters"],
        gemini
    );
    for (dialect, key) in [
        (Dialect::OpenAiChatStrict, "/function/parameters"),
        (Dialect::OpenAiResponsesStrict, "/parameters"),
        (Dialect::AnthropicStrict, "/input_schema"),
    ] {
        // Strict modes take no maps.
        let rendered = schema_of(dialect, &without_map).unwrap();
        let schema = rendered.pointer(key).unwrap();
        assert_eq!(schema["additionalProperties"], json!(false), "{dialect}");
        assert_eq!(
            schema["properties"]["child"]["additionalProperties"],
            json!(false),
            "{dialect}"
        );
        assert!(
            schema["properties"]["day"].get("type").is_some(),
            "{dialect}"
        );
        let bound = if dialect == Dialect::AnthropicStrict {
            Value::Null
        } else {
            json!(0)
        };
        assert_eq!(schema["properties"]["id"]["minimum"], bound, "{dialect}");
    }
    let strict = schema_of(Dialect::OpenAiChatStrict, &without_map).unwrap();
    assert_eq!(strict["function"]["strict"], json!(true));
    // No "Default: false." or "Default: []." in strict mode's descriptions either.
    assert_eq!(
        strict["function"]["parameters"]["properties"]["all"],
        json!({"type": ["boolean", "null"]})
    );
    assert_eq!(
        strict["function"]["parameters"]["properties"]["loud"],
        json!({"type": ["boolean", "null"], "description": "Default: true."})
    );
}

/// The text a request carries lists the root properties, and `required`, in the
/// order the parameters are declared, whatever their names' order; the envelope
/// starts with the name and the description.
#[test]
fn rendered_root_properties_follow_declaration_order_in_every_dialect() {
    const PARAMS: &[crate::declaration::Param] = &[
        crate::declaration::Param {
            name: "zeta",
            description: "Last by name, first declared.",
            required: true,
        },
        crate::declaration::Param {
            name: "alpha",
            description: "First by name.",
            required: true,
        },
        crate::declaration::Param {
            name: "middle",
            description: "Optional.",
            required: false,
        },
    ];
    let tool = Tool {
        params: PARAMS,
        ..TOOL
    };
    let canonical = json!({
        "type": "object",
        "properties": {
            "alpha": {"type": "string", "description": "First by name."},
            "middle": {"type": "string", "description": "Optional."},
            "zeta": {"type": "string", "description": "Last by name, first declared."}
        },
        "required": ["alpha", "zeta"],
        "additionalProperties": false
    });
    let properties = r#""properties":{"zeta":{"type":"string","description":"Last by name, first declared."},"alpha":{"type":"string","description":"First by name."},"middle":"#;
    for dialect in Dialect::ALL {
        let text = build_json(&tool, &canonical, None, dialect).unwrap();
        assert!(text.contains(properties), "{dialect}: {text}");
        let required = if matches!(
            dialect,
            Dialect::OpenAiChatStrict | Dialect::OpenAiResponsesStrict
        ) {
            r#""required":["zeta","alpha","middle"]"#
        } else {
            r#""required":["zeta","alpha"]"#
        };
        assert!(text.contains(required), "{dialect}: {text}");
    }
    assert_eq!(
        &*build_json(&tool, &canonical, None, Dialect::OpenAiChat).unwrap(),
        concat!(
            r#"{"type":"function","function":{"name":"update_tasks","description":"Update tasks.","parameters":{"type":"object","#,
            r#""properties":{"zeta":{"type":"string","description":"Last by name, first declared."},"alpha":{"type":"string","description":"First by name."},"#,
            r#""middle":{"type":"string","description":"Optional."}},"required":["zeta","alpha"]}}}"#
        )
    );
    assert_eq!(
        &*build_json(&tool, &canonical, None, Dialect::Mcp).unwrap(),
        concat!(
            r#"{"name":"update_tasks","title":"Update tasks","description":"Update tasks.","inputSchema":{"type":"object","#,
            r#""properties":{"zeta":{"type":"string","description":"Last by name, first declared."},"alpha":{"type":"string","description":"First by name."},"#,
            r#""middle":{"type":"string","description":"Optional."}},"required":["zeta","alpha"]},"#,
            r#""annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":true},"_meta":{"toolkit/scope":"shared","toolkit/tier":"confirm"}}"#
        )
    );
}

fn error_of(dialect: Dialect, canonical: &Value) -> String {
    schema_of(dialect, canonical)
        .expect_err("refused")
        .to_string()
}

/// Arguments are one object in every provider: a root of another type, or a
/// union the cleaner could not merge, is refused in every dialect.
#[test]
fn a_root_that_is_not_one_object_is_refused_everywhere() {
    let number = json!({"type": "number", "properties": {}, "additionalProperties": false});
    let union = json!({"type": "object", "properties": {}, "allOf": [false], "additionalProperties": false});
    for dialect in Dialect::ALL {
        assert_eq!(
            error_of(dialect, &number),
            format!(
                "tool `update_tasks` cannot be rendered for {dialect}: at `.`: the arguments are not an object (found \"number\"); providers send a tool's arguments as one JSON object, so take a struct"
            )
        );
        assert_eq!(
            error_of(dialect, &union),
            format!(
                "tool `update_tasks` cannot be rendered for {dialect}: at `.`: the arguments are a union (`allOf` at the root) that cannot be merged into one object; providers take one object schema there, so take one struct (an enum can be one of its fields)"
            )
        );
    }
}

/// A lenient dialect drops `type` beside a `const`, except on the root, which
/// providers require to say `type: object`.
#[test]
fn the_root_keeps_its_type_beside_a_const() {
    let root = json!({"type": "object", "const": {}, "properties": {
        "kind": {"type": "string", "const": "a", "description": "The kind."}
    }, "additionalProperties": false});
    assert_eq!(
        schema_of(Dialect::Anthropic, &root).unwrap()["input_schema"],
        json!({"type": "object", "const": {}, "properties": {
            "kind": {"const": "a", "description": "The kind."}
        }})
    );
}

/// Recursion through the root (`$ref: "#"`) has no `$defs` entry to show it:
/// the dialects that refuse recursion still see it.
#[test]
fn recursion_through_the_root_is_refused_where_recursion_is() {
    let tree = json!({"type": "object", "properties": {
        "children": {"type": "array", "items": {"$ref": "#"}, "description": "Subtrees."}
    }, "additionalProperties": false});
    assert_eq!(
        error_of(Dialect::AnthropicStrict, &tree),
        "tool `update_tasks` cannot be rendered for anthropic_strict: at `.`: the arguments refer to themselves (`$ref: \"#\"`), which is recursive; Anthropic strict mode accepts no recursive schemas"
    );
    assert_eq!(
        error_of(Dialect::GeminiParameters, &tree),
        "tool `update_tasks` cannot be rendered for gemini_parameters: at `.`: the arguments refer to themselves (`$ref: \"#\"`), which is recursive; Gemini `parameters` cannot refer to a definition (use GeminiJsonSchema)"
    );
    assert!(schema_of(Dialect::OpenAiChatStrict, &tree).is_ok());
}

/// `parametersJsonSchema` allows only `description` and `default` beside a
/// `$ref`; anything else moves the reference into a one-branch `anyOf`.
#[test]
fn gemini_json_schema_keeps_refs_alone() {
    let shared = json!({"type": "object", "properties": {
        "a": {"$ref": "#/$defs/Id", "description": "First.", "examples": [1]},
        "b": {"$ref": "#/$defs/Id", "description": "Second."}
    }, "$defs": {"Id": {"type": "integer"}}, "additionalProperties": false});
    assert_eq!(
        schema_of(Dialect::GeminiJsonSchema, &shared).unwrap()["parametersJsonSchema"]["properties"],
        json!({
            "a": {"description": "First.", "examples": [1], "anyOf": [{"$ref": "#/$defs/Id"}]},
            "b": {"$ref": "#/$defs/Id", "description": "Second."}
        })
    );
}

/// Gemini `enum`s hold strings: a string `const` is a one-value `enum`, other
/// scalars keep their type and are said in words, and what cannot be said
/// (arrays, objects, only `null`) is refused. A `format` other than `enum` and
/// `date-time`, `examples` and unknown fields do not reach Gemini.
#[test]
fn gemini_parameters_enums_are_strings_or_words() {
    let root = json!({"type": "object", "properties": {
        "kind": {"const": "a", "description": "The kind."},
        "level": {"type": "integer", "enum": [1, 2, null], "description": "The level."},
        "on": {"const": true, "format": "uuid", "description": "Always on."},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5, "examples": [1.5, 2], "deprecated": true, "description": "A ratio."}
    }, "additionalProperties": false});
    assert_eq!(
        schema_of(Dialect::GeminiParameters, &root).unwrap()["parameters"]["properties"],
        json!({
            "kind": {"description": "The kind.", "enum": ["a"], "type": "string"},
            "level": {"type": "integer", "description": "The level. Must be one of 1, 2.", "nullable": true},
            "on": {"description": "Always on. Must be true.", "type": "boolean"},
            "ratio": {"type": "number", "description": "A ratio. Must be greater than 0. Must be a multiple of 0.5.", "example": 1.5}
        })
    );
    let refused = |property: Value| {
        let root =
            json!({"type": "object", "properties": {"p": property}, "additionalProperties": false});
        error_of(Dialect::GeminiParameters, &root)
    };
    assert_eq!(
        refused(json!({"const": [null, 1], "description": "A pair."})),
        "tool `update_tasks` cannot be rendered for gemini_parameters: at `p`: an `enum` or `const` of arrays, objects or mixed kinds of values cannot be expressed in Gemini `parameters`, whose enum values are strings"
    );
    assert_eq!(
        refused(json!({"const": null, "description": "Nothing."})),
        "tool `update_tasks` cannot be rendered for gemini_parameters: at `p`: a value that can only be `null` cannot be expressed in Gemini `parameters`"
    );
}

/// A tool without parameters sends no Gemini `parameters`: what the arguments'
/// own description said joins the tool's description instead of vanishing.
#[test]
fn gemini_parameters_keep_the_root_description_of_a_tool_without_parameters() {
    let root = json!({"type": "object", "description": "Runs once a day.", "properties": {}, "additionalProperties": false});
    assert_eq!(
        schema_of(Dialect::GeminiParameters, &root).unwrap(),
        json!({"name": "update_tasks", "description": "Update tasks.\n\nRuns once a day."})
    );
}

/// OpenAI strict mode drops `propertyNames`; its description moves to the object.
#[test]
fn openai_strict_keeps_the_property_names_description() {
    let root = json!({"type": "object", "properties": {}, "propertyNames": {"description": "Lowercase."}, "additionalProperties": false});
    assert_eq!(
        schema_of(Dialect::OpenAiChatStrict, &root).unwrap()["function"]["parameters"],
        json!({"type": "object", "properties": {}, "additionalProperties": false, "description": "Property names: Lowercase.", "required": []})
    );
}

/// `serde_json`'s `Map` keeps insertion order when any crate of the build turns on
/// `preserve_order` (rig-core does, in this workspace) and sorts otherwise: the
/// walk, and so the problem a refusal names first, follows key order either way.
/// Where the map sorts, this test cannot fail; it guards the other build: the
/// workspace's `cargo test` (CI's), or `cargo test -p toolkit-llm --features
/// serde_json/preserve_order`.
#[test]
fn schemas_are_walked_in_key_order_whatever_order_the_map_keeps() {
    let Value::Object(mut root) = json!({
        "type": "object",
        "properties": {"zeta": {"type": "string"}, "alpha": {"type": "string"}},
        "$defs": {"Z": {"type": "string"}, "A": {"type": "string"}}
    }) else {
        unreachable!("an object literal")
    };
    let mut visited = Vec::new();
    walk_all(&mut root, &mut |_, path| {
        visited.push(path.to_owned());
        Ok(())
    })
    .expect("nothing refused");
    assert_eq!(visited, ["", "alpha", "zeta", "$defs.A", "$defs.Z"]);

    // Gemini names the first property it refuses: the first in key order.
    let Value::Object(mut root) = json!({
        "type": "object",
        "properties": {"zeta zeta": {"type": "string"}, "alpha alpha": {"type": "string"}}
    }) else {
        unreachable!("an object literal")
    };
    assert_eq!(
        gemini::parameters(&mut root),
        Err((
            String::new(),
            "property name `alpha alpha` is not accepted by Gemini (letters, digits and `_`, not starting with a digit, at most 64); rename it with `#[serde(rename = \"...\")]`".to_owned()
        ))
    );
}

//! The cleaned argument schema of every tool, pinned exactly: no `title` or
//! `$schema`, optional fields simply not required (no `null` branches), defaults
//! kept, nested types behind `$defs`/`$ref`, documented unit enums folded into one
//! string `enum`, a closed root object, non-standard numeric formats dropped, and a
//! description on every top-level property. Then the same rules checked over every
//! registered tool, so a new tool cannot slip past them.

toolkit::link_tools!(other_tools);

use serde_json::{Map, Value, json};
use toolkit::registry;
use toolkit_derive_tests::{get_tasks, remove_task, search_void, set_mood};

fn schema(name: &str) -> &'static Value {
    registry()
        .get(name)
        .unwrap_or_else(|| panic!("{name} is registered"))
        .schema()
}

/// The `$defs.Priority` every task tool shares: a documented unit enum, folded.
fn priority() -> Value {
    json!({
        "description": "How urgent a task is.\n- `low`: Whenever there is time.\n- `high`: Today.",
        "type": "string",
        "enum": ["low", "high"]
    })
}

#[test]
fn get_tasks_optional_and_defaulted_parameters() {
    assert_eq!(
        *schema("get_tasks"),
        json!({
            "type": "object",
            "properties": {
                // `Option<u32>`: not required, no null branch, no `format: uint32`.
                "id": {
                    "type": "integer",
                    "description": "Return only this task.",
                    "minimum": 0
                },
                // `#[tool(default = 20)]`: not required, default shown to the model.
                "limit": {
                    "type": "integer",
                    "description": "At most this many tasks.",
                    "default": 20,
                    "minimum": 0
                }
            },
            "additionalProperties": false
        })
    );
}

#[test]
fn create_tasks_nested_struct_behind_defs_with_folded_enum() {
    assert_eq!(
        *schema("create_tasks"),
        json!({
            "type": "object",
            "properties": {
                "tasks": {
                    "type": "array",
                    "items": {"$ref": "#/$defs/NewTask"},
                    "description": "The tasks to create."
                }
            },
            "required": ["tasks"],
            "additionalProperties": false,
            "$defs": {
                "NewTask": {
                    "type": "object",
                    "description": "A new task.",
                    "properties": {
                        "title": {"type": "string", "description": "What to do."},
                        // `Option<Priority>` inside a user struct: the `anyOf` with
                        // a null branch is gone, the `$ref` and description stay.
                        "priority": {
                            "description": "How urgent it is; low when left out.",
                            "$ref": "#/$defs/Priority"
                        }
                    },
                    "required": ["title"],
                    // `#[serde(deny_unknown_fields)]` on the user's struct.
                    "additionalProperties": false
                },
                "Priority": priority()
            }
        })
    );
}

#[test]
fn update_tasks_renamed_field_inside_a_user_struct() {
    assert_eq!(
        *schema("update_tasks"),
        json!({
            "type": "object",
            "properties": {
                "updates": {
                    "type": "array",
                    "items": {"$ref": "#/$defs/TaskUpdate"},
                    "description": "The changes, one per task."
                }
            },
            "required": ["updates"],
            "additionalProperties": false,
            "$defs": {
                "TaskUpdate": {
                    "type": "object",
                    "description": "A change to one task; fields left out stay as they are.",
                    "properties": {
                        // `#[serde(rename = "taskId")] id`: the model sees the JSON name.
                        "taskId": {
                            "type": "integer",
                            "description": "The task to change.",
                            "minimum": 0
                        },
                        "title": {"type": "string", "description": "The new title."},
                        "priority": {
                            "description": "The new priority.",
                            "$ref": "#/$defs/Priority"
                        }
                    },
                    "required": ["taskId"],
                    "additionalProperties": false
                },
                "Priority": priority()
            }
        })
    );
}

#[test]
fn create_reminders_data_enum_map_and_raw_identifier() {
    assert_eq!(
        *schema("create_reminders"),
        json!({
            "type": "object",
            "properties": {
                "text": {"type": "string", "description": "What to remind the user of."},
                "recurrence": {
                    "$ref": "#/$defs/Recurrence",
                    "description": "When it fires."
                },
                // `r#type` is `type`; a defaulted enum keeps its `$ref` and default.
                "type": {
                    "$ref": "#/$defs/Delivery",
                    "description": "How it is delivered.",
                    "default": "push"
                },
                // `BTreeMap<String, u32>`: the value schema is cleaned too.
                "notify": {
                    "type": "object",
                    "additionalProperties": {"type": "integer", "minimum": 0},
                    "description": "Who else to tell, with how many minutes of notice each.",
                    "default": {}
                }
            },
            "required": ["text", "recurrence"],
            "additionalProperties": false,
            "$defs": {
                // An enum with data stays a `oneOf` of objects, one per variant.
                "Recurrence": {
                    "description": "When a reminder fires.",
                    "oneOf": [
                        {
                            "type": "object",
                            "description": "Once, then never again.",
                            "properties": {
                                "kind": {"type": "string", "const": "once"},
                                "at": {
                                    "type": "string",
                                    "description": "When, as an RFC 3339 date-time."
                                }
                            },
                            "required": ["kind", "at"],
                            "additionalProperties": false
                        },
                        {
                            "type": "object",
                            "description": "Every day.",
                            "properties": {
                                "kind": {"type": "string", "const": "daily"},
                                // `u8`: `format: uint8` gone, the bounds kept.
                                "hour": {
                                    "type": "integer",
                                    "description": "The hour of the day, 0 to 23.",
                                    "minimum": 0,
                                    "maximum": 255
                                }
                            },
                            "required": ["kind", "hour"],
                            "additionalProperties": false
                        },
                        {
                            "type": "object",
                            "description": "Every weekday at nine.",
                            "properties": {
                                "kind": {"type": "string", "const": "weekdays"}
                            },
                            "required": ["kind"],
                            "additionalProperties": false
                        }
                    ]
                },
                "Delivery": {
                    "description": "How a reminder reaches the user.\n- `push`: A push notification on the phone.",
                    "type": "string",
                    "enum": ["push", "email"]
                }
            }
        })
    );
}

#[test]
fn simple_tools() {
    assert_eq!(
        *schema("delete_tasks"),
        json!({
            "type": "object",
            "properties": {
                "id": {"type": "integer", "description": "The task to delete.", "minimum": 0}
            },
            "required": ["id"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        *schema("set_mood"),
        json!({
            "type": "object",
            "properties": {
                "mood": {"type": "string", "description": "The new mood."}
            },
            "required": ["mood"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        *schema("set_title"),
        json!({
            "type": "object",
            "properties": {
                "id": {"type": "integer", "description": "The task to rename.", "minimum": 0},
                "title": {"type": "string", "description": "Its new title."}
            },
            "required": ["id", "title"],
            "additionalProperties": false
        })
    );
    // `u64` from the other crate: `format: uint64` gone as well.
    assert_eq!(
        *schema("link_memories"),
        json!({
            "type": "object",
            "properties": {
                "from": {"type": "integer", "description": "The first memory.", "minimum": 0},
                "to": {"type": "integer", "description": "The second memory.", "minimum": 0}
            },
            "required": ["from", "to"],
            "additionalProperties": false
        })
    );
    // No parameters: still a closed object with empty `properties`.
    assert_eq!(
        *schema("search_void"),
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
}

#[test]
fn aliases_share_the_canonical_schema() {
    assert!(std::ptr::eq(schema("get_task"), schema("get_tasks")));
    assert!(std::ptr::eq(
        schema("relate_memories"),
        schema("link_memories")
    ));
}

#[test]
fn the_registry_schema_is_the_raw_schemars_schema_cleaned() {
    for tool in registry() {
        assert_eq!(
            toolkit::schema::clean((tool.schema)()),
            *tool.schema(),
            "{}",
            tool.name
        );
    }
    // The raw schema still has what cleaning removes.
    let raw = (get_tasks::definition().schema)().to_value();
    assert_eq!(raw["title"], json!("__toolkit_Arguments"));
    assert_eq!(raw["properties"]["limit"]["format"], json!("uint32"));
}

#[test]
fn output_schemas_are_raw_and_absent_for_unit() {
    let output = |schema: Option<schemars::Schema>| schema.map(schemars::Schema::to_value);
    assert_eq!(
        output((set_mood::definition().output_schema)()),
        Some(json!({"title": "string", "type": "string"}))
    );
    // `Result<bool, io::Error>`: the `Ok` type.
    assert_eq!(
        output((remove_task::definition().output_schema)()),
        Some(json!({"title": "boolean", "type": "boolean"}))
    );
    // `async fn search_void()` returns nothing.
    assert_eq!(output((search_void::definition().output_schema)()), None);
    let tasks = output((get_tasks::definition().output_schema)()).expect("Vec<Task> has one");
    assert_eq!(tasks["type"], json!("array"));
    assert_eq!(tasks["items"], json!({"$ref": "#/$defs/Task"}));
    assert_eq!(
        tasks["$defs"]["Task"]["required"],
        json!(["id", "title", "priority"])
    );
}

/// Every schema node under `node`, with the JSON pointer to it. Property *names*
/// (keys of `properties`) are not schema keywords, so a property called `title`
/// is fine.
fn walk<'a>(pointer: &str, node: &'a Value, out: &mut Vec<(String, &'a Map<String, Value>)>) {
    let Value::Object(map) = node else { return };
    out.push((pointer.to_owned(), map));
    for (key, value) in map {
        match (key.as_str(), value) {
            ("properties" | "$defs" | "patternProperties", Value::Object(children)) => {
                for (name, child) in children {
                    walk(&format!("{pointer}/{key}/{name}"), child, out);
                }
            }
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(children)) => {
                for (index, child) in children.iter().enumerate() {
                    walk(&format!("{pointer}/{key}/{index}"), child, out);
                }
            }
            ("items" | "additionalProperties" | "not", child @ Value::Object(_)) => {
                walk(&format!("{pointer}/{key}"), child, out);
            }
            _ => {}
        }
    }
}

#[test]
fn every_registered_schema_follows_the_rules() {
    let mut problems = Vec::new();
    for tool in registry() {
        let root = tool.schema();
        let name = tool.name;
        if root["type"] != json!("object") || root["additionalProperties"] != json!(false) {
            problems.push(format!("{name}: root is not a closed object"));
        }
        let properties = root["properties"].as_object().expect("properties");
        for (property, value) in properties {
            if !value["description"].is_string() {
                problems.push(format!("{name}: property `{property}` has no description"));
            }
        }
        // The same names; their order is the rendering's business (a `Value`
        // keeps name order without serde_json's `preserve_order`; the rendered
        // text follows `params`, tested in toolkit's render tests).
        let mut declared: Vec<&str> = tool.params.iter().map(|param| param.name).collect();
        let mut listed: Vec<&str> = properties.keys().map(String::as_str).collect();
        declared.sort_unstable();
        listed.sort_unstable();
        if declared != listed {
            problems.push(format!(
                "{name}: params {declared:?} but properties {listed:?}"
            ));
        }
        let required: Vec<&str> = tool
            .params
            .iter()
            .filter(|param| param.required)
            .map(|param| param.name)
            .collect();
        let schema_required: Vec<&str> = root["required"]
            .as_array()
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if required != schema_required {
            problems.push(format!(
                "{name}: required params {required:?} but schema requires {schema_required:?}"
            ));
        }
        let mut nodes = Vec::new();
        walk("", root, &mut nodes);
        for (pointer, node) in nodes {
            for banned in ["title", "$schema", "nullable"] {
                if node.contains_key(banned) {
                    problems.push(format!("{name}{pointer}: has `{banned}`"));
                }
            }
            if let Some(format) = node.get("format") {
                problems.push(format!(
                    "{name}{pointer}: has `format: {format}` (these tools use no standard format)"
                ));
            }
            if node.get("type").is_some_and(Value::is_array) {
                problems.push(format!("{name}{pointer}: type array"));
            }
            if node.get("type") == Some(&json!("null")) {
                problems.push(format!("{name}{pointer}: null schema"));
            }
            if let Some(Value::String(reference)) = node.get("$ref") {
                let target = reference
                    .strip_prefix("#/$defs/")
                    .and_then(|def| root["$defs"].get(def));
                if target.is_none() {
                    problems.push(format!("{name}{pointer}: dangling $ref {reference}"));
                }
            }
        }
    }
    assert_eq!(problems, Vec::<String>::new());
    // The walk reaches nested definitions and map values.
    let mut nodes = Vec::new();
    walk("", schema("create_reminders"), &mut nodes);
    let pointers: Vec<&str> = nodes.iter().map(|(pointer, _)| pointer.as_str()).collect();
    assert!(pointers.contains(&"/$defs/Recurrence/oneOf/1/properties/hour"));
    assert!(pointers.contains(&"/properties/notify/additionalProperties"));
    assert_eq!(nodes.len(), 16);
}

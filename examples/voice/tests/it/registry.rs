//! The registry the surfaces are derived from: it builds (no name is claimed
//! twice), and every schema describes every property the model fills in.

use example_voice::tools::{get_weather, set_timer};
use serde_json::Value;
use toolkit::{Registry, definition::NameKind, registry::RegistryError};

#[test]
fn the_registry_builds_with_twelve_uniquely_named_tools() {
    let registry = toolkit::registry::try_registry().expect("no two tools claim one name");
    let names: Vec<&str> = registry.iter().map(|tool| tool.name).collect();
    assert_eq!(
        names,
        [
            "create_calls",
            "create_messages",
            "create_reminders",
            "get_calendar",
            "get_messages",
            "get_reminders",
            "get_weather",
            "search_contacts",
            "search_music",
            "set_lights",
            "set_timer",
            "set_volume",
        ]
    );
}

#[test]
fn a_name_defined_twice_is_rejected_naming_both_places() {
    let twice = [
        get_weather::definition(),
        set_timer::definition(),
        get_weather::definition(),
    ];
    let error = Registry::new(twice).expect_err("get_weather is defined twice");
    let location = get_weather::definition().location;
    assert_eq!(
        error,
        RegistryError::Duplicate {
            name: "get_weather".to_owned(),
            first: (NameKind::Name, location),
            second: (NameKind::Name, location),
        }
    );
}

/// Every `properties` map under `node`, with the JSON path to it.
fn property_maps<'a>(
    path: &str,
    node: &'a Value,
    found: &mut Vec<(String, &'a serde_json::Map<String, Value>)>,
) {
    match node {
        Value::Object(fields) => {
            for (key, child) in fields {
                let child_path = format!("{path}/{key}");
                if key == "properties"
                    && let Value::Object(properties) = child
                {
                    found.push((child_path.clone(), properties));
                }
                property_maps(&child_path, child, found);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                property_maps(&format!("{path}/{index}"), child, found);
            }
        }
        _ => {}
    }
}

#[test]
fn every_property_of_every_tool_has_a_description() {
    let mut undescribed = Vec::new();
    let mut checked = 0;
    for tool in toolkit::registry() {
        let mut maps = Vec::new();
        property_maps("", tool.schema(), &mut maps);
        for (path, properties) in maps {
            for (name, property) in properties {
                checked += 1;
                let described = property
                    .get("description")
                    .and_then(Value::as_str)
                    .is_some_and(|text| !text.trim().is_empty());
                if !described {
                    undescribed.push(format!("{}: {path}/{name}", tool.name));
                }
            }
        }
    }
    assert_eq!(undescribed, Vec::<String>::new());
    // 19 parameters, the two fields each of `NewReminder` and `NewMessage`, and the
    // `confirmed` argument of the two `confirm` tools.
    assert_eq!(checked, 25);
}

#[test]
fn nested_inputs_stay_in_defs_behind_a_ref() {
    let tool = toolkit::registry()
        .get("create_reminders")
        .expect("create_reminders is registered");
    assert_eq!(
        tool.schema(),
        &serde_json::json!({
            "type": "object",
            "properties": {
                "reminders": {
                    "type": "array",
                    "items": {"$ref": "#/$defs/NewReminder"},
                    "description": "The reminders to create, one or many."
                }
            },
            "required": ["reminders"],
            "$defs": {
                "NewReminder": {
                    "description": "A reminder to create.",
                    "type": "object",
                    "properties": {
                        "text": {"type": "string", "description": "What to remind the user of."},
                        "at": {
                            "type": "string",
                            "description": "When, as a local date and time like `2025-06-01T09:00`."
                        }
                    },
                    "additionalProperties": false,
                    "required": ["text", "at"]
                }
            },
            "additionalProperties": false
        })
    );
}

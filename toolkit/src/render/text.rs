//! Writing a tool's rendering as compact JSON text in a fixed, readable key order.
//!
//! toolkit does not turn on `serde_json`'s `preserve_order` (a library must not change
//! how every `serde_json::Map` in its users' programs behaves), so a
//! [`Value`] keeps its object keys in name order. The order a model reads matters in
//! two places, and this writer sets both instead of the map:
//!
//! - the envelope: `name`, `description`, then the schema, then the rest (not
//!   `description`, `inputSchema`, `name`);
//! - the arguments: the root's `properties` and `required` in the order the
//!   parameters are declared ([`crate::Tool::params`]), and in every schema node
//!   `type` and `description` ahead of the keywords that refine them.
//!
//! Nested objects (a struct inside an argument) get their properties in name
//! order: schemars hands them over in a `serde_json::Map`, which has already lost
//! the struct's field order, and name order is at least stable and easy to scan.
//! Their `required` lists follow the same order as their properties.
//!
//! Nothing here depends on the map's own order: a build where some other crate
//! turns `preserve_order` on (rig-core does) writes the same bytes.

use serde_json::{Map, Value};

use crate::schema::{ARRAY_KEYWORDS, MAP_KEYWORDS, SCHEMA_KEYWORDS};

/// The envelope keys, in the order they are written (unknown keys follow, in name
/// order). Each provider's envelope uses some of them.
const ENVELOPE_ORDER: &[&str] = &[
    "type",
    "function",
    "name",
    "title",
    "description",
    "parameters",
    "parametersJsonSchema",
    "input_schema",
    "inputSchema",
    "outputSchema",
    "strict",
    "input_examples",
    "annotations",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
    "_meta",
];

/// The envelope keys whose value is a tool's arguments schema.
const ARGUMENT_SCHEMAS: &[&str] = &[
    "parameters",
    "parametersJsonSchema",
    "input_schema",
    "inputSchema",
];

/// Schema keywords, in the order they are written (unknown keys follow, in name
/// order): what a value is, then what it means, then what refines it; definitions
/// last.
const SCHEMA_ORDER: &[&str] = &[
    "$ref",
    "type",
    "nullable",
    "format",
    "description",
    "const",
    "enum",
    "properties",
    "required",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "default",
    "examples",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "$defs",
];

/// How the arguments schema inside an envelope is written.
#[derive(Clone, Copy)]
pub(super) enum Arguments<'a> {
    /// In reading order, the root properties (and `required`) in the order of
    /// these parameter names (names not among them follow, in name order).
    Ordered(&'a [&'a str]),
    /// As its author wrote it: every array (`required` included) in its own
    /// order, object keys in name order; the same JSON value.
    AsWritten,
}

/// Writes `envelope` (one tool as a dialect renders it) as compact JSON, its
/// arguments schema as `arguments` says.
pub(super) fn write_tool(envelope: &Value, arguments: Arguments<'_>) -> String {
    let mut out = Vec::with_capacity(1024);
    write_envelope(&mut out, envelope, arguments);
    // Every byte written is either ASCII punctuation or serde_json's own output.
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

fn write_envelope(out: &mut Vec<u8>, value: &Value, arguments: Arguments<'_>) {
    let Value::Object(map) = value else {
        write_plain(out, value);
        return;
    };
    write_object(out, map, ENVELOPE_ORDER, |out, key, child| {
        if ARGUMENT_SCHEMAS.contains(&key) {
            match arguments {
                Arguments::Ordered(params) => write_schema(out, child, Some(params)),
                Arguments::AsWritten => write_plain(out, child),
            }
        } else if key == "outputSchema" {
            write_schema(out, child, None);
        } else {
            write_envelope(out, child, arguments);
        }
    });
}

/// Writes one schema node; `root` is the parameter order when this node is the
/// arguments' root.
fn write_schema(out: &mut Vec<u8>, value: &Value, root: Option<&[&str]>) {
    let Value::Object(node) = value else {
        write_plain(out, value);
        return;
    };
    write_object(out, node, SCHEMA_ORDER, |out, key, child| {
        match (key, child) {
            ("properties", Value::Object(properties)) => {
                let names = ordered_names(properties.keys(), root);
                out.push(b'{');
                for (position, name) in names.iter().enumerate() {
                    if position > 0 {
                        out.push(b',');
                    }
                    write_key(out, name);
                    out.push(b':');
                    write_schema(out, &properties[*name], None);
                }
                out.push(b'}');
            }
            ("required", Value::Array(names)) => {
                let mut sorted: Vec<&Value> = names.iter().collect();
                sorted.sort_by_key(|name| {
                    let name = name.as_str().unwrap_or_default();
                    (rank_in(name, root), name)
                });
                write_plain(out, &Value::Array(sorted.into_iter().cloned().collect()));
            }
            (key, Value::Object(children)) if MAP_KEYWORDS.contains(&key) || key == "$defs" => {
                write_object(out, children, &[], |out, _, child| {
                    write_schema(out, child, None);
                });
            }
            (key, Value::Array(children))
                if ARRAY_KEYWORDS.contains(&key) || SCHEMA_KEYWORDS.contains(&key) =>
            {
                out.push(b'[');
                for (position, child) in children.iter().enumerate() {
                    if position > 0 {
                        out.push(b',');
                    }
                    write_schema(out, child, None);
                }
                out.push(b']');
            }
            (key, child) if SCHEMA_KEYWORDS.contains(&key) => write_schema(out, child, None),
            // Values (`enum`, `const`, `default`, ...): as serde_json writes them.
            (_, child) => write_plain(out, child),
        }
    });
}

/// The root's property names in declaration order, then any others in name order
/// (a flattened struct's fields, or a schema the parameters don't describe).
fn ordered_names<'a>(
    names: impl Iterator<Item = &'a String>,
    root: Option<&[&str]>,
) -> Vec<&'a str> {
    let mut names: Vec<&str> = names.map(String::as_str).collect();
    names.sort_unstable_by_key(|name| (rank_in(name, root), *name));
    names
}

/// A name's position in the root's parameter order; after all of them if absent.
fn rank_in(name: &str, root: Option<&[&str]>) -> usize {
    let order = root.unwrap_or_default();
    order
        .iter()
        .position(|declared| *declared == name)
        .unwrap_or(order.len())
}

/// Writes `map` with its keys in `order` (others after, in name order), each value
/// written by `value`.
fn write_object(
    out: &mut Vec<u8>,
    map: &Map<String, Value>,
    order: &[&str],
    mut value: impl FnMut(&mut Vec<u8>, &str, &Value),
) {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_unstable_by_key(|(key, _)| {
        let rank = order
            .iter()
            .position(|known| known == key)
            .unwrap_or(order.len());
        (rank, key.as_str())
    });
    out.push(b'{');
    for (position, (key, child)) in entries.into_iter().enumerate() {
        if position > 0 {
            out.push(b',');
        }
        write_key(out, key);
        out.push(b':');
        value(out, key, child);
    }
    out.push(b'}');
}

/// Writes a value (`enum`, `default`, ...) with any object inside it in name order.
fn write_plain(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Object(map) => write_object(out, map, &[], write_value),
        Value::Array(items) => {
            out.push(b'[');
            for (position, item) in items.iter().enumerate() {
                if position > 0 {
                    out.push(b',');
                }
                write_plain(out, item);
            }
            out.push(b']');
        }
        // Writing a scalar into a `Vec` cannot fail: no I/O, no map keys.
        scalar => serde_json::to_writer(&mut *out, scalar).expect("a scalar serializes"),
    }
}

fn write_value(out: &mut Vec<u8>, _: &str, value: &Value) {
    write_plain(out, value);
}

/// Writes a key or a name.
fn write_key(out: &mut Vec<u8>, key: &str) {
    serde_json::to_writer(&mut *out, key).expect("a string serializes");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn envelope_and_schema_keys_come_in_reading_order() {
        let envelope = json!({
            "type": "function",
            "function": {
                "strict": true,
                "parameters": {
                    "required": ["zebra", "apple"],
                    "properties": {
                        "apple": {"minimum": 1, "type": "integer", "description": "An apple."},
                        "zebra": {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "string"}}, "required": ["b", "a"]},
                        "extra": {"type": "string"}
                    },
                    "type": "object",
                    "additionalProperties": false
                },
                "name": "get_fruit",
                "description": "Get fruit."
            }
        });
        assert_eq!(
            write_tool(&envelope, Arguments::Ordered(&["zebra", "apple"])),
            concat!(
                r#"{"type":"function","function":{"name":"get_fruit","description":"Get fruit.","#,
                r#""parameters":{"type":"object","properties":{"#,
                r#""zebra":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"]},"#,
                r#""apple":{"type":"integer","description":"An apple.","minimum":1},"#,
                r#""extra":{"type":"string"}},"#,
                r#""required":["zebra","apple"],"additionalProperties":false},"strict":true}}"#
            )
        );
    }

    #[test]
    fn a_schema_kept_as_written_keeps_its_arrays_in_order() {
        let envelope = json!({
            "name": "x",
            "inputSchema": {
                "type": "object",
                "properties": {"b": {"type": "string"}, "a": {"type": "string"}},
                "required": ["b", "a"],
                "anyOf": [{"required": ["b"]}, {"required": ["a"]}],
            },
        });
        assert_eq!(
            write_tool(&envelope, Arguments::AsWritten),
            r#"{"name":"x","inputSchema":{"anyOf":[{"required":["b"]},{"required":["a"]}],"properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["b","a"],"type":"object"}}"#
        );
        // Ordered for a model: `required` follows the parameters.
        assert!(
            write_tool(&envelope, Arguments::Ordered(&["a", "b"]))
                .contains(r#""required":["a","b"]"#)
        );
    }

    #[test]
    fn unknown_keys_and_values_keep_name_order_and_escape() {
        let envelope = json!({
            "name": "x",
            "inputSchema": {"type": "object", "properties": {}, "x-b": 1, "x-a": {"z": 1, "a": "\"\n"}},
            "_meta": {"toolkit/tier": "auto"}
        });
        assert_eq!(
            write_tool(&envelope, Arguments::Ordered(&[])),
            r#"{"name":"x","inputSchema":{"type":"object","properties":{},"x-a":{"a":"\"\n","z":1},"x-b":1},"_meta":{"toolkit/tier":"auto"}}"#
        );
    }
}

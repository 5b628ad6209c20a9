//! Which arbitrary schemas the renderers owe a conforming rendering.
//!
//! `#[tool]` only produces schemas from schemars: well-formed JSON Schema with a
//! description on every parameter. An arbitrary schema that breaks those
//! premises (`"type": "any"`, `"required": 3`, a `$ref` to nothing, an undocumented
//! parameter) must still not crash the cleaner or a renderer, nor render
//! differently twice, but what the renderers send for it is not judged by the
//! conformance checker: no tool can produce it.

use serde_json::{Map, Value};

const TYPE_NAMES: &[&str] = &[
    "object", "array", "string", "integer", "number", "boolean", "null",
];

/// Whether `root` is a schema `#[tool]` could produce: see the module docs.
#[must_use]
pub fn is_well_formed(root: &Value) -> bool {
    if !root.is_object() {
        return false;
    }
    let mut parameters = Vec::new();
    root_parameters(root, root, 0, &mut parameters);
    let documented = parameters.iter().all(|property| {
        property
            .get("description")
            .and_then(Value::as_str)
            .is_some_and(|text| !text.trim().is_empty())
    });
    documented && node(root, root, 0)
}

/// Whether `output` is a result schema schemars could write (any well-formed
/// schema: results need no documentation). Violations in MCP's `outputSchema`
/// are judged only then.
#[must_use]
pub fn is_well_formed_output(output: &Value) -> bool {
    schema(output, output, 0)
}

/// The schemas that become the tool's parameters: the root's properties, and
/// those of what the cleaner merges into the root (its `allOf` branches, a
/// one-branch `anyOf`/`oneOf`, the definition a root `$ref` names).
fn root_parameters<'a>(root: &'a Value, node: &'a Value, depth: usize, out: &mut Vec<&'a Value>) {
    if depth > 8 {
        return;
    }
    if let Some(Value::Object(properties)) = node.get("properties") {
        out.extend(properties.values());
    }
    for union in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = node.get(union) {
            for branch in branches {
                root_parameters(root, branch, depth + 1, out);
            }
        }
    }
    if let Some(target) = node
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix("#/$defs/"))
        .and_then(|name| root.get("$defs")?.get(name))
    {
        root_parameters(root, target, depth + 1, out);
    }
}

fn schema(root: &Value, value: &Value, depth: usize) -> bool {
    match value {
        Value::Bool(_) => true,
        Value::Object(_) => node(root, value, depth),
        _ => false,
    }
}

fn schemas(root: &Value, value: &Value, depth: usize) -> bool {
    matches!(value, Value::Array(items)
        if !items.is_empty() && items.iter().all(|item| schema(root, item, depth)))
}

fn schema_map(root: &Value, value: &Value, depth: usize) -> bool {
    matches!(value, Value::Object(map) if map.values().all(|item| schema(root, item, depth)))
}

fn count(value: &Value) -> bool {
    value.as_u64().is_some()
}

fn resolves(root: &Value, reference: &str) -> bool {
    if reference == "#" {
        return true;
    }
    let Some(name) = reference.strip_prefix("#/$defs/") else {
        return false;
    };
    if name.contains(['/', '~']) {
        return false;
    }
    root.get("$defs").and_then(|defs| defs.get(name)).is_some()
}

fn node(root: &Value, value: &Value, depth: usize) -> bool {
    let Value::Object(object) = value else {
        return false;
    };
    if depth > 32 {
        return false;
    }
    let inner = depth + 1;
    object
        .iter()
        .all(|(keyword, value)| keyword_ok(root, object, keyword, value, inner))
}

fn keyword_ok(
    root: &Value,
    object: &Map<String, Value>,
    keyword: &str,
    value: &Value,
    depth: usize,
) -> bool {
    match keyword {
        "type" => match value {
            Value::String(name) => TYPE_NAMES.contains(&name.as_str()),
            Value::Array(names) => {
                !names.is_empty()
                    && names.iter().enumerate().all(|(index, name)| {
                        name.as_str().is_some_and(|name| TYPE_NAMES.contains(&name))
                            && !names[..index].contains(name)
                    })
            }
            _ => false,
        },
        "properties" | "$defs" => schema_map(root, value, depth),
        "required" => matches!(value, Value::Array(names) if names.iter().enumerate().all(
            |(index, name)| name.is_string() && !names[..index].contains(name)
                && object.get("properties").and_then(|p| p.get(name.as_str()?)).is_some())),
        "items" | "additionalProperties" | "propertyNames" | "not" => schema(root, value, depth),
        "prefixItems" | "anyOf" | "oneOf" | "allOf" => schemas(root, value, depth),
        "$ref" => value
            .as_str()
            .is_some_and(|reference| resolves(root, reference)),
        "enum" => matches!(value, Value::Array(values) if !values.is_empty()),
        "description" | "title" | "pattern" | "format" | "$schema" => value.is_string(),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => value.is_number(),
        "multipleOf" => value.as_f64().is_some_and(|number| number > 0.0),
        "minLength" | "maxLength" | "minItems" | "maxItems" => count(value),
        "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => value.is_boolean(),
        "const" | "default" | "examples" => true,
        // Not JSON Schema 2020-12 (`nullable`, `definitions`, extensions): schemars
        // never writes them into a tool's arguments.
        _ => false,
    }
}

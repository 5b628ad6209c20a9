//! Gemini function declarations: `parameters` (an OpenAPI 3.0 subset) and
//! `parametersJsonSchema`.

use serde_json::{Map, Value, json};

use super::Dialect;
use super::canonical::{
    Fail, UNTYPED, give_arrays_items, infer_enum_type, inline_refs, is_map, is_type,
    one_of_as_any_of, recursive_definition, walk_all,
};
use crate::Tool;

/// The function declaration around `schema`.
pub(super) fn declaration(tool: &Tool, schema: Value, dialect: Dialect) -> Value {
    let mut declaration = Map::new();
    declaration.insert("name".to_owned(), json!(tool.name));
    declaration.insert("description".to_owned(), json!(tool.description));
    if dialect == Dialect::GeminiJsonSchema {
        declaration.insert("parametersJsonSchema".to_owned(), schema);
    } else if schema["properties"]
        .as_object()
        .is_some_and(|properties| !properties.is_empty())
    {
        // Gemini rejects `parameters` whose object has no properties: a tool
        // without parameters declares none.
        declaration.insert("parameters".to_owned(), schema);
    }
    Value::Object(declaration)
}

/// Gemini `parameters`: an OpenAPI 3.0 subset.
pub(super) fn parameters(root: &mut Map<String, Value>) -> Result<(), Fail> {
    if let Some(cycle) = recursive_definition(root) {
        return Err((
            format!("$defs.{cycle}"),
            format!(
                "`{cycle}` is recursive; Gemini `parameters` cannot refer to a definition (use GeminiJsonSchema)"
            ),
        ));
    }
    let defs = match root.remove("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    };
    inline_refs(root, &defs);
    walk_all(root, &mut |node, path| {
        if is_map(node) {
            return Err("a map (an object with free-form keys) cannot be expressed in Gemini `parameters`, which has no `additionalProperties`; use a `Vec` of key/value structs, or GeminiJsonSchema".to_owned());
        }
        for keyword in ["not", "if", "then", "else", "allOf"] {
            if node.contains_key(keyword) {
                return Err(format!(
                    "`{keyword}` is not supported by Gemini `parameters`"
                ));
            }
        }
        if node.contains_key("prefixItems") {
            return Err("a tuple cannot be expressed in Gemini `parameters`, which has no `prefixItems`; use a struct".to_owned());
        }
        // Gemini rejects an object type without properties; the root of a tool
        // without parameters is left out instead (see `build`).
        if !path.is_empty()
            && is_type(node, "object")
            && node
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(Map::is_empty)
        {
            return Err(
                "an object without properties cannot be expressed in Gemini `parameters`"
                    .to_owned(),
            );
        }
        if let Some(Value::Object(properties)) = node.get("properties")
            && let Some(bad) = properties.keys().find(|name| !gemini_property_name(name))
        {
            let at = if path.is_empty() {
                bad.clone()
            } else {
                format!("{path}.{bad}")
            };
            return Err(format!(
                "property name `{at}` is not accepted by Gemini (letters, digits and `_`, not starting with a digit, at most 64); rename it with `#[serde(rename = \"...\")]`"
            ));
        }
        for keyword in [
            "additionalProperties",
            "$schema",
            "uniqueItems",
            "exclusiveMinimum",
            "exclusiveMaximum",
        ] {
            node.remove(keyword);
        }
        one_of_as_any_of(node);
        if let Some(constant) = node.remove("const") {
            node.insert("enum".to_owned(), json!([constant]));
        }
        give_arrays_items(node);
        node.remove("prefixItems");
        if let Some(Value::Array(kinds)) = node.get("type") {
            let nullable = kinds.iter().any(|kind| kind == "null");
            let others: Vec<Value> = kinds
                .iter()
                .filter(|kind| *kind != "null")
                .cloned()
                .collect();
            if others.len() != 1 {
                return Err(
                    "a value of several types cannot be expressed in Gemini `parameters`"
                        .to_owned(),
                );
            }
            node.insert("type".to_owned(), others[0].clone());
            if nullable {
                node.insert("nullable".to_owned(), Value::Bool(true));
            }
        }
        if let Some(Value::Array(values)) = node.get_mut("enum")
            && values.contains(&Value::Null)
        {
            values.retain(|value| !value.is_null());
            node.insert("nullable".to_owned(), Value::Bool(true));
        }
        if node.contains_key("enum") && !node.contains_key("type") {
            infer_enum_type(node);
        }
        if is_type(node, "string")
            && node
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|format| format != "enum" && format != "date-time")
        {
            node.remove("format");
        }
        if !node.contains_key("type") && !node.contains_key("anyOf") {
            return Err(UNTYPED.to_owned());
        }
        Ok(())
    })
}

pub(super) fn gemini_property_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && name.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

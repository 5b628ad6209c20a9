//! Gemini function declarations: `parameters` (an OpenAPI 3.0 subset) and
//! `parametersJsonSchema`.

use serde_json::{Map, Value, json};

use super::Dialect;
use super::canonical::{
    Fail, UNTYPED, false_subschema, give_arrays_items, inline_refs, is_map, is_type, json_type,
    one_of_as_any_of, recursive_definition, refers_to_root, state_dropped_constraints, walk_all,
};
use crate::tool::Tool;

/// The function declaration around `schema`.
pub(super) fn declaration(tool: &Tool, schema: Value, dialect: Dialect) -> Value {
    let mut declaration = Map::new();
    declaration.insert("name".to_owned(), json!(tool.name));
    declaration.insert(
        "description".to_owned(),
        json!(description(tool, &schema, dialect)),
    );
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

/// The tool's description; for a tool whose `parameters` are left out (it has
/// none), followed by what the arguments' own description said, which would
/// otherwise be lost.
fn description<'a>(tool: &'a Tool, schema: &Value, dialect: Dialect) -> std::borrow::Cow<'a, str> {
    let left_out = dialect == Dialect::GeminiParameters
        && schema["properties"].as_object().is_none_or(Map::is_empty);
    match schema["description"].as_str() {
        Some(own) if left_out && !own.trim().is_empty() && !tool.description.contains(own) => {
            format!("{}\n\n{own}", tool.description).into()
        }
        _ => tool.description.into(),
    }
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
    if refers_to_root(root) {
        return Err((
            String::new(),
            "the arguments refer to themselves (`$ref: \"#\"`), which is recursive; Gemini `parameters` cannot refer to a definition (use GeminiJsonSchema)".to_owned(),
        ));
    }
    let defs = match root.remove("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    };
    inline_refs(root, &defs);
    walk_all(root, &mut parameters_node)
}

/// Rewrites one node for Gemini `parameters`, or says why it cannot be expressed.
fn parameters_node(node: &mut Map<String, Value>, path: &str) -> Result<(), String> {
    if let Some(reference) = node.get("$ref") {
        return Err(format!(
            "`$ref: {reference}` points to no definition, and Gemini `parameters` has no references"
        ));
    }
    if let Some(keyword) = false_subschema(node) {
        return Err(format!(
            "a schema that admits nothing (`false` in `{keyword}`) cannot be expressed in Gemini `parameters`, where every schema has a type"
        ));
    }
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
            "an object without properties cannot be expressed in Gemini `parameters`".to_owned(),
        );
    }
    if let Some(Value::Object(properties)) = node.get("properties")
        && let Some(bad) = properties
            .keys()
            .filter(|name| !gemini_property_name(name))
            .min()
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
    for keyword in ["additionalProperties", "$schema", "uniqueItems"] {
        node.remove(keyword);
    }
    state_dropped_constraints(
        node,
        &["exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
    );
    one_of_as_any_of(node);
    if null_branches_as_nullable(node) {
        // The remaining branch now stands where the union stood, after the
        // checks above ran on the union: it goes through all of them as
        // this node, as if it had been written here (a tuple, a map or a
        // property name Gemini rejects is refused as it is anywhere else).
        return parameters_node(node, path);
    }
    give_arrays_items(node);
    node.remove("prefixItems");
    let only_null = match node.get("type") {
        Some(Value::Array(kinds)) => kinds.iter().all(|kind| kind == "null"),
        Some(kind) => kind == "null",
        None => false,
    };
    if only_null {
        return Err(
            "a value that can only be `null` cannot be expressed in Gemini `parameters`".to_owned(),
        );
    }
    if let Some(Value::Array(kinds)) = node.get("type") {
        let nullable = kinds.iter().any(|kind| kind == "null");
        let others: Vec<Value> = kinds
            .iter()
            .filter(|kind| *kind != "null")
            .cloned()
            .collect();
        if others.len() != 1 {
            return Err(
                "a value of several types cannot be expressed in Gemini `parameters`".to_owned(),
            );
        }
        node.insert("type".to_owned(), others[0].clone());
        if nullable {
            node.insert("nullable".to_owned(), Value::Bool(true));
        }
    }
    string_enum(node)?;
    if node
        .get("format")
        .is_some_and(|format| format != "enum" && format != "date-time")
    {
        node.remove("format");
    }
    keep_schema_fields(node);
    // Typed through its branches only when nothing else sits beside them.
    let typed_by_branches = node.contains_key("anyOf")
        && node
            .keys()
            .all(|key| matches!(key.as_str(), "anyOf" | "description" | "nullable"));
    if !node.contains_key("type") && !typed_by_branches {
        return Err(UNTYPED.to_owned());
    }
    Ok(())
}

/// Gemini has no `null` type but a `nullable` flag: the `null` branches of an
/// `anyOf` (what schemars writes for `Option<T>` when `T` is a struct or an enum,
/// as the items of a `Vec<Option<T>>`) leave it and the node becomes `nullable`.
/// With one branch left and nothing but a description beside it, the branch takes
/// the place of the `anyOf`, keeping the node's own description; `true` then,
/// and the node is new to its caller's checks. A union of only `null` keeps its
/// branches, and is refused as a value that can only be `null`.
fn null_branches_as_nullable(node: &mut Map<String, Value>) -> bool {
    let Some(Value::Array(branches)) = node.get_mut("anyOf") else {
        return false;
    };
    let is_null = |branch: &Value| {
        branch.as_object().is_some_and(|branch| {
            let kind_is_null = match branch.get("type") {
                Some(Value::Array(kinds)) => {
                    !kinds.is_empty() && kinds.iter().all(|kind| kind == "null")
                }
                Some(kind) => kind == "null",
                None => false,
            };
            kind_is_null || branch.get("const") == Some(&Value::Null)
        })
    };
    if !branches.iter().any(is_null) || branches.iter().all(is_null) {
        return false;
    }
    branches.retain(|branch| !is_null(branch));
    node.insert("nullable".to_owned(), Value::Bool(true));
    let alone = node
        .keys()
        .all(|key| matches!(key.as_str(), "anyOf" | "description" | "nullable"));
    if let Some(Value::Array(branches)) = node.get("anyOf")
        && let [Value::Object(_)] = branches.as_slice()
        && alone
    {
        let Some(Value::Array(mut branches)) = node.remove("anyOf") else {
            return false;
        };
        if let Some(Value::Object(branch)) = branches.pop() {
            let description = node.remove("description");
            *node = branch;
            if let Some(description) = description {
                node.insert("description".to_owned(), description);
            }
            node.insert("nullable".to_owned(), Value::Bool(true));
            return true;
        }
    }
    false
}

/// Gemini's `enum` holds strings only. A `const` is a one-value `enum`; `null`
/// among the values becomes `nullable`; numbers or booleans keep their type and
/// are listed in the description instead (dispatch still refuses any other
/// value). Arrays, objects, mixed kinds and "only `null`" cannot be said.
fn string_enum(node: &mut Map<String, Value>) -> Result<(), String> {
    // Edited in place where possible: the key order of the rendering stays.
    if let Some(constant) = node.remove("const") {
        match node.get("enum") {
            None => {}
            Some(Value::Array(values)) if values.contains(&constant) => {}
            Some(_) => return Err("`enum` and `const` admit no value together".to_owned()),
        }
        node.insert("enum".to_owned(), json!([constant]));
    }
    let Some(Value::Array(values)) = node.get_mut("enum") else {
        return match node.get("enum") {
            None => Ok(()),
            Some(_) => Err("`enum` is not a list of values".to_owned()),
        };
    };
    let nullable = values.contains(&Value::Null);
    values.retain(|value| !value.is_null());
    let mut kinds: Vec<&str> = values.iter().map(json_type).collect();
    kinds.sort_unstable();
    kinds.dedup();
    if kinds == ["integer", "number"] {
        kinds = vec!["number"];
    }
    let kind = match kinds.as_slice() {
        [] => {
            return Err(
                "a value that can only be `null` cannot be expressed in Gemini `parameters`"
                    .to_owned(),
            );
        }
        [kind @ ("string" | "integer" | "number" | "boolean")] => *kind,
        _ => {
            return Err("an `enum` or `const` of arrays, objects or mixed kinds of values cannot be expressed in Gemini `parameters`, whose enum values are strings".to_owned());
        }
    };
    if kind != "string" {
        // Only strings may be listed: the others are said in words.
        let listed: Vec<String> = values.iter().map(Value::to_string).collect();
        let said = match listed.as_slice() {
            [one] => format!("Must be {one}."),
            many => format!("Must be one of {}.", many.join(", ")),
        };
        node.remove("enum");
        let description = match node.get("description").and_then(Value::as_str) {
            Some(own) if !own.trim().is_empty() => format!("{own} {said}"),
            _ => said,
        };
        node.insert("description".to_owned(), Value::String(description));
    }
    if nullable {
        node.insert("nullable".to_owned(), Value::Bool(true));
    }
    if !node.contains_key("type") {
        node.insert("type".to_owned(), json!(kind));
    }
    Ok(())
}

/// The fields of Gemini's `Schema` (an OpenAPI 3.0 subset); the API rejects any
/// other. `examples` becomes its first `example`; a `propertyNames` schema
/// leaves its description behind; anything else (`deprecated`, `readOnly`,
/// extensions) goes.
const FIELDS: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "minimum",
    "maximum",
];

fn keep_schema_fields(node: &mut Map<String, Value>) {
    if let Some(Value::Array(mut examples)) = node.remove("examples")
        && !examples.is_empty()
        && !node.contains_key("example")
    {
        node.insert("example".to_owned(), examples.swap_remove(0));
    }
    if let Some(Value::Object(names)) = node.remove("propertyNames")
        && let Some(Value::String(said)) = names.get("description")
        && !said.trim().is_empty()
    {
        let said = format!("Property names: {said}");
        let description = match node.get("description").and_then(Value::as_str) {
            Some(own) if !own.trim().is_empty() => format!("{own}\n{said}"),
            _ => said,
        };
        node.insert("description".to_owned(), Value::String(description));
    }
    node.retain(|key, _| FIELDS.contains(&key.as_str()));
}

/// `parametersJsonSchema` allows only `description` and `default` beside a
/// `$ref`: with anything else, the reference moves into a one-branch `anyOf`,
/// which means the same.
pub(super) fn ref_alone(node: &mut Map<String, Value>) {
    let crowded = node
        .keys()
        .any(|key| !matches!(key.as_str(), "$ref" | "description" | "default"));
    if !crowded {
        return;
    }
    if let Some(reference) = node.remove("$ref") {
        let alone = json!({ "$ref": reference });
        match node.get_mut("anyOf") {
            None => {
                node.insert("anyOf".to_owned(), json!([alone]));
            }
            Some(_) => match node.get_mut("allOf") {
                Some(Value::Array(all)) => all.push(alone),
                _ => {
                    node.insert("allOf".to_owned(), json!([alone]));
                }
            },
        }
    }
}

pub(super) fn gemini_property_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && name.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

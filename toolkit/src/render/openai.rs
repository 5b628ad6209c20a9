//! OpenAI: Chat Completions and Responses function tools, lenient and strict.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::Dialect;
use super::canonical::{
    Fail, UNTYPED, false_subschema, has_type_information, infer_enum_type, is_map, is_type,
    one_of_as_any_of, walk_all,
};
use crate::schema::subschemas;
use crate::tool::Tool;

/// The function tool around `schema`: nested under `function` for Chat
/// Completions, flat for Responses.
pub(super) fn tool(tool: &Tool, schema: Value, dialect: Dialect) -> Value {
    let strict = matches!(
        dialect,
        Dialect::OpenAiChatStrict | Dialect::OpenAiResponsesStrict
    );
    let mut function = Map::new();
    if matches!(
        dialect,
        Dialect::OpenAiResponses | Dialect::OpenAiResponsesStrict
    ) {
        function.insert("type".to_owned(), json!("function"));
    }
    function.insert("name".to_owned(), json!(tool.name));
    function.insert("description".to_owned(), json!(tool.description));
    function.insert("parameters".to_owned(), schema);
    // Chat Completions reads a missing `strict` as false, so only `true` is
    // written there; the Responses API reads a missing one as true, so it always
    // gets the value.
    if strict || dialect == Dialect::OpenAiResponses {
        function.insert("strict".to_owned(), Value::Bool(strict));
    }
    if function.contains_key("type") {
        return Value::Object(function);
    }
    json!({ "type": "function", "function": Value::Object(function) })
}

/// OpenAI strict mode (Structured Outputs) for function parameters.
pub(super) fn strict(root: &mut Map<String, Value>) -> Result<(), Fail> {
    walk_all(root, &mut |node, _| strict_node(node))?;
    check_openai_limits(root)
}

/// Rewrites one node for OpenAI strict mode, or says why it cannot be expressed.
fn strict_node(node: &mut Map<String, Value>) -> Result<(), String> {
    const FORMATS: &[&str] = &[
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    ];
    const DROPPED: &[&str] = &[
        "default",
        "minLength",
        "maxLength",
        "uniqueItems",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "examples",
    ];
    if node.contains_key("prefixItems") {
        return Err("a tuple (an array of fixed, mixed positions) cannot be expressed in OpenAI strict mode; use a struct".to_owned());
    }
    if let Some(keyword) = false_subschema(node) {
        return Err(format!(
            "a schema that admits nothing (`false` in `{keyword}`) cannot be expressed in OpenAI strict mode, where every schema has a type"
        ));
    }
    if is_map(node) {
        return Err("a map (an object with free-form keys) cannot be expressed in OpenAI strict mode, where every object lists its properties; use a `Vec` of key/value structs".to_owned());
    }
    for keyword in ["not", "if", "then", "else"] {
        if node.contains_key(keyword) {
            return Err(format!(
                "`{keyword}` is not supported in OpenAI strict mode"
            ));
        }
    }
    if let Some(Value::Array(all)) = node.get("allOf") {
        if all.len() != 1 {
            return Err("`allOf` is not supported in OpenAI strict mode".to_owned());
        }
        if let Some(Value::Object(single)) = node
            .remove("allOf")
            .and_then(|mut all| all.as_array_mut().map(|all| all.remove(0)))
        {
            for (key, value) in single {
                node.entry(key).or_insert(value);
            }
        }
        // What the branch brought (a map, a tuple, another `allOf`) came
        // after the checks above ran: they run again on the merged node,
        // as if it had been written so.
        return strict_node(node);
    }
    one_of_as_any_of(node);
    keep_property_names_description(node);
    for keyword in DROPPED {
        node.remove(*keyword);
    }
    if node
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|format| !FORMATS.contains(&format))
    {
        node.remove("format");
    }
    if is_type(node, "array") && !node.contains_key("items") {
        return Err(
            "an array without an item type cannot be expressed in OpenAI strict mode".to_owned(),
        );
    }
    if !has_type_information(node) {
        return Err(UNTYPED.to_owned());
    }
    let values = match (node.get("enum"), node.get("const")) {
        (Some(Value::Array(values)), _) => values.iter().collect(),
        (_, Some(constant)) => vec![constant],
        _ => Vec::new(),
    };
    if values
        .iter()
        .any(|value| value.is_array() || value.is_object())
    {
        return Err("an `enum` or `const` of arrays or objects cannot be expressed in OpenAI strict mode, where every array needs its item type and every object is closed".to_owned());
    }
    if (node.contains_key("enum") || node.contains_key("const")) && !node.contains_key("type") {
        infer_enum_type(node);
    }
    wrap_ref_with_siblings(node);
    typed_through_branches_only(node)?;
    if is_type(node, "object") || node.contains_key("properties") {
        node.insert("additionalProperties".to_owned(), Value::Bool(false));
        require_every_property(node);
    }
    Ok(())
}

/// A node without a `type` is typed through a `$ref` or through `anyOf`
/// branches; strict mode takes nothing but a description beside the branches
/// (`{"anyOf": [..], "minimum": 1}` says no type of its own).
fn typed_through_branches_only(node: &Map<String, Value>) -> Result<(), String> {
    let typed = node.contains_key("type")
        || node.contains_key("$ref")
        || (node.contains_key("anyOf")
            && node
                .keys()
                .all(|key| matches!(key.as_str(), "anyOf" | "description")));
    if typed {
        Ok(())
    } else {
        Err("a union with keywords beside it has no `type` of its own, which OpenAI strict mode requires; move the keywords into the branches".to_owned())
    }
}

/// Strict mode drops `propertyNames`; what its description said moves to the
/// object's own description.
fn keep_property_names_description(node: &mut Map<String, Value>) {
    let Some(said) = node
        .get("propertyNames")
        .and_then(|names| names.get("description"))
        .and_then(Value::as_str)
        .filter(|said| !said.trim().is_empty())
    else {
        return;
    };
    let said = format!("Property names: {said}");
    let description = match node.get("description").and_then(Value::as_str) {
        Some(own) if !own.trim().is_empty() => format!("{own}\n{said}"),
        _ => said,
    };
    node.insert("description".to_owned(), Value::String(description));
}

/// `{"description": .., "$ref": ..}` becomes `{"description": .., "anyOf": [{"$ref": ..}]}`:
/// strict mode allows no keyword beside `$ref`, and the description must stay.
pub(super) fn wrap_ref_with_siblings(node: &mut Map<String, Value>) {
    if node.len() > 1
        && let Some(reference) = node.remove("$ref")
    {
        node.insert("anyOf".to_owned(), json!([{ "$ref": reference }]));
    }
}

/// Strict mode: every property is required, and an optional one says so by also
/// accepting `null`: dispatch reads a `null` member as absent, so an `Option` is
/// `None` and a defaulted parameter gets its default. Strict mode drops `default`,
/// so the default moves into the description.
pub(super) fn require_every_property(node: &mut Map<String, Value>) {
    let required: BTreeSet<String> = match node.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => BTreeSet::new(),
    };
    let Some(Value::Object(properties)) = node.get_mut("properties") else {
        return;
    };
    let mut all = Vec::with_capacity(properties.len());
    for (name, property) in properties.iter_mut() {
        all.push(Value::String(name.clone()));
        if required.contains(name) {
            continue;
        }
        let Value::Object(property) = property else {
            continue;
        };
        match property.remove("default") {
            Some(default) => {
                let default_text = format!("Default: {default}.");
                let description = match property.get("description").and_then(Value::as_str) {
                    Some(own) => format!("{own} {default_text}"),
                    None => default_text,
                };
                property.insert("description".to_owned(), Value::String(description));
                allow_null(property);
            }
            None => allow_null(property),
        }
    }
    // Name order whatever the map's order (the written text puts a tool's
    // parameters in declaration order).
    all.sort_unstable_by(|a, b| a.as_str().cmp(&b.as_str()));
    node.insert("required".to_owned(), Value::Array(all));
}

pub(super) fn allow_null(node: &mut Map<String, Value>) {
    one_of_as_any_of(node);
    if let Some(reference) = node.remove("$ref") {
        node.insert(
            "anyOf".to_owned(),
            json!([{ "$ref": reference }, { "type": "null" }]),
        );
        return;
    }
    if let Some(Value::Array(branches)) = node.get_mut("anyOf") {
        if !branches.iter().any(crate::schema::is_null_schema) {
            branches.push(json!({ "type": "null" }));
        }
        return;
    }
    if let Some(constant) = node.remove("const") {
        node.insert("enum".to_owned(), json!([constant]));
    }
    if let Some(Value::Array(values)) = node.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    match node.get_mut("type") {
        Some(Value::String(kind)) => {
            let kind = std::mem::take(kind);
            node.insert("type".to_owned(), json!([kind, "null"]));
        }
        Some(Value::Array(kinds)) if !kinds.contains(&json!("null")) => {
            kinds.push(json!("null"));
        }
        _ => {}
    }
}

pub(super) fn check_openai_limits(root: &Map<String, Value>) -> Result<(), Fail> {
    const MAX_PROPERTIES: usize = 5000;
    const MAX_DEPTH: usize = 10;
    const MAX_ENUM_VALUES: usize = 1000;
    let defs = root.get("$defs").and_then(Value::as_object);
    let deepest = nesting(root, defs, &mut Vec::new());
    let (mut properties, mut enum_values) = (0, 0);
    count_sizes(root, &mut properties, &mut enum_values);
    if properties > MAX_PROPERTIES {
        return Err((
            String::new(),
            format!("{properties} properties; OpenAI strict mode accepts at most {MAX_PROPERTIES}"),
        ));
    }
    if deepest > MAX_DEPTH {
        return Err((
            String::new(),
            format!(
                "objects nest {deepest} levels deep; OpenAI strict mode accepts at most {MAX_DEPTH}"
            ),
        ));
    }
    if enum_values > MAX_ENUM_VALUES {
        return Err((
            String::new(),
            format!(
                "{enum_values} enum values; OpenAI strict mode accepts at most {MAX_ENUM_VALUES}"
            ),
        ));
    }
    Ok(())
}

/// How deeply objects nest below `node`, following `$ref`s into `defs`; a
/// reference back into a definition already being entered (recursion) is not
/// followed again.
pub(super) fn nesting<'a>(
    node: &'a Map<String, Value>,
    defs: Option<&'a Map<String, Value>>,
    entered: &mut Vec<&'a str>,
) -> usize {
    let mut deepest = 0;
    for (keyword, child) in subschemas(node) {
        let below = nesting(child, defs, entered);
        // A property is one level deeper than the object that has it.
        let level = usize::from(keyword == "properties");
        deepest = deepest.max(level + below);
    }
    if node.contains_key("properties") {
        deepest = deepest.max(1);
    }
    if let Some(name) = node
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|target| target.strip_prefix("#/$defs/"))
        && !entered.contains(&name)
        && let Some(def) = defs
            .and_then(|defs| defs.get(name))
            .and_then(Value::as_object)
    {
        entered.push(name);
        deepest = deepest.max(nesting(def, defs, entered));
        entered.pop();
    }
    deepest
}

/// Properties and enum values in `node` and everything below it, each
/// definition counted once (where it is defined, not where it is used).
pub(super) fn count_sizes(
    node: &Map<String, Value>,
    properties: &mut usize,
    enum_values: &mut usize,
) {
    if let Some(Value::Object(own)) = node.get("properties") {
        *properties += own.len();
    }
    if let Some(Value::Array(values)) = node.get("enum") {
        *enum_values += values.len();
    }
    let defs = node
        .get("$defs")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(Map::values);
    let children = subschemas(node).into_iter().map(|(_, child)| child);
    for child in children.chain(defs.filter_map(Value::as_object)) {
        count_sizes(child, properties, enum_values);
    }
}

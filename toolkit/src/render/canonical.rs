//! The steps every dialect shares: walking a schema with readable paths, inlining
//! definitions, giving arrays `items`, finding recursion.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use crate::schema::{ARRAY_KEYWORDS, MAP_KEYWORDS, SCHEMA_KEYWORDS, for_each_subschema};

/// `Err((path, reason))`: the path is filled in by the walkers.
pub(super) type Fail = (String, String);

/// `true` in a schema position (any value: schemars writes `serde_json::Value` so)
/// becomes `{}`, which every provider reads as a schema; `items: false`, which
/// schemars writes after `prefixItems`, is dropped (the length bounds say it).
/// Keyword *values* that happen to be booleans (`uniqueItems: true`) are left alone.
pub(super) fn replace_bool_schemas(node: &mut Map<String, Value>) {
    fn any(value: &mut Value) {
        if *value == Value::Bool(true) {
            *value = Value::Object(Map::new());
        }
    }
    if node.get("items") == Some(&Value::Bool(false)) {
        node.remove("items");
    }
    for (key, value) in node.iter_mut() {
        let key = key.as_str();
        if SCHEMA_KEYWORDS.contains(&key) && key != "additionalProperties" {
            any(value);
        } else if let (true, Value::Array(children)) = (ARRAY_KEYWORDS.contains(&key), &mut *value)
        {
            children.iter_mut().for_each(any);
        } else if let (true, Value::Object(children)) =
            (MAP_KEYWORDS.contains(&key) || key == "$defs", &mut *value)
        {
            children.values_mut().for_each(any);
        }
    }
    if let Some(Value::Object(defs)) = node.get_mut("$defs") {
        defs.values_mut()
            .filter_map(Value::as_object_mut)
            .for_each(replace_bool_schemas);
    }
    for_each_subschema(node, &mut replace_bool_schemas);
}

/// Writes each definition that is used once, and is not recursive, in place of
/// its `$ref`: a `$ref` costs tokens and a lookup for the model. Definitions used
/// more than once, and recursive ones, stay in `$defs`.
pub(super) fn inline_single_use_definitions(root: &mut Map<String, Value>) {
    let Some(Value::Object(defs)) = root.get("$defs") else {
        return;
    };
    let recursive = recursive_definitions(root);
    let mut uses: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for value in root.values() {
        count_refs(value, &mut uses);
    }
    let single: Map<String, Value> = defs
        .iter()
        .filter(|(name, _)| uses.get(*name) == Some(&1) && !recursive.contains(*name))
        .map(|(name, def)| (name.clone(), def.clone()))
        .collect();
    if single.is_empty() {
        return;
    }
    inline_refs(root, &single);
    if let Some(Value::Object(defs)) = root.get_mut("$defs") {
        for name in single.keys() {
            defs.remove(name);
        }
        for def in defs.values_mut().filter_map(Value::as_object_mut) {
            inline_refs(def, &single);
        }
        if defs.is_empty() {
            root.remove("$defs");
        }
    }
}

pub(super) fn count_refs(value: &Value, uses: &mut std::collections::BTreeMap<String, usize>) {
    for_each_ref(value, &mut |name| {
        *uses.entry(name.to_owned()).or_default() += 1;
    });
}

/// Calls `f` with the definition name of every `#/$defs/...` reference in `value`.
pub(super) fn for_each_ref(value: &Value, f: &mut dyn FnMut(&str)) {
    match value {
        Value::Object(node) => {
            if let Some(name) = node
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|target| target.strip_prefix("#/$defs/"))
            {
                f(name);
            }
            node.values().for_each(|child| for_each_ref(child, f));
        }
        Value::Array(children) => children.iter().for_each(|child| for_each_ref(child, f)),
        _ => {}
    }
}

/// A rewrite of one schema node; `Err` is the reason the node can't be expressed.
pub(super) type Visit<'a> = dyn FnMut(&mut Map<String, Value>, &str) -> Result<(), String> + 'a;

/// Calls `visit` on the root, every `$defs` entry and every subschema, depth
/// first, with a readable path.
pub(super) fn walk_all(root: &mut Map<String, Value>, visit: &mut Visit<'_>) -> Result<(), Fail> {
    let mut defs = root.remove("$defs");
    walk(root, "", visit)?;
    if let Some(Value::Object(defs)) = &mut defs {
        for (name, def) in sorted(defs) {
            if let Value::Object(def) = def {
                walk(def, &format!("$defs.{name}"), visit)?;
            }
        }
    }
    if let Some(defs) = defs {
        root.insert("$defs".to_owned(), defs);
    }
    Ok(())
}

pub(super) fn walk(
    node: &mut Map<String, Value>,
    path: &str,
    visit: &mut Visit<'_>,
) -> Result<(), Fail> {
    visit(node, path).map_err(|reason| (path.to_owned(), reason))?;
    let mut result = Ok(());
    for_each_child(node, path, &mut |child, child_path| {
        if result.is_ok() {
            result = walk(child, &child_path, visit);
        }
    });
    result
}

/// A map's members in the order of their keys, whichever order the map keeps:
/// `serde_json`'s `Map` keeps insertion order when any crate in the build turns on
/// its `preserve_order` feature and sorts its keys otherwise, and a walk that
/// stops at its first problem must name the same one either way.
pub(super) fn sorted(map: &mut Map<String, Value>) -> Vec<(&String, &mut Value)> {
    let mut members: Vec<_> = map.iter_mut().collect();
    members.sort_unstable_by_key(|(key, _)| *key);
    members
}

/// Like [`for_each_subschema`], with each child's path, in key order ([`sorted`]).
pub(super) fn for_each_child(
    node: &mut Map<String, Value>,
    path: &str,
    f: &mut dyn FnMut(&mut Map<String, Value>, String),
) {
    let join = |suffix: &str| format!("{path}{suffix}");
    for (key, value) in sorted(node) {
        match (key.as_str(), value) {
            ("properties", Value::Object(properties)) => {
                for (name, child) in sorted(properties) {
                    if let Value::Object(child) = child {
                        let child_path = if path.is_empty() {
                            name.clone()
                        } else {
                            format!("{path}.{name}")
                        };
                        f(child, child_path);
                    }
                }
            }
            ("items" | "additionalItems" | "contains", Value::Object(child)) => {
                f(child, join("[]"));
            }
            ("prefixItems", Value::Array(children)) => {
                for (i, child) in children.iter_mut().enumerate() {
                    if let Value::Object(child) = child {
                        f(child, join(&format!("[{i}]")));
                    }
                }
            }
            (
                "additionalProperties" | "patternProperties" | "propertyNames",
                Value::Object(child),
            ) => {
                if key == "patternProperties" {
                    for child in sorted(child)
                        .into_iter()
                        .filter_map(|(_, child)| child.as_object_mut())
                    {
                        f(child, join("{}"));
                    }
                } else {
                    f(child, join("{}"));
                }
            }
            ("anyOf" | "oneOf" | "allOf", Value::Array(children)) => {
                for child in children.iter_mut().filter_map(Value::as_object_mut) {
                    f(child, path.to_owned());
                }
            }
            ("not" | "if" | "then" | "else", Value::Object(child)) => f(child, path.to_owned()),
            _ => {}
        }
    }
}

/// `oneOf` becomes `anyOf`, for dialects that take only `anyOf` (OpenAI strict,
/// Anthropic strict, Gemini `parameters`). The same values pass: serde's enums
/// either tell their branches apart by a tag (so at most one matches) or take
/// the first branch that fits (so any match is accepted).
pub(super) fn one_of_as_any_of(node: &mut Map<String, Value>) {
    let Some(union) = node.remove("oneOf") else {
        return;
    };
    match node.remove("anyOf") {
        None => {
            node.insert("anyOf".to_owned(), union);
        }
        // Both unions must hold: say so without `oneOf`.
        Some(existing) => {
            node.insert(
                "allOf".to_owned(),
                json!([{ "anyOf": existing }, { "anyOf": union }]),
            );
        }
    }
}

pub(super) fn is_type(node: &Map<String, Value>, kind: &str) -> bool {
    match node.get("type") {
        Some(Value::String(single)) => single == kind,
        Some(Value::Array(many)) => many.iter().any(|value| value == kind),
        _ => false,
    }
}

/// OpenAI requires `items` on every array; a tuple's items are the union of its
/// positions.
pub(super) fn give_arrays_items(node: &mut Map<String, Value>) {
    if !is_type(node, "array") || node.contains_key("items") {
        return;
    }
    let items = match node.get("prefixItems") {
        Some(Value::Array(positions)) => {
            let mut distinct: Vec<Value> = Vec::new();
            for position in positions {
                if !distinct.contains(position) {
                    distinct.push(position.clone());
                }
            }
            if distinct.len() == 1 {
                distinct.remove(0)
            } else {
                json!({ "anyOf": distinct })
            }
        }
        _ => Value::Object(Map::new()),
    };
    node.insert("items".to_owned(), items);
}

pub(super) fn has_type_information(node: &Map<String, Value>) -> bool {
    ["type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const"]
        .iter()
        .any(|key| node.contains_key(*key))
}

pub(super) const UNTYPED: &str =
    "an untyped value (such as `serde_json::Value`) has no `type`; use a concrete Rust type";

/// A free-form object: a map, or an object schema without fixed properties.
pub(super) fn is_map(node: &Map<String, Value>) -> bool {
    matches!(node.get("additionalProperties"), Some(Value::Object(_)))
        || node.contains_key("patternProperties")
        || (is_type(node, "object") && !node.contains_key("properties"))
}

/// The `type` an `enum` (or a `const`) implies, for dialects where every node
/// needs one.
pub(super) fn infer_enum_type(node: &mut Map<String, Value>) {
    let values: Vec<&Value> = match (node.get("enum"), node.get("const")) {
        (Some(Value::Array(values)), _) => values.iter().collect(),
        (None, Some(constant)) => vec![constant],
        _ => return,
    };
    let mut kinds: Vec<&str> = Vec::new();
    for value in values {
        let kind = json_type(value);
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    if kinds.is_empty() {
        // `enum: []` admits nothing; no type says otherwise.
        return;
    }
    let kind = if kinds.len() == 1 {
        json!(kinds[0])
    } else {
        json!(kinds)
    };
    node.insert("type".to_owned(), kind);
}

/// The name of a `$defs` entry that refers to itself, directly or not.
pub(super) fn recursive_definition(root: &Map<String, Value>) -> Option<String> {
    recursive_definitions(root).into_iter().next()
}

/// Every `$defs` entry that refers to itself, directly or not.
pub(super) fn recursive_definitions(root: &Map<String, Value>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let Some(Value::Object(defs)) = root.get("$defs") else {
        return found;
    };
    for start in defs.keys() {
        let mut stack = vec![start.clone()];
        let mut seen = BTreeSet::new();
        while let Some(name) = stack.pop() {
            let mut next = Vec::new();
            if let Some(def) = defs.get(&name) {
                for_each_ref(def, &mut |target| next.push(target.to_owned()));
            }
            for target in next {
                if &target == start {
                    found.insert(start.clone());
                }
                if seen.insert(target.clone()) {
                    stack.push(target);
                }
            }
        }
    }
    found
}

/// Replaces every `$ref` with a copy of its definition (the caller has ruled out
/// recursion). A description beside the `$ref` is kept, ahead of what the
/// definition's own adds to it ([`crate::schema::merge_descriptions`]).
pub(super) fn inline_refs(node: &mut Map<String, Value>, defs: &Map<String, Value>) {
    if let Some(Value::String(target)) = node.get("$ref") {
        let name = target.strip_prefix("#/$defs/").unwrap_or(target).to_owned();
        if let Some(Value::Object(def)) = defs.get(&name) {
            node.remove("$ref");
            for (key, value) in def {
                if key == "description" {
                    let own = node
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    let merged = match (own, value.as_str()) {
                        (Some(own), Some(theirs)) => {
                            Value::String(crate::schema::merge_descriptions(&own, theirs))
                        }
                        (Some(own), None) => Value::String(own),
                        (None, _) => value.clone(),
                    };
                    node.insert(key.clone(), merged);
                } else {
                    node.entry(key.clone()).or_insert_with(|| value.clone());
                }
            }
        }
    }
    for_each_subschema(node, &mut |child| inline_refs(child, defs));
    crate::schema::trim_item_summary(node);
}

/// The JSON Schema type name of a value.
pub(super) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::String(_) => "string",
        Value::Number(number) if number.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::Bool(_) => "boolean",
        Value::Null => "null",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether any `$ref` refers to the root itself (`#`): recursion through the
/// root, which no `$defs` entry shows.
pub(super) fn refers_to_root(node: &Map<String, Value>) -> bool {
    fn any(value: &Value) -> bool {
        match value {
            Value::Object(node) => refers_to_root(node),
            Value::Array(items) => items.iter().any(any),
            _ => false,
        }
    }
    node.get("$ref").and_then(Value::as_str) == Some("#") || node.values().any(any)
}

/// Removes the constraint `keywords` a dialect cannot send and states them in
/// the node's description instead, so the model is still told (dispatch still
/// enforces them: it validates against the canonical schema). `Must be at
/// least 1.`, `Must be at most 200 characters long.`
pub(super) fn state_dropped_constraints(node: &mut Map<String, Value>, keywords: &[&str]) {
    let mut said = Vec::new();
    for keyword in keywords {
        if let Some(value) = node.remove(*keyword)
            && let Some(sentence) = constraint_in_words(keyword, &value)
        {
            said.push(sentence);
        }
    }
    if said.is_empty() {
        return;
    }
    let said = said.join(" ");
    let description = match node.get("description").and_then(Value::as_str) {
        Some(own) if !own.trim().is_empty() => format!("{own} {said}"),
        _ => said,
    };
    node.insert("description".to_owned(), Value::String(description));
}

fn constraint_in_words(keyword: &str, value: &Value) -> Option<String> {
    let Value::Number(number) = value else {
        return None;
    };
    let many = |noun: &str| {
        if number.as_u64() == Some(1) {
            format!("{number} {noun}")
        } else {
            format!("{number} {noun}s")
        }
    };
    Some(match keyword {
        "minimum" => format!("Must be at least {number}."),
        "maximum" => format!("Must be at most {number}."),
        "exclusiveMinimum" => format!("Must be greater than {number}."),
        "exclusiveMaximum" => format!("Must be less than {number}."),
        "multipleOf" => format!("Must be a multiple of {number}."),
        "minLength" => format!("Must be at least {} long.", many("character")),
        "maxLength" => format!("Must be at most {} long.", many("character")),
        "minItems" => format!("Must have at least {}.", many("item")),
        "maxItems" => format!("Must have at most {}.", many("item")),
        _ => return None,
    })
}

/// The keyword under which `node` has a `false` subschema (other than the
/// `additionalProperties: false` that closes an object): a schema admitting
/// nothing, which has no `type` for the dialects that need one everywhere.
pub(super) fn false_subschema(node: &Map<String, Value>) -> Option<&str> {
    node.iter().find_map(|(key, value)| {
        let keyword = key.as_str();
        let found = if SCHEMA_KEYWORDS.contains(&keyword)
            && !matches!(
                keyword,
                "additionalProperties" | "unevaluatedProperties" | "unevaluatedItems"
            ) {
            *value == Value::Bool(false)
        } else if ARRAY_KEYWORDS.contains(&keyword) {
            value
                .as_array()
                .is_some_and(|items| items.contains(&Value::Bool(false)))
        } else if MAP_KEYWORDS.contains(&keyword) {
            value
                .as_object()
                .is_some_and(|map| map.values().any(|child| *child == Value::Bool(false)))
        } else {
            false
        };
        found.then_some(keyword)
    })
}

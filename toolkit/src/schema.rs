//! Generating a tool's argument schema with schemars and cleaning it once.
//!
//! The canonical schema is JSON Schema 2020-12 without the noise providers reject
//! or models misread: no `$schema`, no `title`, no `anyOf`/type arrays for optional
//! fields (they are simply absent from `required`), no non-standard numeric
//! `format`s, documented unit enums as one `enum` with the variant docs folded into
//! the description. Nested types stay in `$defs` behind `$ref`. Dialects
//! ([`crate::Dialect`]) start from this schema.

use std::collections::HashMap;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value};

/// The schemars settings every tool's arguments are generated with.
pub(crate) fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with(|settings| {
        settings.meta_schema = None;
    })
}

/// The raw schema of an argument type, as `#[tool]`'s generated code asks for it.
#[must_use]
pub fn raw_schema_for<T: JsonSchema + ?Sized>() -> Schema {
    settings().into_generator().into_root_schema_for::<T>()
}

/// The raw schema of a result type: how it *serializes* (`skip_serializing_if`
/// fields are optional, `None` is written as `null`).
#[must_use]
pub fn raw_output_schema_for<T: JsonSchema + ?Sized>() -> Schema {
    settings()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
}

/// The formats JSON Schema defines; anything else (`uint32`, `int64`, `double`, ...)
/// is a schemars or OpenAPI extension that providers reject or ignore.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Cleans a raw schemars schema of a tool's arguments into the canonical schema.
///
/// The structure is normalised first, so a schema schemars did not write (a
/// hand-written `JsonSchema` impl) reaches the dialects in the shape they
/// expect: nested `$defs` move to the root, boolean definitions become objects,
/// unused ones go, and a root `allOf` (or a one-branch `anyOf`, or a `$ref`) is
/// merged into one root object where that keeps its meaning. What cannot be
/// merged stays, and every dialect refuses it (the guide's
/// [schemas](crate::guide::schemas) chapter, "Schemas not written by schemars").
#[must_use]
pub fn clean(schema: Schema) -> Value {
    let mut value = clean_tree(schema, Nulls::DropFromOptional);
    if let Value::Object(root) = &mut value {
        merge_root_unions(root);
        // A definition the root referred to may be merged in and used nowhere else.
        drop_unused_definitions(root);
        // The arguments are always one object the model fills in: a type list
        // that allows an object narrows to it (a root of another type stays, and
        // every dialect refuses it).
        if let Some(Value::Array(kinds)) = root.get("type")
            && kinds.iter().any(|kind| kind == "object")
        {
            root.insert("type".to_owned(), Value::String("object".to_owned()));
        }
        root.entry("type")
            .or_insert_with(|| Value::String("object".to_owned()));
        root.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        root.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
    value
}

/// Cleans the raw schema of a tool's result the way [`clean`] does, except that
/// `null` stays allowed where the value serializes as `null`, and the root is left
/// as it is.
#[must_use]
pub fn clean_output(schema: Schema) -> Value {
    clean_tree(schema, Nulls::Keep)
}

/// Whether optional properties keep their `null` alternative.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Nulls {
    /// Arguments: the model leaves an optional property out instead.
    DropFromOptional,
    /// Results: an `Option` field is written as `null`.
    Keep,
}

fn clean_tree(schema: Schema, nulls: Nulls) -> Value {
    let mut value = schema.to_value();
    if let Value::Object(root) = &mut value {
        root.remove("$schema");
        hoist_nested_definitions(root);
        definitions_as_objects(root);
        drop_unused_definitions(root);
        // `$ref: "#"` on the root itself says "the root is the root": no constraint.
        if root.get("$ref").and_then(Value::as_str) == Some("#") {
            root.remove("$ref");
        }
        clean_node(root, nulls);
        if let Some(Value::Object(defs)) = root.get_mut("$defs") {
            for def in defs.values_mut() {
                if let Value::Object(def) = def {
                    clean_node(def, nulls);
                }
            }
        }
    }
    value
}

/// Moves every `$defs` nested inside a subschema (or inside a definition) to the
/// root's `$defs`, renamed if the name is taken, and points each `$ref` to it
/// at its new place. Providers and the renderers look for definitions at the
/// root only; a nested one would be sent uncleaned and, in strict dialects,
/// unchecked. A `$defs` that is not an object defines nothing and goes.
fn hoist_nested_definitions(root: &mut Map<String, Value>) {
    if root.get("$defs").is_some_and(|defs| !defs.is_object()) {
        root.remove("$defs");
    }
    let mut found = Vec::new();
    take_nested_definitions(root, "", true, &mut found);
    if found.is_empty() {
        return;
    }
    // (JSON Pointer of the definition in the input, its name at the root)
    let mut moved: Vec<(String, String)> = Vec::new();
    let mut queue = std::collections::VecDeque::from(found);
    while let Some((pointer, name, mut definition)) = queue.pop_front() {
        if let Value::Object(node) = &mut definition {
            let mut inner = Vec::new();
            take_nested_definitions(node, &pointer, false, &mut inner);
            queue.extend(inner);
        }
        let Value::Object(defs) = root
            .entry("$defs")
            .or_insert_with(|| Value::Object(Map::new()))
        else {
            return;
        };
        let mut fresh = name.clone();
        let mut suffix = 2;
        while defs.contains_key(&fresh) {
            fresh = format!("{name}_{suffix}");
            suffix += 1;
        }
        defs.insert(fresh.clone(), definition);
        moved.push((format!("#{pointer}"), fresh));
    }
    // The longest old pointer first: a definition nested in a moved one is
    // matched before its parent.
    moved.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
    rewrite_refs(root, &moved);
}

/// Removes the `$defs` below `node` (and `node`'s own unless it is the root),
/// collecting each entry with its JSON Pointer in the input and its name.
fn take_nested_definitions(
    node: &mut Map<String, Value>,
    pointer: &str,
    is_root: bool,
    found: &mut Vec<(String, String, Value)>,
) {
    // A nested `$defs` that is not an object is removed too: it defines nothing.
    if !is_root && let Some(Value::Object(defs)) = node.remove("$defs") {
        for (name, definition) in defs {
            found.push((
                format!("{pointer}/$defs/{}", escape_pointer(&name)),
                name,
                definition,
            ));
        }
    }
    for (key, value) in node.iter_mut() {
        let at = format!("{pointer}/{}", escape_pointer(key));
        let key = key.as_str();
        let children: Vec<(String, &mut Value)> = if key == "$defs" {
            // Only the root keeps its `$defs` here; walk into its entries.
            match value {
                Value::Object(defs) => defs
                    .iter_mut()
                    .map(|(name, child)| (format!("{at}/{}", escape_pointer(name)), child))
                    .collect(),
                _ => Vec::new(),
            }
        } else if SCHEMA_KEYWORDS.contains(&key) || ARRAY_KEYWORDS.contains(&key) {
            match value {
                Value::Array(items) => items
                    .iter_mut()
                    .enumerate()
                    .map(|(index, child)| (format!("{at}/{index}"), child))
                    .collect(),
                single => vec![(at, single)],
            }
        } else if MAP_KEYWORDS.contains(&key) {
            match value {
                Value::Object(map) => map
                    .iter_mut()
                    .map(|(name, child)| (format!("{at}/{}", escape_pointer(name)), child))
                    .collect(),
                _ => Vec::new(),
            }
        } else {
            continue;
        };
        for (child_pointer, child) in children {
            if let Value::Object(child) = child {
                take_nested_definitions(child, &child_pointer, false, found);
            }
        }
    }
}

fn escape_pointer(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Points every `$ref` at or below an old definition pointer to its new place.
fn rewrite_refs(node: &mut Map<String, Value>, moved: &[(String, String)]) {
    fn any(value: &mut Value, moved: &[(String, String)]) {
        match value {
            Value::Object(node) => rewrite_refs(node, moved),
            Value::Array(items) => items.iter_mut().for_each(|child| any(child, moved)),
            _ => {}
        }
    }
    if let Some(Value::String(target)) = node.get_mut("$ref")
        && let Some((old, new)) = moved.iter().find(|(old, _)| {
            target
                .strip_prefix(old.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
    {
        *target = format!("#/$defs/{}{}", escape_pointer(new), &target[old.len()..]);
    }
    node.values_mut().for_each(|child| any(child, moved));
}

/// A boolean definition becomes its object form (`true` is `{}`, `false` is
/// `{"not": {}}`), so a `$ref` to it can be inlined like any other.
fn definitions_as_objects(root: &mut Map<String, Value>) {
    let Some(Value::Object(defs)) = root.get_mut("$defs") else {
        return;
    };
    for definition in defs.values_mut() {
        if let Value::Bool(admits) = *definition {
            *definition = if admits {
                Value::Object(Map::new())
            } else {
                serde_json::json!({"not": {}})
            };
        }
    }
}

/// The root `$defs` entry a `$ref` points into (`#/$defs/Name` or below it).
pub(crate) fn definition_name(reference: &str) -> Option<String> {
    let rest = reference.strip_prefix("#/$defs/")?;
    let name = rest.split('/').next().unwrap_or(rest);
    Some(name.replace("~1", "/").replace("~0", "~"))
}

/// Removes the definitions nothing refers to (from the root, directly or
/// through other definitions): they constrain nothing, and would be sent, and
/// checked by strict dialects, for nothing.
fn drop_unused_definitions(root: &mut Map<String, Value>) {
    let Some(Value::Object(defs)) = root.get("$defs") else {
        return;
    };
    if defs.is_empty() {
        root.remove("$defs");
        return;
    }
    let mut used = std::collections::BTreeSet::new();
    let mut pending = Vec::new();
    // The root's own `$ref` too: it is no value of a child.
    if let Some(name) = root
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(definition_name)
    {
        pending.push(name);
    }
    for (key, value) in root.iter() {
        if key != "$defs" {
            collect_refs(value, &mut pending);
        }
    }
    while let Some(name) = pending.pop() {
        if let Some(definition) = defs.get(&name)
            && used.insert(name)
        {
            collect_refs(definition, &mut pending);
        }
    }
    if used.len() == defs.len() {
        return;
    }
    // Removed in place: the key order of what stays is the input's.
    if let Some(Value::Object(defs)) = root.get_mut("$defs") {
        defs.retain(|name, _| used.contains(name));
        if defs.is_empty() {
            root.remove("$defs");
        }
    }
}

fn collect_refs(value: &Value, names: &mut Vec<String>) {
    match value {
        Value::Object(node) => {
            if let Some(name) = node
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(definition_name)
            {
                names.push(name);
            }
            node.values().for_each(|child| collect_refs(child, names));
        }
        Value::Array(items) => items.iter().for_each(|child| collect_refs(child, names)),
        _ => {}
    }
}

/// Branches that change nothing: `false` in `anyOf`/`oneOf` (it never matches)
/// and `true`/`{}` in `allOf` (it always does). A union left with no branch is
/// kept as it is: it admits nothing, and saying so is the input's business.
fn drop_trivial_branches(node: &mut Map<String, Value>) {
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = node.get_mut(union)
            && branches.iter().any(|branch| branch != &Value::Bool(false))
        {
            branches.retain(|branch| branch != &Value::Bool(false));
        }
    }
    if let Some(Value::Array(branches)) = node.get_mut("allOf") {
        branches.retain(|branch| !is_true_schema(branch));
        if branches.is_empty() {
            node.remove("allOf");
        }
    }
}

fn is_true_schema(value: &Value) -> bool {
    match value {
        Value::Bool(admits) => *admits,
        Value::Object(node) => node.is_empty(),
        _ => false,
    }
}

/// A root `allOf`, a root `anyOf`/`oneOf` of one branch, and a root `$ref` to a
/// definition are merged into the root, which providers require to be one
/// object schema. A branch that cannot be merged without changing what the
/// schema admits (a conflicting keyword, `false`, a union of several
/// branches) stays, and every dialect then refuses the tool.
fn merge_root_unions(root: &mut Map<String, Value>) {
    let mut branches: Vec<Value> = Vec::new();
    if let Some(reference) = root.get("$ref").and_then(Value::as_str) {
        let definition = definition_name(reference)
            .filter(|_| !reference.trim_start_matches("#/$defs/").contains('/'))
            .and_then(|name| root.get("$defs")?.get(&name).cloned());
        if let Some(definition @ Value::Object(_)) = definition {
            root.remove("$ref");
            branches.push(definition);
        }
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(alternatives)) = root.get(union)
            && alternatives.len() == 1
            && let Some(Value::Array(mut alternatives)) = root.remove(union)
        {
            branches.push(alternatives.remove(0));
        }
    }
    if let Some(Value::Array(all)) = root.remove("allOf") {
        branches.extend(all);
    }
    let mut kept = Vec::new();
    // Bounded: each round takes one branch, and nested `allOf`s add at most
    // what the input holds.
    while !branches.is_empty() {
        let branch = branches.remove(0);
        match branch {
            Value::Object(mut branch) => {
                if let Some(Value::Array(inner)) = branch.remove("allOf") {
                    branches.extend(inner);
                }
                if mergeable(root, &branch) {
                    merge(root, branch);
                } else {
                    kept.push(Value::Object(branch));
                }
            }
            Value::Bool(true) => {}
            other => kept.push(other),
        }
    }
    if !kept.is_empty() {
        root.insert("allOf".to_owned(), Value::Array(kept));
    }
}

/// Whether `branch` can join `root` as one object schema meaning what
/// `allOf: [root, branch]` means.
fn mergeable(root: &Map<String, Value>, branch: &Map<String, Value>) -> bool {
    branch.iter().all(|(key, value)| match key.as_str() {
        "properties" => value.is_object() && root.get("properties").is_none_or(Value::is_object),
        "required" => value.is_array() && root.get("required").is_none_or(Value::is_array),
        "description" => value.is_string(),
        "type" => match root.get("type") {
            None => true,
            Some(own) => own == value,
        },
        // A union or a reference in a branch would become the root's own.
        "anyOf" | "oneOf" | "$ref" => false,
        _ => root.get(key).is_none_or(|own| own == value),
    })
}

fn merge(root: &mut Map<String, Value>, branch: Map<String, Value>) {
    for (key, value) in branch {
        match (key.as_str(), value) {
            ("properties", Value::Object(properties)) => {
                let Value::Object(own) = root
                    .entry("properties")
                    .or_insert_with(|| Value::Object(Map::new()))
                else {
                    continue;
                };
                for (name, property) in properties {
                    match own.get_mut(&name) {
                        // Both constrain the property: both must hold.
                        Some(existing) if *existing != property => {
                            let both = serde_json::json!({"allOf": [existing.take(), property]});
                            *existing = both;
                        }
                        Some(_) => {}
                        None => {
                            own.insert(name, property);
                        }
                    }
                }
            }
            ("required", Value::Array(names)) => {
                let Value::Array(own) = root
                    .entry("required")
                    .or_insert_with(|| Value::Array(Vec::new()))
                else {
                    continue;
                };
                for name in names {
                    if !own.contains(&name) {
                        own.push(name);
                    }
                }
            }
            ("description", Value::String(text)) => {
                let merged = match root.get("description").and_then(Value::as_str) {
                    Some(own) if own.contains(text.as_str()) => own.to_owned(),
                    Some(own) => format!("{own}\n{text}"),
                    None => text,
                };
                root.insert(key, Value::String(merged));
            }
            (_, value) => {
                root.entry(key).or_insert(value);
            }
        }
    }
}

/// Non-standard string formats that a type's own schema uses (schemars' chrono
/// support writes `partial-date-time` and `partial-time`, `IpAddr` writes `ip`).
/// Providers reject or ignore them, so the format keyword goes, and what it meant
/// moves into the description, where every provider passes it to the model.
const FORMAT_DESCRIPTIONS: &[(&str, &str)] = &[
    (
        "partial-date-time",
        "a date and time without a time zone, `YYYY-MM-DDTHH:MM:SS` (seconds may have a fraction)",
    ),
    (
        "partial-time",
        "a time of day without a time zone, `HH:MM:SS` (seconds may have a fraction)",
    ),
    ("ip", "an IPv4 or IPv6 address"),
];

fn clean_node(node: &mut Map<String, Value>, nulls: Nulls) {
    node.remove("title");
    // Meaningful on a document's root only, and providers reject it anywhere.
    node.remove("$schema");
    drop_trivial_branches(node);
    if nulls == Nulls::DropFromOptional {
        drop_null_from_optional_properties(node);
    }
    if let Some(format) = node
        .get("format")
        .and_then(Value::as_str)
        .filter(|format| !STANDARD_FORMATS.contains(format))
        .map(str::to_owned)
    {
        node.remove("format");
        state_format(node, &format);
    }
    fold_documented_enum(node);
    for_each_subschema(node, &mut |child| clean_node(child, nulls));
}

/// Says what a dropped non-standard string `format` meant, in the description
/// (see [`FORMAT_DESCRIPTIONS`]).
///
/// Integer formats (`int32`, `uint64`, ...) are dropped without a word, and no
/// `maximum` is added for them: schemars already states the bounds of 8- and
/// 16-bit widths, which bind at values a model plausibly sends (300 for a `u8`);
/// the bounds of 32- and 64-bit widths lie past any value such a field means
/// (a limit, an id, a count), and stating them would cost about seven tokens on
/// every such field of every request. A value past them is still refused by
/// dispatch. A bound the field *means* is written with
/// `#[schemars(range(..))]`, which is kept. (Guide, `schemas`, "Integer bounds".)
fn state_format(node: &mut Map<String, Value>, format: &str) {
    if let Some((_, words)) = FORMAT_DESCRIPTIONS.iter().find(|(name, _)| *name == format) {
        let said = format!("Format: {words}.");
        let description = match node.get("description").and_then(Value::as_str) {
            Some(own) if !own.is_empty() => format!("{own}\n{said}"),
            _ => said,
        };
        node.insert("description".to_owned(), Value::String(description));
    }
}

/// An optional property (absent from `required`) is simply left out by the model;
/// schemars also lets it be `null` (`anyOf` with a null branch, `["T", "null"]`),
/// which models misread. Omission is the one way to say "none".
fn drop_null_from_optional_properties(node: &mut Map<String, Value>) {
    let required: Vec<String> = match node.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    let Some(Value::Object(properties)) = node.get_mut("properties") else {
        return;
    };
    for (name, property) in properties.iter_mut() {
        if required.contains(name) {
            continue;
        }
        if let Value::Object(property) = property {
            drop_null(property);
        }
    }
}

pub(crate) fn is_null_schema(value: &Value) -> bool {
    value.get("type").and_then(Value::as_str) == Some("null")
}

/// Removes the `null` alternative from one schema node.
/// A node that admits only `null` keeps it: without it, it would admit nothing
/// (`type: []`).
fn drop_null(node: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = node.get_mut("type")
        && types.iter().any(|kind| kind != "null")
    {
        types.retain(|kind| kind != "null");
        if types.len() == 1 {
            let single = types.remove(0);
            node.insert("type".to_owned(), single);
        }
    }
    if let Some(Value::Array(values)) = node.get_mut("enum")
        && values.iter().any(|value| !value.is_null())
    {
        values.retain(|value| !value.is_null());
    }
    let Some(Value::Array(branches)) = node.get("anyOf") else {
        return;
    };
    if branches.len() != 2 || !branches.iter().any(is_null_schema) {
        return;
    }
    let Some(Value::Object(kept)) = branches
        .iter()
        .find(|branch| !is_null_schema(branch))
        .cloned()
    else {
        return;
    };
    node.remove("anyOf");
    for (key, value) in kept {
        node.entry(key).or_insert(value);
    }
}

/// `oneOf: [{const: "a", description: ..}, ...]` (a unit enum whose variants have
/// doc comments) becomes `{type: string, enum: [...]}` with the variant docs listed
/// in the description: one keyword instead of a union per variant.
fn fold_documented_enum(node: &mut Map<String, Value>) {
    let Some(Value::Array(variants)) = node.get("oneOf") else {
        return;
    };
    let mut values = Vec::with_capacity(variants.len());
    let mut lines = Vec::new();
    for variant in variants {
        let Some(variant) = variant.as_object() else {
            return;
        };
        let (value, description) = match (variant.get("const"), variant.get("enum")) {
            (Some(Value::String(value)), None) => (value.clone(), variant.get("description")),
            (None, Some(Value::Array(many))) => {
                // An undocumented run of variants: schemars groups them in one `enum`.
                for value in many {
                    let Value::String(value) = value else { return };
                    values.push(Value::String(value.clone()));
                }
                continue;
            }
            _ => return,
        };
        let allowed = ["const", "description", "type", "enum"];
        if variant.keys().any(|key| !allowed.contains(&key.as_str())) {
            return;
        }
        if let Some(line) = variant_line(&value, description) {
            lines.push(line);
        }
        values.push(Value::String(value));
    }
    node.remove("oneOf");
    node.insert("type".to_owned(), Value::String("string".to_owned()));
    node.insert("enum".to_owned(), Value::Array(values));
    if !lines.is_empty() {
        let listed = lines.join("\n");
        let description = match node.get("description").and_then(Value::as_str) {
            Some(own) => format!("{own}\n{listed}"),
            None => listed,
        };
        node.insert("description".to_owned(), Value::String(description));
    }
}

/// A documented variant's line in its enum's description, `- `value`: doc`; none
/// for an undocumented variant, or one whose doc only repeats its value ("A
/// person." for `person`): the `enum` already says the value.
fn variant_line(value: &str, description: Option<&Value>) -> Option<String> {
    let doc = description?.as_str()?.replace('\n', " ");
    (!doc.is_empty() && !repeats_value(value, &doc)).then(|| format!("- `{value}`: {doc}"))
}

/// Whether `doc` says nothing but `value`: the same words, give or take an
/// article, case and a final period (`email` / "An email.", `push_note` /
/// "Push note").
fn repeats_value(value: &str, doc: &str) -> bool {
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| c.is_whitespace() || c == '_' || c == '-')
            .filter(|word| !word.is_empty())
            .map(|word| word.trim_end_matches('.').to_lowercase())
            .collect()
    };
    let mut said = words(doc);
    if said
        .first()
        .is_some_and(|first| matches!(first.as_str(), "a" | "an" | "the"))
    {
        said.remove(0);
    }
    !said.is_empty() && said == words(value)
}

/// The unit variants of an internally tagged enum (`{"kind": "hourly"}`) become one
/// `oneOf` branch whose tag is an `enum`, with the variants' docs listed in its
/// description, instead of one branch each. Only branches that are the same object
/// but for the tag's value are merged (the same `type`, `required` and
/// `additionalProperties`), so exactly the same arguments pass; when every branch
/// is merged, the union goes and the node is that object.
///
/// The renderers apply this to what the model reads; the canonical schema keeps one
/// branch per variant, so dispatch still names the variant a wrong tag missed.
pub(crate) fn fold_unit_variants(node: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = node.get("oneOf") else {
        return;
    };
    // The branches that are a tag alone, grouped by their shape without the tag's
    // value and the doc.
    let mut groups: Vec<(Map<String, Value>, Vec<usize>)> = Vec::new();
    for (index, branch) in branches.iter().enumerate() {
        if let Some(shape) = unit_variant_shape(branch) {
            match groups.iter_mut().find(|(known, _)| *known == shape) {
                Some((_, members)) => members.push(index),
                None => groups.push((shape, vec![index])),
            }
        }
    }
    groups.retain(|(_, members)| members.len() > 1);
    if groups.is_empty() {
        return;
    }
    let Some(Value::Array(branches)) = node.remove("oneOf") else {
        return;
    };
    let mut merged: Vec<Option<Value>> = branches.into_iter().map(Some).collect();
    for (shape, members) in groups {
        let mut values = Vec::with_capacity(members.len());
        let mut lines = Vec::new();
        let mut tag_name = String::new();
        for &index in &members {
            let Some(Value::Object(branch)) = merged[index].take() else {
                continue;
            };
            let Some((name, Value::Object(tag))) = branch
                .get("properties")
                .and_then(Value::as_object)
                .and_then(|properties| properties.iter().next())
            else {
                continue;
            };
            let Some(value) = tag.get("const").and_then(Value::as_str) else {
                continue;
            };
            tag_name.clone_from(name);
            if let Some(line) = variant_line(value, branch.get("description")) {
                lines.push(line);
            }
            values.push(Value::String(value.to_owned()));
        }
        let mut branch = shape;
        let mut tag = Map::new();
        tag.insert("type".to_owned(), Value::String("string".to_owned()));
        tag.insert("enum".to_owned(), Value::Array(values));
        let mut properties = Map::new();
        properties.insert(tag_name.clone(), Value::Object(tag));
        branch.insert("properties".to_owned(), Value::Object(properties));
        branch.insert(
            "required".to_owned(),
            Value::Array(vec![Value::String(tag_name)]),
        );
        if !lines.is_empty() {
            branch.insert("description".to_owned(), Value::String(lines.join("\n")));
        }
        merged[members[0]] = Some(Value::Object(branch));
    }
    let mut remaining: Vec<Value> = merged.into_iter().flatten().collect();
    if remaining.len() > 1 {
        node.insert("oneOf".to_owned(), Value::Array(remaining));
        return;
    }
    let Some(Value::Object(only)) = remaining.pop() else {
        return;
    };
    for (key, value) in only {
        if key == "description" {
            let listed = value.as_str().unwrap_or_default();
            let description = match node.get("description").and_then(Value::as_str) {
                Some(own) if !own.is_empty() => format!("{own}\n{listed}"),
                _ => listed.to_owned(),
            };
            node.insert(key, Value::String(description));
        } else {
            node.insert(key, value);
        }
    }
}

/// The shape of a `oneOf` branch that is an internally tagged unit variant (an
/// object whose one property is the tag, a string `const`, and which requires it):
/// the branch without the tag's value and its doc. `None` for any other branch.
fn unit_variant_shape(branch: &Value) -> Option<Map<String, Value>> {
    let branch = branch.as_object()?;
    let allowed = [
        "type",
        "properties",
        "required",
        "description",
        "additionalProperties",
    ];
    if branch.keys().any(|key| !allowed.contains(&key.as_str()))
        || branch.get("type").and_then(Value::as_str) != Some("object")
    {
        return None;
    }
    let properties = branch.get("properties")?.as_object()?;
    let (name, tag) = properties.iter().next()?;
    let tag = tag.as_object()?;
    let tag_is_const = properties.len() == 1
        && tag.get("const").is_some_and(Value::is_string)
        && tag
            .keys()
            .all(|key| key == "const" || (key == "type" && tag[key] == "string"));
    if !tag_is_const || branch.get("required")? != &Value::Array(vec![Value::String(name.clone())])
    {
        return None;
    }
    let mut shape = branch.clone();
    shape.remove("description");
    shape.remove("properties");
    // The tag's name is part of the shape: variants tagged differently never merge.
    shape.insert("properties".to_owned(), Value::String(name.clone()));
    Some(shape)
}

/// A property's (or field's) own doc and the doc of its type, written together
/// where the type's definition is written in place, without saying one thing
/// twice: the type's summary (the first sentence of its doc) is what the property's
/// doc says for this use, so it is left out; the rest of the type's doc (details,
/// its documented values, a format) follows on a new line.
///
/// `"When it runs."` and `"When a schedule runs. Times are `HH:MM`."` give
/// `"When it runs.\nTimes are `HH:MM`."`.
#[must_use]
pub(crate) fn merge_descriptions(own: &str, theirs: &str) -> String {
    if theirs.is_empty() || own == theirs {
        return own.to_owned();
    }
    if own.is_empty() {
        return theirs.to_owned();
    }
    let rest = without_summary(theirs);
    if rest.is_empty() || own.contains(&rest) {
        own.to_owned()
    } else {
        format!("{own}\n{rest}")
    }
}

/// An array whose items' type is written in place: `"The memories to create."` on
/// the array, and the type's `"A memory to create."` on its items, say one thing
/// twice. As in [`merge_descriptions`], the item type's summary gives way to the
/// array's doc, and the rest of the type's doc stays on the items.
pub(crate) fn trim_item_summary(node: &mut Map<String, Value>) {
    if !node.get("description").is_some_and(Value::is_string) {
        return;
    }
    let Some(Value::Object(items)) = node.get_mut("items") else {
        return;
    };
    let Some(Value::String(theirs)) = items.get("description") else {
        return;
    };
    let rest = without_summary(theirs);
    if rest.is_empty() {
        items.remove("description");
    } else {
        items.insert("description".to_owned(), Value::String(rest));
    }
}

/// `text` without its first sentence, when it starts with one: not when it starts
/// with lines toolkit wrote itself (a folded value list, a format).
///
/// A summary that goes on after a colon or a semicolon ("Changes to one task: only
/// the fields given change.") keeps what follows it, capitalised: that part is a
/// detail, not a repetition.
fn without_summary(text: &str) -> String {
    if text.starts_with("- `") || text.starts_with("Format: ") {
        return text.to_owned();
    }
    let line_end = text.find('\n').unwrap_or(text.len());
    let summary_end = text[..line_end]
        .find(". ")
        .map_or(line_end, |period| period + 1);
    let summary = &text[..summary_end];
    let rest = text[summary_end..].trim_start();
    let Some(detail) = [": ", "; "]
        .iter()
        .filter_map(|mark| summary.find(mark).map(|at| &summary[at + 2..]))
        .min_by_key(|detail| std::cmp::Reverse(detail.len()))
    else {
        return rest.to_owned();
    };
    let mut chars = detail.chars();
    let detail: String = chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    if rest.is_empty() {
        detail
    } else {
        format!("{detail} {rest}")
    }
}

/// Keywords whose value is one subschema.
pub(crate) const SCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "additionalItems",
];
/// Keywords whose value is an array of subschemas.
pub(crate) const ARRAY_KEYWORDS: &[&str] = &["prefixItems", "anyOf", "oneOf", "allOf"];
/// Keywords whose value maps names to subschemas.
pub(crate) const MAP_KEYWORDS: &[&str] = &["properties", "patternProperties", "dependentSchemas"];

/// Every direct subschema of `node` that is an object, with the keyword it sits
/// under (not `$defs`, which callers handle themselves).
pub(crate) fn subschemas(node: &Map<String, Value>) -> Vec<(&str, &Map<String, Value>)> {
    let mut found = Vec::new();
    for (key, value) in node {
        let key = key.as_str();
        let children: Vec<&Value> =
            if SCHEMA_KEYWORDS.contains(&key) || ARRAY_KEYWORDS.contains(&key) {
                match value {
                    Value::Array(items) => items.iter().collect(),
                    single => vec![single],
                }
            } else if MAP_KEYWORDS.contains(&key) {
                value
                    .as_object()
                    .map(|map| map.values().collect())
                    .unwrap_or_default()
            } else {
                continue;
            };
        found.extend(
            children
                .into_iter()
                .filter_map(Value::as_object)
                .map(|child| (key, child)),
        );
    }
    found
}

/// Calls `f` on every direct subschema of `node` that is an object (not on `$defs`,
/// which callers handle themselves).
pub(crate) fn for_each_subschema(
    node: &mut Map<String, Value>,
    f: &mut dyn FnMut(&mut Map<String, Value>),
) {
    for (key, value) in node.iter_mut() {
        let key = key.as_str();
        if SCHEMA_KEYWORDS.contains(&key) {
            match value {
                Value::Object(child) => f(child),
                // Draft-07 tuple form of `items`.
                Value::Array(children) => children
                    .iter_mut()
                    .filter_map(Value::as_object_mut)
                    .for_each(&mut *f),
                _ => {}
            }
        } else if ARRAY_KEYWORDS.contains(&key) {
            if let Value::Array(children) = value {
                children
                    .iter_mut()
                    .filter_map(Value::as_object_mut)
                    .for_each(&mut *f);
            }
        } else if MAP_KEYWORDS.contains(&key)
            && let Value::Object(children) = value
        {
            children
                .values_mut()
                .filter_map(Value::as_object_mut)
                .for_each(&mut *f);
        }
    }
}

/// The one `$schema` a schema kept as written may declare: JSON Schema 2020-12,
/// the dialect MCP (2025-11-25 and 2026-07-28) gives a tool's `inputSchema` when
/// it declares none, and the one arguments are checked with.
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Keywords whose value is data, not a schema: what they hold is never read as
/// a keyword (a `const` may be any object, `$ref` members and all).
const DATA_KEYWORDS: &[&str] = &["const", "enum", "default", "examples"];

/// Checks a schema that is to be served as its author wrote it
/// ([`RuntimeToolBuilder::mcp_schema_as_written`](crate::runtime::RuntimeToolBuilder::mcp_schema_as_written)):
/// it must be one document that refers only to itself, so that neither an MCP
/// client nor this process has anything to fetch to read it.
///
/// - every `$ref` and `$dynamicRef` is a fragment of this document
///   (`#/$defs/address`, `#addressDef`): no `https:`, `file:` or relative URI;
/// - no `$id`, which would make `#` name another document;
/// - `$schema`, if present, only at the root and only [`DRAFT_2020_12`].
///
/// Every object is looked at except the values of `const`, `enum`, `default`
/// and `examples` (data), so a reference under a keyword this check does not
/// know is refused too. `Err` says what, where (a JSON pointer) and why. The
/// caller has bounded the depth ([`crate::runtime::MAX_SCHEMA_DEPTH`]).
pub(crate) fn check_as_written(schema: &Value) -> Result<(), String> {
    fn visit(value: &Value, pointer: &mut String) -> Result<(), String> {
        match value {
            Value::Object(node) => {
                for (key, child) in node {
                    if let Value::String(text) = child {
                        check_keyword(key, text, pointer)?;
                    }
                    if DATA_KEYWORDS.contains(&key.as_str()) {
                        continue;
                    }
                    let length = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&escape_pointer(key));
                    visit(child, pointer)?;
                    pointer.truncate(length);
                }
                Ok(())
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    let length = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&index.to_string());
                    visit(item, pointer)?;
                    pointer.truncate(length);
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
    fn check_keyword(key: &str, text: &str, pointer: &str) -> Result<(), String> {
        let at = if pointer.is_empty() { "/" } else { pointer };
        let shown = crate::echo::echo(text);
        match key {
            "$ref" | "$dynamicRef" if !text.starts_with('#') => Err(format!(
                "`{key}` `{shown}` at `{at}` points outside this schema; a schema kept as written may refer only to itself (`#/$defs/...` or `#anchor`), and nothing is fetched"
            )),
            "$id" => Err(format!(
                "`$id` at `{at}` would make `#` name another document; a schema kept as written is one document (name a place in it with `$anchor`)"
            )),
            "$schema" if !pointer.is_empty() => Err(format!(
                "`$schema` at `{at}`: only the root of a schema kept as written may declare its dialect"
            )),
            "$schema" if text.trim_end_matches('#') != DRAFT_2020_12 => Err(format!(
                "`$schema` `{shown}`: a schema kept as written is JSON Schema 2020-12 (`{DRAFT_2020_12}`), the dialect MCP gives `inputSchema`"
            )),
            _ => Ok(()),
        }
    }
    visit(schema, &mut String::new())
}

/// The most subschemas a schema kept as written may apply to one value of the
/// arguments, counting each time a `$ref` is followed: 1,024. Checking a call
/// costs at most this many keyword evaluations per value it holds (and a value
/// is at least two bytes of the arguments' text), so the work stays in
/// proportion to the call, where `$ref`s that fan out (a definition that
/// uses the next one twice, twenty deep) would ask for a million per value.
pub const MAX_SUBSCHEMAS_PER_VALUE: u64 = 1024;

/// How deep into the arguments [`check_evaluation_bound`] follows a schema:
/// deeper than any call passes the registry's depth limit
/// ([`Limits`](crate::call::Limits), 32 by default).
const EVALUATION_HORIZON: usize = 128;

/// How one subschema reaches another.
#[derive(Clone, Copy)]
enum Step {
    /// Applies to the same value (`allOf`, `anyOf`, `oneOf`, `not`,
    /// `if`/`then`/`else`, `dependentSchemas`, `$ref`, `$dynamicRef`).
    Same,
    /// Applies to the member of this name (`properties`).
    Named(usize),
    /// May apply to any member or item (`items`, `prefixItems`,
    /// `additionalProperties`, `patternProperties`, `propertyNames`, ...).
    Any,
}

/// Checks that validating one value against `schema` (already compiled, so every
/// reference resolves) applies at most [`MAX_SUBSCHEMAS_PER_VALUE`] subschemas,
/// at any depth, and that no `$ref` loop stays on one value.
///
/// It counts, for every depth, an upper bound of how many times each subschema
/// is applied to one value at that depth: what applies to the same value is
/// added up through the `$ref`s and combinators (in an order without loops);
/// each step into a member adds what applies to any member to, per subschema,
/// the largest count one member name gives it (so a tree's `left` and `right`
/// don't add up, while two `x`s do). `Err` says why.
pub(crate) fn check_evaluation_bound(schema: &Value) -> Result<(), String> {
    let graph = SchemaGraph::of(schema)?;
    let order = graph.same_value_order().ok_or_else(|| {
        "a `$ref` loop stays on one value without moving into a member or item; it constrains nothing and is refused".to_owned()
    })?;
    let mut position = vec![0; order.len()];
    for (index, &node) in order.iter().enumerate() {
        position[node] = index;
    }
    let mut counts = graph.close(&position, HashMap::from([(0, 1)]));
    for depth in 0..=EVALUATION_HORIZON {
        let total = counts
            .values()
            .fold(0_u64, |sum, count| sum.saturating_add(*count));
        if total > MAX_SUBSCHEMAS_PER_VALUE {
            let place = if depth == 0 {
                "at the root".to_owned()
            } else {
                format!("at depth {depth} of the arguments")
            };
            return Err(format!(
                "checking one value {place} could apply more than {MAX_SUBSCHEMAS_PER_VALUE} subschemas ({total}, counting each `$ref` followed); `$ref`s that fan out make every call cost that much per value"
            ));
        }
        if total == 0 {
            return Ok(());
        }
        // One step into the members: what applies to any member, plus, per
        // subschema, the most any one member name adds.
        let mut any: HashMap<usize, u64> = HashMap::new();
        let mut named: HashMap<usize, HashMap<usize, u64>> = HashMap::new();
        for (&node, &count) in &counts {
            for &(target, step) in &graph.edges[node] {
                let slot = match step {
                    Step::Same => continue,
                    Step::Any => any.entry(target).or_default(),
                    Step::Named(name) => named.entry(name).or_default().entry(target).or_default(),
                };
                *slot = slot.saturating_add(count);
            }
        }
        let mut next = graph.close(&position, any);
        let mut most: HashMap<usize, u64> = HashMap::new();
        for (_, seeds) in named {
            for (node, count) in graph.close(&position, seeds) {
                let best = most.entry(node).or_default();
                *best = (*best).max(count);
            }
        }
        for (node, count) in most {
            let slot = next.entry(node).or_default();
            *slot = slot.saturating_add(count);
        }
        counts = next;
    }
    Ok(())
}

/// A schema's subschemas (node 0 is the root) and how each reaches others.
struct SchemaGraph {
    edges: Vec<Vec<(usize, Step)>>,
}

impl SchemaGraph {
    fn of(schema: &Value) -> Result<Self, String> {
        // Subschemas are told apart by where they sit in the document.
        let key = |value: &Value| std::ptr::from_ref(value) as usize;
        let mut anchors: HashMap<&str, Vec<&Value>> = HashMap::new();
        collect_anchors(schema, &mut anchors);
        let mut ids: HashMap<usize, usize> = HashMap::from([(key(schema), 0)]);
        let mut nodes: Vec<&Value> = vec![schema];
        let mut names: HashMap<&str, usize> = HashMap::new();
        let mut edges: Vec<Vec<(usize, Step)>> = Vec::new();
        let mut next = 0;
        while next < nodes.len() {
            let node = nodes[next];
            next += 1;
            let mut out: Vec<(&Value, Step)> = Vec::new();
            if let Value::Object(map) = node {
                for (keyword, value) in map {
                    let keyword = keyword.as_str();
                    match (keyword, value) {
                        ("$ref" | "$dynamicRef", Value::String(reference)) => {
                            let targets =
                                resolve(schema, &anchors, reference).ok_or_else(|| {
                                    format!(
                                        "`{keyword}` `{}` names no place toolkit can follow",
                                        crate::echo::echo(reference)
                                    )
                                })?;
                            out.extend(targets.into_iter().map(|target| (target, Step::Same)));
                        }
                        ("allOf" | "anyOf" | "oneOf", Value::Array(branches)) => {
                            out.extend(branches.iter().map(|branch| (branch, Step::Same)));
                        }
                        ("not" | "if" | "then" | "else", child) => out.push((child, Step::Same)),
                        ("dependentSchemas", Value::Object(children)) => {
                            out.extend(children.values().map(|child| (child, Step::Same)));
                        }
                        ("properties", Value::Object(children)) => {
                            for (name, child) in children {
                                let count = names.len();
                                let name = *names.entry(name.as_str()).or_insert(count);
                                out.push((child, Step::Named(name)));
                            }
                        }
                        ("patternProperties", Value::Object(children)) => {
                            out.extend(children.values().map(|child| (child, Step::Any)));
                        }
                        ("prefixItems" | "items", Value::Array(children)) => {
                            out.extend(children.iter().map(|child| (child, Step::Any)));
                        }
                        (
                            "items"
                            | "additionalItems"
                            | "unevaluatedItems"
                            | "contains"
                            | "additionalProperties"
                            | "unevaluatedProperties"
                            | "propertyNames",
                            child,
                        ) => out.push((child, Step::Any)),
                        _ => {}
                    }
                }
            }
            let mut resolved = Vec::with_capacity(out.len());
            for (target, step) in out {
                let id = *ids.entry(key(target)).or_insert_with(|| {
                    nodes.push(target);
                    nodes.len() - 1
                });
                resolved.push((id, step));
            }
            edges.push(resolved);
        }
        Ok(SchemaGraph { edges })
    }

    /// `seeds` and every subschema they apply to the same value, each counted as
    /// often as it is reached; `position` is each subschema's place in
    /// [`same_value_order`](Self::same_value_order), so each is passed on once
    /// every way to it has been counted.
    fn close(&self, position: &[usize], seeds: HashMap<usize, u64>) -> HashMap<usize, u64> {
        let mut waiting: std::collections::BTreeSet<(usize, usize)> =
            seeds.keys().map(|&node| (position[node], node)).collect();
        let mut counts = seeds;
        while let Some((_, node)) = waiting.pop_first() {
            let count = counts[&node];
            for &(target, step) in &self.edges[node] {
                if matches!(step, Step::Same) {
                    let slot = counts.entry(target).or_default();
                    *slot = slot.saturating_add(count);
                    waiting.insert((position[target], target));
                }
            }
        }
        counts
    }

    /// The subschemas in an order where each comes before every one it applies
    /// to the same value (Kahn's algorithm); `None` if those form a loop.
    fn same_value_order(&self) -> Option<Vec<usize>> {
        let mut incoming = vec![0_usize; self.edges.len()];
        for edges in &self.edges {
            for &(target, step) in edges {
                if matches!(step, Step::Same) {
                    incoming[target] += 1;
                }
            }
        }
        let mut ready: Vec<usize> = (0..self.edges.len())
            .filter(|&node| incoming[node] == 0)
            .collect();
        let mut order = Vec::with_capacity(self.edges.len());
        while let Some(node) = ready.pop() {
            order.push(node);
            for &(target, step) in &self.edges[node] {
                if matches!(step, Step::Same) {
                    incoming[target] -= 1;
                    if incoming[target] == 0 {
                        ready.push(target);
                    }
                }
            }
        }
        (order.len() == self.edges.len()).then_some(order)
    }
}

/// Every `$anchor` and `$dynamicAnchor` of the document, by name.
fn collect_anchors<'a>(value: &'a Value, anchors: &mut HashMap<&'a str, Vec<&'a Value>>) {
    match value {
        Value::Object(map) => {
            for keyword in ["$anchor", "$dynamicAnchor"] {
                if let Some(Value::String(name)) = map.get(keyword) {
                    anchors.entry(name.as_str()).or_default().push(value);
                }
            }
            for (keyword, child) in map {
                if !DATA_KEYWORDS.contains(&keyword.as_str()) {
                    collect_anchors(child, anchors);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_anchors(item, anchors)),
        _ => {}
    }
}

/// The subschemas a fragment reference names: a JSON pointer (`#/$defs/a`,
/// percent-decoded) or an anchor (`#name`: every `$anchor` or `$dynamicAnchor`
/// of that name, a `$dynamicRef` may reach any).
fn resolve<'a>(
    schema: &'a Value,
    anchors: &HashMap<&str, Vec<&'a Value>>,
    reference: &str,
) -> Option<Vec<&'a Value>> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() || fragment.starts_with('/') {
        let decoded = percent_decode(fragment)?;
        return schema.pointer(&decoded).map(|target| vec![target]);
    }
    anchors.get(fragment).cloned()
}

/// `%XX` escapes of a URI fragment decoded (`%25` is `%`); `None` if malformed.
fn percent_decode(text: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&first, tail)) = rest.split_first() {
        if first == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(first);
            rest = tail;
        }
    }
    String::from_utf8(bytes).ok()
}

/// Calls `f` on every object node of a schema, `$defs` included (at most 64
/// levels deep: a cleaned schema is far shallower).
pub(crate) fn walk(schema: &Value, f: &mut dyn FnMut(&Map<String, Value>)) {
    fn visit(node: &Map<String, Value>, f: &mut dyn FnMut(&Map<String, Value>), depth: usize) {
        if depth > 64 {
            return;
        }
        f(node);
        for (_, child) in subschemas(node) {
            visit(child, f, depth + 1);
        }
    }
    if let Some(root) = schema.as_object() {
        visit(root, f, 0);
        if let Some(defs) = root.get("$defs").and_then(Value::as_object) {
            for def in defs.values().filter_map(Value::as_object) {
                visit(def, f, 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cleaned(raw: Value) -> Value {
        clean(Schema::try_from(raw).expect("an object schema"))
    }

    #[test]
    fn strips_titles_schema_and_numeric_formats_but_keeps_property_named_title() {
        let raw = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "properties": {
                "title": {"type": "string", "title": "x", "format": "email"},
                "limit": {"type": "integer", "format": "uint32", "minimum": 0},
                "inner": {"$ref": "#/$defs/Inner"}
            },
            "$defs": {"Inner": {"title": "Inner", "type": "number", "format": "double"}}
        });
        assert_eq!(
            cleaned(raw),
            json!({
                "type": "object",
                "properties": {
                    "title": {"type": "string", "format": "email"},
                    "limit": {"type": "integer", "minimum": 0},
                    "inner": {"$ref": "#/$defs/Inner"}
                },
                "$defs": {"Inner": {"type": "number"}},
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn folds_documented_unit_enum_into_string_enum() {
        let raw = json!({
            "type": "object",
            "properties": {"priority": {"description": "How urgent.", "oneOf": [
                {"type": "string", "const": "low", "description": "Whenever."},
                {"type": "string", "enum": ["normal", "soon"]},
                {"type": "string", "const": "high", "description": "Today,\nplease."}
            ]}}
        });
        assert_eq!(
            cleaned(raw)["properties"]["priority"],
            json!({
                "description": "How urgent.\n- `low`: Whenever.\n- `high`: Today, please.",
                "type": "string",
                "enum": ["low", "normal", "soon", "high"]
            })
        );
    }

    #[test]
    fn leaves_tagged_unions_alone() {
        let union = json!({"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}}},
            {"type": "string", "const": "b"}
        ]});
        let raw = json!({"type": "object", "properties": {"shape": union.clone()}});
        assert_eq!(cleaned(raw)["properties"]["shape"], union);
    }

    /// Every integer width, as the model sees it: 8- and 16-bit bounds stated,
    /// 32- and 64-bit ones not, a declared range kept (guide, `schemas`, "Integer bounds").
    #[test]
    fn integer_widths_state_their_range_up_to_16_bits() {
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Widths {
            a_u8: u8,
            b_i8: i8,
            c_u16: u16,
            d_i16: i16,
            e_u32: u32,
            f_i32: i32,
            g_u64: u64,
            h_i64: i64,
            i_usize: usize,
            j_nonzero: std::num::NonZeroU32,
            k_optional: Option<i32>,
            /// At most 100.
            #[schemars(range(max = 100))]
            l_ranged: u32,
        }
        let schema = clean(raw_schema_for::<Widths>());
        assert_eq!(
            schema["properties"],
            json!({
                "a_u8": {"type": "integer", "minimum": 0, "maximum": 255},
                "b_i8": {"type": "integer", "minimum": -128, "maximum": 127},
                "c_u16": {"type": "integer", "minimum": 0, "maximum": 65535},
                "d_i16": {"type": "integer", "minimum": -32768, "maximum": 32767},
                "e_u32": {"type": "integer", "minimum": 0},
                "f_i32": {"type": "integer"},
                "g_u64": {"type": "integer", "minimum": 0},
                "h_i64": {"type": "integer"},
                "i_usize": {"type": "integer", "minimum": 0},
                "j_nonzero": {"type": "integer", "minimum": 1},
                "k_optional": {"type": "integer"},
                "l_ranged": {"type": "integer", "minimum": 0, "maximum": 100, "description": "At most 100."}
            })
        );
    }

    /// chrono's `NaiveTime`/`NaiveDateTime` carry formats no provider accepts
    /// (`partial-time`, `partial-date-time`): the format moves into the description.
    #[test]
    fn chrono_local_times_say_their_format_in_the_description() {
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Times {
            /// When it starts.
            at: chrono::NaiveDateTime,
            daily: chrono::NaiveTime,
            day: chrono::NaiveDate,
            instant: chrono::DateTime<chrono::Utc>,
            address: std::net::IpAddr,
        }
        let schema = clean(raw_schema_for::<Times>());
        assert_eq!(
            schema["properties"],
            json!({
                "at": {
                    "description": "When it starts.\nFormat: a date and time without a time zone, `YYYY-MM-DDTHH:MM:SS` (seconds may have a fraction).",
                    "type": "string"
                },
                "daily": {
                    "type": "string",
                    "description": "Format: a time of day without a time zone, `HH:MM:SS` (seconds may have a fraction)."
                },
                "day": {"type": "string", "format": "date"},
                "instant": {"type": "string", "format": "date-time"},
                "address": {"type": "string", "description": "Format: an IPv4 or IPv6 address."}
            })
        );
    }

    /// The parameter's doc replaces the type's summary; the type's details and
    /// its listed values follow once.
    #[test]
    fn a_parameter_doc_and_its_type_doc_say_each_thing_once() {
        assert_eq!(
            merge_descriptions(
                "When it runs.",
                "When a schedule runs. Times are `HH:MM` (24-hour)."
            ),
            "When it runs.\nTimes are `HH:MM` (24-hour)."
        );
        assert_eq!(
            merge_descriptions(
                "What kind of thing it is.",
                "What kind of thing an entity is.\n- `other`: Anything else."
            ),
            "What kind of thing it is.\n- `other`: Anything else."
        );
        assert_eq!(
            merge_descriptions("The day.", "A day of the week."),
            "The day."
        );
        // No summary to replace: a list or a format toolkit wrote stays whole.
        assert_eq!(
            merge_descriptions("How urgent.", "- `low`: Later."),
            "How urgent.\n- `low`: Later."
        );
        assert_eq!(
            merge_descriptions("When.", "Format: a time of day."),
            "When.\nFormat: a time of day."
        );
        // A summary that goes on after a colon keeps the detail.
        assert_eq!(
            merge_descriptions(
                "The changes.",
                "Changes to one task: only the fields given change. Ids stay."
            ),
            "The changes.\nOnly the fields given change. Ids stay."
        );
        assert_eq!(merge_descriptions("Same.", "Same."), "Same.");
        assert_eq!(merge_descriptions("", "Theirs."), "Theirs.");
        assert_eq!(merge_descriptions("Own.", ""), "Own.");
    }

    #[test]
    fn an_array_doc_replaces_its_item_type_summary() {
        let mut node = json!({
            "type": "array",
            "description": "The tasks to create.",
            "items": {"type": "object", "description": "A task to create."}
        });
        trim_item_summary(node.as_object_mut().expect("object"));
        assert_eq!(node["items"], json!({"type": "object"}));
        let mut node = json!({
            "type": "array",
            "description": "The changes, one per task.",
            "items": {"type": "object", "description": "Changes to one task: only the fields given change."}
        });
        trim_item_summary(node.as_object_mut().expect("object"));
        assert_eq!(
            node["items"],
            json!({"type": "object", "description": "Only the fields given change."})
        );
        // Without a doc on the array, the items keep theirs.
        let mut node = json!({"type": "array", "items": {"description": "A task."}});
        trim_item_summary(node.as_object_mut().expect("object"));
        assert_eq!(node["items"], json!({"description": "A task."}));
    }

    #[test]
    fn variant_docs_that_only_repeat_the_value_are_left_out() {
        let raw = json!({
            "type": "object",
            "properties": {"kind": {"description": "What kind.", "oneOf": [
                {"type": "string", "const": "person", "description": "A person."},
                {"type": "string", "const": "push_note", "description": "Push note"},
                {"type": "string", "const": "place", "description": "A city, venue or address."},
                {"type": "string", "const": "other", "description": "The other one."}
            ]}}
        });
        assert_eq!(
            cleaned(raw)["properties"]["kind"],
            json!({
                "description": "What kind.\n- `place`: A city, venue or address.\n- `other`: The other one.",
                "type": "string",
                "enum": ["person", "push_note", "place", "other"]
            })
        );
        let bare = json!({"type": "object", "properties": {"channel": {"oneOf": [
            {"type": "string", "const": "email", "description": "An email."},
            {"type": "string", "const": "sms", "description": "SMS."}
        ]}}});
        assert_eq!(
            cleaned(bare)["properties"]["channel"],
            json!({"type": "string", "enum": ["email", "sms"]})
        );
    }

    #[derive(schemars::JsonSchema, serde::Deserialize, Debug, PartialEq)]
    #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
    #[allow(dead_code)]
    /// When it repeats.
    enum Repeat {
        /// Once, at `at`.
        Once {
            /// When.
            at: String,
        },
        /// Every hour.
        Hourly {},
        /// Every day.
        Daily {},
        Weekly {},
    }

    #[derive(schemars::JsonSchema, serde::Deserialize, Debug, PartialEq)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Unit {
        /// Before the second.
        First,
        Second,
    }

    /// The cleaned schema with every definition's unit variants folded.
    fn folded<T: JsonSchema>() -> Value {
        let mut schema = clean(raw_schema_for::<T>());
        if let Some(Value::Object(defs)) = schema.get_mut("$defs") {
            for def in defs.values_mut().filter_map(Value::as_object_mut) {
                fold_unit_variants(def);
            }
        }
        schema
    }

    #[test]
    fn unit_variants_of_a_tagged_enum_become_one_branch_with_an_enum_tag() {
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Args {
            repeat: Repeat,
            unit: Unit,
        }
        let schema = folded::<Args>();
        assert_eq!(
            schema["$defs"]["Repeat"],
            json!({
                "description": "When it repeats.",
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {
                            "kind": {"type": "string", "const": "once"},
                            "at": {"type": "string", "description": "When."}
                        },
                        "required": ["kind", "at"],
                        "additionalProperties": false,
                        "description": "Once, at `at`."
                    },
                    {
                        "type": "object",
                        "properties": {"kind": {"type": "string", "enum": ["hourly", "daily", "weekly"]}},
                        "required": ["kind"],
                        "additionalProperties": false,
                        "description": "- `hourly`: Every hour.\n- `daily`: Every day."
                    }
                ]
            })
        );
        // Every branch merged: the union goes.
        assert_eq!(
            schema["$defs"]["Unit"],
            json!({
                "type": "object",
                "properties": {"kind": {"type": "string", "enum": ["first", "second"]}},
                "required": ["kind"],
                "description": "- `first`: Before the second."
            })
        );
    }

    /// Definitions nested anywhere move to the root's `$defs` (renamed on a
    /// clash) and are cleaned there; every `$ref` follows them.
    #[test]
    fn nested_definitions_move_to_the_root_and_refs_follow() {
        let raw = json!({
            "type": "object",
            "properties": {
                "a": {"$ref": "#/properties/a/$defs/Id", "$defs": {"Id": {"title": "Id", "type": "integer", "$defs": {"Deep": {"$schema": "x", "type": "string"}}}}},
                "b": {"$ref": "#/$defs/Id"},
                "c": {"$ref": "#/properties/a/$defs/Id/$defs/Deep"}
            },
            "$defs": {"Id": {"type": "string"}}
        });
        assert_eq!(
            cleaned(raw),
            json!({
                "type": "object",
                "properties": {
                    "a": {"$ref": "#/$defs/Id_2"},
                    "b": {"$ref": "#/$defs/Id"},
                    "c": {"$ref": "#/$defs/Deep"}
                },
                "$defs": {"Id": {"type": "string"}, "Id_2": {"type": "integer"}, "Deep": {"type": "string"}},
                "additionalProperties": false
            })
        );
    }

    /// The merged branch accepts and refuses exactly what the branches did, and
    /// what serde does.
    #[test]
    fn merged_unit_variants_validate_like_the_branches() {
        #[derive(schemars::JsonSchema, serde::Deserialize)]
        #[allow(dead_code)]
        struct Args {
            repeat: Repeat,
        }
        let raw = raw_schema_for::<Args>();
        let before = jsonschema::validator_for(raw.as_value()).expect("schemars' schema compiles");
        let after =
            jsonschema::validator_for(&folded::<Args>()).expect("the folded schema compiles");
        for repeat in [
            json!({"kind": "hourly"}),
            json!({"kind": "weekly"}),
            json!({"kind": "once", "at": "x"}),
            json!({"kind": "monthly"}),
            json!({"kind": "hourly", "at": "x"}),
            json!({"kind": "once"}),
            json!({"kind": ["hourly"]}),
            json!({"kind": null}),
            json!({}),
            json!({"hourly": true}),
        ] {
            let value = json!({ "repeat": repeat });
            let serde = serde_json::from_value::<Args>(value.clone()).is_ok();
            assert_eq!(before.is_valid(&value), serde, "{value}");
            assert_eq!(after.is_valid(&value), serde, "{value}");
        }
    }

    /// A boolean definition gets its object form, so a `$ref` to it inlines;
    /// definitions nothing uses go; `$schema` goes at every depth.
    #[test]
    fn boolean_definitions_become_objects_and_unused_ones_go() {
        let raw = json!({
            "type": "object",
            "properties": {"never": {"$ref": "#/$defs/No"}, "any": {"$ref": "#/$defs/Yes", "$schema": "x"}},
            "$defs": {"No": false, "Yes": true, "Unused": false}
        });
        assert_eq!(
            cleaned(raw),
            json!({
                "type": "object",
                "properties": {"never": {"$ref": "#/$defs/No"}, "any": {"$ref": "#/$defs/Yes"}},
                "$defs": {"No": {"not": {}}, "Yes": {}},
                "additionalProperties": false
            })
        );
    }

    /// A root `allOf`, a one-branch `anyOf` and a root `$ref` merge into one
    /// object; a `false` branch admits nothing and stays (dialects refuse it).
    #[test]
    fn root_unions_merge_into_one_object_where_they_can() {
        let raw = json!({
            "description": "Both.",
            "allOf": [
                true,
                {"properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"description": "More.", "properties": {"a": {"minLength": 1}, "b": {"type": "integer"}}}
            ],
            "anyOf": [false, {"required": ["b"]}],
            "$ref": "#/$defs/Base",
            "$defs": {"Base": {"type": "object", "properties": {"c": {"type": "boolean"}}}}
        });
        assert_eq!(
            cleaned(raw),
            json!({
                "description": "Both.\nMore.",
                "type": "object",
                "properties": {
                    "c": {"type": "boolean"},
                    "a": {"allOf": [{"type": "string"}, {"minLength": 1}]},
                    "b": {"type": "integer"}
                },
                "required": ["b", "a"],
                "additionalProperties": false
            })
        );
        assert_eq!(
            cleaned(json!({"type": "object", "allOf": [false, {"type": "number"}]})),
            json!({"type": "object", "allOf": [false, {"type": "number"}], "properties": {}, "additionalProperties": false})
        );
    }

    /// `$ref: "#"` on the root constrains nothing; a type list allowing an
    /// object narrows to it; another type stays for the dialects to refuse.
    #[test]
    fn root_self_reference_goes_and_type_lists_narrow_to_object() {
        assert_eq!(
            cleaned(json!({"$ref": "#", "type": ["object", "null"]})),
            json!({"type": "object", "properties": {}, "additionalProperties": false})
        );
        assert_eq!(
            cleaned(json!({"type": "number"})),
            json!({"type": "number", "properties": {}, "additionalProperties": false})
        );
    }

    #[test]
    fn empty_root_becomes_closed_object() {
        assert_eq!(
            cleaned(json!({"title": "Unit"})),
            json!({"type": "object", "properties": {}, "additionalProperties": false})
        );
    }
}

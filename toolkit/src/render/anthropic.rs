//! Anthropic Messages tools, lenient and strict.

use serde_json::{Map, Value, json};

use super::Dialect;
use super::canonical::{
    Fail, is_map, is_type, one_of_as_any_of, recursive_definition, refers_to_root,
    state_dropped_constraints, walk_all,
};
use crate::tool::Tool;

/// The tool around `schema`.
pub(super) fn tool(tool: &Tool, schema: Value, dialect: Dialect) -> Value {
    let mut entry = Map::new();
    entry.insert("name".to_owned(), json!(tool.name));
    entry.insert("description".to_owned(), json!(tool.description));
    entry.insert("input_schema".to_owned(), schema);
    if dialect == Dialect::AnthropicStrict {
        entry.insert("strict".to_owned(), Value::Bool(true));
    }
    // Anthropic's tool definitions take example inputs, `input_examples`
    // (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-reference,
    // sent with the `advanced-tool-use-2025-11-20` beta header), each of which
    // must fit `input_schema`: the registry checked them when it was built. A tool
    // without examples keeps the envelope it always had.
    let examples: Vec<Value> = tool
        .examples
        .iter()
        .filter_map(|example| serde_json::from_str(example).ok())
        .collect();
    if !examples.is_empty() {
        entry.insert("input_examples".to_owned(), Value::Array(examples));
    }
    Value::Object(entry)
}

/// The string formats Anthropic strict mode accepts.
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Anthropic strict tool use.
pub(super) fn strict(root: &mut Map<String, Value>) -> Result<(), Fail> {
    const DROPPED: &[&str] = &[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "maxItems",
    ];
    if let Some(cycle) = recursive_definition(root) {
        return Err((
            format!("$defs.{cycle}"),
            format!("`{cycle}` is recursive; Anthropic strict mode accepts no recursive schemas"),
        ));
    }
    if refers_to_root(root) {
        return Err((
            String::new(),
            "the arguments refer to themselves (`$ref: \"#\"`), which is recursive; Anthropic strict mode accepts no recursive schemas".to_owned(),
        ));
    }
    walk_all(root, &mut |node, _| {
        if is_map(node) {
            return Err("a map (an object with free-form keys) cannot be expressed in Anthropic strict mode, where objects are closed; use a `Vec` of key/value structs".to_owned());
        }
        if node.contains_key("prefixItems") {
            return Err("a tuple cannot be expressed in Anthropic strict mode, which drops the length bounds that make it one; use a struct".to_owned());
        }
        // Strict mode takes `anyOf` but not `oneOf` (an internally tagged enum
        // is the common case).
        one_of_as_any_of(node);
        // Dropped, and stated in the description; dispatch still enforces them.
        state_dropped_constraints(node, DROPPED);
        if node
            .get("format")
            .and_then(Value::as_str)
            .is_some_and(|format| !FORMATS.contains(&format))
        {
            node.remove("format");
        }
        if node
            .get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|min| min > 1)
        {
            state_dropped_constraints(node, &["minItems"]);
        }
        // `properties` without a `type` still describe an object to close.
        if is_type(node, "object") || node.contains_key("properties") {
            node.insert("additionalProperties".to_owned(), Value::Bool(false));
        }
        Ok(())
    })
}

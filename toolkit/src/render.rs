//! Rendering tools for each model provider, so each accepts them the first time.
//!
//! Every dialect starts from the canonical schema ([`crate::schema`]) and applies
//! only the rewrites its provider needs. A shape a dialect cannot express (a map in
//! OpenAI strict mode, recursion in Anthropic strict mode or Gemini `parameters`,
//! an untyped `serde_json::Value` where a type is required) is never sent silently
//! broken: rendering that tool in that dialect returns a [`RenderError`] naming the
//! tool, the field and the reason, and the lenient dialects still work.

use std::collections::BTreeSet;
use std::fmt;

use serde_json::{Map, Value, json};

use crate::schema::{
    ARRAY_KEYWORDS, MAP_KEYWORDS, SCHEMA_KEYWORDS, for_each_subschema, subschemas,
};
use crate::{RegisteredTool, Tool};

/// A model provider's tool format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI Chat Completions function tools:
    /// `{"type": "function", "function": {name, description, parameters, strict: false}}`.
    OpenAiChat,
    /// OpenAI Chat Completions in strict mode (`strict: true`): every property
    /// required, optional ones written as a union with `null`, every object closed.
    OpenAiChatStrict,
    /// OpenAI Responses API: flat `{"type": "function", name, description, parameters, strict: false}`.
    OpenAiResponses,
    /// OpenAI Responses API in strict mode.
    OpenAiResponsesStrict,
    /// Anthropic Messages tools: `{name, description, input_schema}`.
    Anthropic,
    /// Anthropic tools with `strict: true`: closed objects, no recursion, no
    /// numeric or length bounds.
    AnthropicStrict,
    /// Gemini function declarations with `parameters`, an OpenAPI 3.0 subset:
    /// `$defs` inlined, `nullable` instead of type unions.
    GeminiParameters,
    /// Gemini function declarations with `parametersJsonSchema` (standard JSON Schema).
    GeminiJsonSchema,
    /// MCP `tools/list` entries: `{name, title, description, inputSchema, outputSchema, annotations, _meta}`.
    Mcp,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 9] = [
        Dialect::OpenAiChat,
        Dialect::OpenAiChatStrict,
        Dialect::OpenAiResponses,
        Dialect::OpenAiResponsesStrict,
        Dialect::Anthropic,
        Dialect::AnthropicStrict,
        Dialect::GeminiParameters,
        Dialect::GeminiJsonSchema,
        Dialect::Mcp,
    ];

    /// A stable lowercase name, for file names and logs (`openai_chat_strict`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Dialect::OpenAiChat => "openai_chat",
            Dialect::OpenAiChatStrict => "openai_chat_strict",
            Dialect::OpenAiResponses => "openai_responses",
            Dialect::OpenAiResponsesStrict => "openai_responses_strict",
            Dialect::Anthropic => "anthropic",
            Dialect::AnthropicStrict => "anthropic_strict",
            Dialect::GeminiParameters => "gemini_parameters",
            Dialect::GeminiJsonSchema => "gemini_json_schema",
            Dialect::Mcp => "mcp",
        }
    }

    pub(crate) const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A tool whose arguments a dialect cannot express.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderError {
    /// The tool's name.
    pub tool: String,
    /// The dialect that cannot express it.
    pub dialect: Dialect,
    /// Where in the arguments, like `filters.tags` or `nodes[]`; `.` for the root,
    /// `$defs.Name.field` inside a shared definition.
    pub path: String,
    /// Why, and what to change.
    pub reason: String,
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool `{}` cannot be rendered for {}: at `{}`: {}",
            self.tool, self.dialect, self.path, self.reason
        )
    }
}

impl std::error::Error for RenderError {}

/// Renders one tool in `dialect` (cached: built once per tool and dialect).
pub fn render_tool(tool: &RegisteredTool, dialect: Dialect) -> Result<Value, RenderError> {
    tool.render(dialect)
}

/// Renders tools in `dialect` as the JSON array a request carries, or the first
/// tool that the dialect cannot express.
pub fn render<'a>(
    tools: impl IntoIterator<Item = &'a RegisteredTool>,
    dialect: Dialect,
) -> Result<Value, RenderError> {
    tools
        .into_iter()
        .map(|tool| tool.render(dialect))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

/// Builds one tool's rendering (uncached).
pub(crate) fn build(
    tool: &Tool,
    canonical: &Value,
    dialect: Dialect,
) -> Result<Value, RenderError> {
    let error = |(path, reason): (String, String)| RenderError {
        tool: tool.name.to_owned(),
        dialect,
        path: if path.is_empty() {
            ".".to_owned()
        } else {
            path
        },
        reason,
    };
    let schema = dialect_schema(canonical, dialect).map_err(error)?;
    Ok(match dialect {
        Dialect::OpenAiChat | Dialect::OpenAiChatStrict => json!({
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": schema,
                "strict": dialect == Dialect::OpenAiChatStrict,
            }
        }),
        Dialect::OpenAiResponses | Dialect::OpenAiResponsesStrict => json!({
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": schema,
            "strict": dialect == Dialect::OpenAiResponsesStrict,
        }),
        Dialect::Anthropic => json!({
            "name": tool.name,
            "description": tool.description,
            "input_schema": schema,
        }),
        Dialect::AnthropicStrict => json!({
            "name": tool.name,
            "description": tool.description,
            "input_schema": schema,
            "strict": true,
        }),
        Dialect::GeminiParameters => {
            let mut declaration = json!({ "name": tool.name, "description": tool.description });
            // Gemini rejects `parameters` whose object has no properties: a tool
            // without parameters declares none.
            if schema["properties"]
                .as_object()
                .is_some_and(|properties| !properties.is_empty())
            {
                declaration["parameters"] = schema;
            }
            declaration
        }
        Dialect::GeminiJsonSchema => json!({
            "name": tool.name,
            "description": tool.description,
            "parametersJsonSchema": schema,
        }),
        Dialect::Mcp => mcp(tool, schema),
    })
}

/// `Err((path, reason))`: the path is filled in by the walkers.
type Fail = (String, String);

fn dialect_schema(canonical: &Value, dialect: Dialect) -> Result<Value, Fail> {
    let mut schema = canonical.clone();
    let Value::Object(root) = &mut schema else {
        return Err((
            String::new(),
            "the arguments schema is not an object".to_owned(),
        ));
    };
    replace_bool_schemas(root);
    if dialect == Dialect::GeminiParameters {
        // Inlines every definition itself, after ruling out recursion.
        gemini_parameters(root)?;
        return Ok(schema);
    }
    inline_single_use_definitions(root);
    // Tuples (`prefixItems`) get `items` too: OpenAI requires it everywhere, and
    // with the length bounds it changes nothing elsewhere.
    walk_all(root, &mut |node, _| {
        give_arrays_items(node);
        Ok(())
    })?;
    match dialect {
        Dialect::OpenAiChatStrict | Dialect::OpenAiResponsesStrict => openai_strict(root)?,
        Dialect::AnthropicStrict => anthropic_strict(root)?,
        // A `const` says its type; the lenient dialects need no `type` beside it
        // (a tag of an internally tagged enum is the common case).
        _ => walk_all(root, &mut |node, _| {
            if node.contains_key("const") && node.get("type").is_some_and(Value::is_string) {
                node.remove("type");
            }
            Ok(())
        })?,
    }
    Ok(schema)
}

/// `true` in a schema position (any value: schemars writes `serde_json::Value` so)
/// becomes `{}`, which every provider reads as a schema; `items: false`, which
/// schemars writes after `prefixItems`, is dropped (the length bounds say it).
/// Keyword *values* that happen to be booleans (`uniqueItems: true`) are left alone.
fn replace_bool_schemas(node: &mut Map<String, Value>) {
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
fn inline_single_use_definitions(root: &mut Map<String, Value>) {
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

fn count_refs(value: &Value, uses: &mut std::collections::BTreeMap<String, usize>) {
    for_each_ref(value, &mut |name| {
        *uses.entry(name.to_owned()).or_default() += 1;
    });
}

/// Calls `f` with the definition name of every `#/$defs/...` reference in `value`.
fn for_each_ref(value: &Value, f: &mut dyn FnMut(&str)) {
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
type Visit<'a> = dyn FnMut(&mut Map<String, Value>, &str) -> Result<(), String> + 'a;

/// Calls `visit` on the root, every `$defs` entry and every subschema, depth
/// first, with a readable path.
fn walk_all(root: &mut Map<String, Value>, visit: &mut Visit<'_>) -> Result<(), Fail> {
    let mut defs = root.remove("$defs");
    walk(root, "", visit)?;
    if let Some(Value::Object(defs)) = &mut defs {
        for (name, def) in defs.iter_mut() {
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

fn walk(node: &mut Map<String, Value>, path: &str, visit: &mut Visit<'_>) -> Result<(), Fail> {
    visit(node, path).map_err(|reason| (path.to_owned(), reason))?;
    let mut result = Ok(());
    for_each_child(node, path, &mut |child, child_path| {
        if result.is_ok() {
            result = walk(child, &child_path, visit);
        }
    });
    result
}

/// Like [`for_each_subschema`], with each child's path.
fn for_each_child(
    node: &mut Map<String, Value>,
    path: &str,
    f: &mut dyn FnMut(&mut Map<String, Value>, String),
) {
    let join = |suffix: &str| format!("{path}{suffix}");
    for (key, value) in node.iter_mut() {
        match (key.as_str(), value) {
            ("properties", Value::Object(properties)) => {
                for (name, child) in properties.iter_mut() {
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
                    for child in child.values_mut().filter_map(Value::as_object_mut) {
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

fn is_type(node: &Map<String, Value>, kind: &str) -> bool {
    match node.get("type") {
        Some(Value::String(single)) => single == kind,
        Some(Value::Array(many)) => many.iter().any(|value| value == kind),
        _ => false,
    }
}

/// OpenAI requires `items` on every array; a tuple's items are the union of its
/// positions.
fn give_arrays_items(node: &mut Map<String, Value>) {
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

fn has_type_information(node: &Map<String, Value>) -> bool {
    ["type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const"]
        .iter()
        .any(|key| node.contains_key(*key))
}

const UNTYPED: &str =
    "an untyped value (such as `serde_json::Value`) has no `type`; use a concrete Rust type";

/// A free-form object: a map, or an object schema without fixed properties.
fn is_map(node: &Map<String, Value>) -> bool {
    matches!(node.get("additionalProperties"), Some(Value::Object(_)))
        || node.contains_key("patternProperties")
        || (is_type(node, "object") && !node.contains_key("properties"))
}

/// OpenAI strict mode (Structured Outputs) for function parameters.
fn openai_strict(root: &mut Map<String, Value>) -> Result<(), Fail> {
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
    walk_all(root, &mut |node, _| {
        if node.contains_key("prefixItems") {
            return Err("a tuple (an array of fixed, mixed positions) cannot be expressed in OpenAI strict mode; use a struct".to_owned());
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
        }
        if let Some(union) = node.remove("oneOf") {
            node.insert("anyOf".to_owned(), union);
        }
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
                "an array without an item type cannot be expressed in OpenAI strict mode"
                    .to_owned(),
            );
        }
        if !has_type_information(node) {
            return Err(UNTYPED.to_owned());
        }
        if node.contains_key("enum") && !node.contains_key("type") {
            infer_enum_type(node);
        }
        wrap_ref_with_siblings(node);
        if is_type(node, "object") {
            node.insert("additionalProperties".to_owned(), Value::Bool(false));
            require_every_property(node);
        }
        Ok(())
    })?;
    check_openai_limits(root)
}

/// `{"description": .., "$ref": ..}` becomes `{"description": .., "anyOf": [{"$ref": ..}]}`:
/// strict mode allows no keyword beside `$ref`, and the description must stay.
fn wrap_ref_with_siblings(node: &mut Map<String, Value>) {
    if node.len() > 1
        && let Some(reference) = node.remove("$ref")
    {
        node.insert("anyOf".to_owned(), json!([{ "$ref": reference }]));
    }
}

fn infer_enum_type(node: &mut Map<String, Value>) {
    let Some(Value::Array(values)) = node.get("enum") else {
        return;
    };
    let mut kinds: Vec<&str> = Vec::new();
    for value in values {
        let kind = match value {
            Value::String(_) => "string",
            Value::Number(number) if number.is_f64() => "number",
            Value::Number(_) => "integer",
            Value::Bool(_) => "boolean",
            Value::Null => "null",
            _ => continue,
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    let kind = if kinds.len() == 1 {
        json!(kinds[0])
    } else {
        json!(kinds)
    };
    node.insert("type".to_owned(), kind);
}

/// Strict mode: every property is required, and an optional one says so by also
/// accepting `null`: dispatch reads a `null` member as absent, so an `Option` is
/// `None` and a defaulted parameter gets its default. Strict mode drops `default`,
/// so the default moves into the description.
fn require_every_property(node: &mut Map<String, Value>) {
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
    node.insert("required".to_owned(), Value::Array(all));
}

fn allow_null(node: &mut Map<String, Value>) {
    if let Some(union) = node.remove("oneOf") {
        node.insert("anyOf".to_owned(), union);
    }
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

fn check_openai_limits(root: &Map<String, Value>) -> Result<(), Fail> {
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
fn nesting<'a>(
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
fn count_sizes(node: &Map<String, Value>, properties: &mut usize, enum_values: &mut usize) {
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

/// Anthropic strict tool use.
fn anthropic_strict(root: &mut Map<String, Value>) -> Result<(), Fail> {
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
    walk_all(root, &mut |node, _| {
        if is_map(node) {
            return Err("a map (an object with free-form keys) cannot be expressed in Anthropic strict mode, where objects are closed; use a `Vec` of key/value structs".to_owned());
        }
        if node.contains_key("prefixItems") {
            return Err("a tuple cannot be expressed in Anthropic strict mode, which drops the length bounds that make it one; use a struct".to_owned());
        }
        for keyword in DROPPED {
            node.remove(*keyword);
        }
        if node
            .get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|min| min > 1)
        {
            node.remove("minItems");
        }
        if is_type(node, "object") {
            node.insert("additionalProperties".to_owned(), Value::Bool(false));
        }
        Ok(())
    })
}

/// The name of a `$defs` entry that refers to itself, directly or not.
fn recursive_definition(root: &Map<String, Value>) -> Option<String> {
    recursive_definitions(root).into_iter().next()
}

/// Every `$defs` entry that refers to itself, directly or not.
fn recursive_definitions(root: &Map<String, Value>) -> BTreeSet<String> {
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

/// Gemini `parameters`: an OpenAPI 3.0 subset.
fn gemini_parameters(root: &mut Map<String, Value>) -> Result<(), Fail> {
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
        if let Some(union) = node.remove("oneOf") {
            node.insert("anyOf".to_owned(), union);
        }
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

fn gemini_property_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && name.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Replaces every `$ref` with a copy of its definition (the caller has ruled out
/// recursion). A description beside the `$ref` is kept, ahead of the
/// definition's own.
fn inline_refs(node: &mut Map<String, Value>, defs: &Map<String, Value>) {
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
                        (Some(own), Some(theirs)) if own != theirs => {
                            Value::String(format!("{own}\n{theirs}"))
                        }
                        (Some(own), _) => Value::String(own),
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
}

/// MCP `tools/list` entry; behaviour hints follow from the verb.
fn mcp(tool: &Tool, input_schema: Value) -> Value {
    let mut entry = Map::new();
    entry.insert("name".to_owned(), json!(tool.name));
    if let Some(title) = tool.title {
        entry.insert("title".to_owned(), json!(title));
    }
    entry.insert("description".to_owned(), json!(tool.description));
    entry.insert("inputSchema".to_owned(), input_schema);
    if let Some(output) = (tool.output_schema)() {
        let output = crate::schema::clean_output(output);
        if output.get("type") == Some(&json!("object")) {
            entry.insert("outputSchema".to_owned(), output);
        }
    }
    entry.insert("annotations".to_owned(), mcp_annotations(tool));
    entry.insert(
        "_meta".to_owned(),
        json!({ "toolkit/tier": tool.tier, "toolkit/scope": tool.scope }),
    );
    Value::Object(entry)
}

/// MCP behaviour hints from the verb: `get`/`search` read only; `delete` and
/// `update` change what exists; `create`/`link` only add. Other verbs (a crate's
/// own vocabulary) claim nothing beyond "not read-only".
fn mcp_annotations(tool: &Tool) -> Value {
    let (read_only, destructive, idempotent) = match tool.verb() {
        "get" | "search" => (true, false, true),
        "delete" | "update" => (false, true, true),
        // Setting a configuration value replaces it, but nothing is lost that the
        // same call can't put back.
        "set" => (false, false, true),
        "create" | "link" => (false, false, false),
        _ => return json!({ "readOnlyHint": false }),
    };
    if read_only {
        json!({ "readOnlyHint": true, "idempotentHint": idempotent })
    } else {
        json!({ "readOnlyHint": false, "destructiveHint": destructive, "idempotentHint": idempotent })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Context, Location, Response, Scope, Tier};

    fn no_schema() -> schemars::Schema {
        schemars::Schema::default()
    }

    fn no_output() -> Option<schemars::Schema> {
        None
    }

    fn no_call<'a>(_: &'a str, _: &'a Context) -> crate::CallFuture<'a> {
        Box::pin(async { Response::Result(Value::Null) })
    }

    const TOOL: Tool = Tool {
        name: "update_tasks",
        description: "Update tasks.",
        scope: Scope::Shared,
        tier: Tier::Confirm,
        always: false,
        group: None,
        aliases: &[],
        guidance: None,
        title: Some("Update tasks"),
        gate: None,
        tags: &[],
        params: &[],
        location: Location {
            file: "x.rs",
            line: 1,
            module_path: "x",
        },
        schema: no_schema,
        output_schema: no_output,
        dispatch: no_call,
        bindings: &[],
        validate: |_| Ok(()),
    };

    fn canonical() -> Value {
        json!({
            "type": "object",
            "properties": {
                "id": {"type": "integer", "minimum": 0, "description": "The task."},
                "note": {"type": "string", "description": "A note.", "maxLength": 200},
                "priority": {"description": "How urgent.", "$ref": "#/$defs/Priority"},
                "labels": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "description": "Labels."},
                "limit": {"type": "integer", "default": 20, "description": "At most this many."}
            },
            "required": ["id"],
            "additionalProperties": false,
            "$defs": {
                "Priority": {"type": "string", "enum": ["low", "high"], "description": "- `low`: Later.\n- `high`: Now."}
            }
        })
    }

    fn schema_of(dialect: Dialect, canonical: &Value) -> Result<Value, RenderError> {
        build(&TOOL, canonical, dialect)
    }

    #[test]
    fn openai_strict_requires_everything_and_unions_optional_with_null() {
        let rendered = schema_of(Dialect::OpenAiChatStrict, &canonical()).unwrap();
        assert_eq!(
            rendered,
            json!({"type": "function", "function": {
                "name": "update_tasks",
                "description": "Update tasks.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer", "minimum": 0, "description": "The task."},
                        "note": {"type": ["string", "null"], "description": "A note."},
                        "priority": {
                            "description": "How urgent.\n- `low`: Later.\n- `high`: Now.",
                            "type": ["string", "null"],
                            "enum": ["low", "high", null]
                        },
                        "labels": {"type": ["array", "null"], "items": {"type": "string"}, "description": "Labels."},
                        "limit": {"type": ["integer", "null"], "description": "At most this many. Default: 20."}
                    },
                    "required": ["id", "note", "priority", "labels", "limit"],
                    "additionalProperties": false
                },
                "strict": true
            }})
        );
    }

    #[test]
    fn definitions_used_twice_stay_shared_and_strict_wraps_their_descriptions() {
        let canonical = json!({
            "type": "object",
            "properties": {
                "from": {"description": "Start.", "$ref": "#/$defs/Day"},
                "to": {"$ref": "#/$defs/Day"}
            },
            "required": ["from", "to"],
            "additionalProperties": false,
            "$defs": {"Day": {"type": "string", "enum": ["mon", "tue"]}}
        });
        let lenient = schema_of(Dialect::OpenAiChat, &canonical).unwrap();
        assert_eq!(lenient["function"]["parameters"], canonical);
        let strict = schema_of(Dialect::OpenAiChatStrict, &canonical).unwrap();
        assert_eq!(
            strict["function"]["parameters"]["properties"],
            json!({
                "from": {"description": "Start.", "anyOf": [{"$ref": "#/$defs/Day"}]},
                "to": {"$ref": "#/$defs/Day"}
            })
        );
    }

    #[test]
    fn gemini_parameters_inlines_definitions_and_keeps_both_descriptions() {
        let rendered = schema_of(Dialect::GeminiParameters, &canonical()).unwrap();
        assert_eq!(
            rendered["parameters"],
            json!({
                "type": "object",
                "properties": {
                    "id": {"type": "integer", "minimum": 0, "description": "The task."},
                    "note": {"type": "string", "description": "A note.", "maxLength": 200},
                    "priority": {"description": "How urgent.\n- `low`: Later.\n- `high`: Now.", "type": "string", "enum": ["low", "high"]},
                    "labels": {"type": "array", "items": {"type": "string"}, "description": "Labels."},
                    "limit": {"type": "integer", "default": 20, "description": "At most this many."}
                },
                "required": ["id"]
            })
        );
    }

    #[test]
    fn anthropic_strict_drops_bounds_and_closes_objects() {
        let rendered = schema_of(Dialect::AnthropicStrict, &canonical()).unwrap();
        assert_eq!(rendered["strict"], json!(true));
        let properties = &rendered["input_schema"]["properties"];
        assert_eq!(
            properties["id"],
            json!({"type": "integer", "description": "The task."})
        );
        assert_eq!(
            properties["note"],
            json!({"type": "string", "description": "A note."})
        );
    }

    #[test]
    fn maps_and_recursion_are_errors_in_the_dialects_that_cannot_say_them() {
        let map = json!({"type": "object", "properties": {
            "counts": {"type": "object", "additionalProperties": {"type": "integer"}, "description": "Counts."}
        }, "additionalProperties": false});
        let error = schema_of(Dialect::OpenAiChatStrict, &map).unwrap_err();
        assert_eq!(
            error.to_string(),
            "tool `update_tasks` cannot be rendered for openai_chat_strict: at `counts`: a map (an object with free-form keys) cannot be expressed in OpenAI strict mode, where every object lists its properties; use a `Vec` of key/value structs"
        );
        assert!(schema_of(Dialect::OpenAiChat, &map).is_ok());

        let tree = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}});
        let error = schema_of(Dialect::GeminiParameters, &tree).unwrap_err();
        assert_eq!(
            (error.path.as_str(), error.dialect),
            ("$defs.Node", Dialect::GeminiParameters)
        );
        assert!(schema_of(Dialect::AnthropicStrict, &tree).is_err());
        assert!(schema_of(Dialect::OpenAiChatStrict, &tree).is_ok());
    }

    #[test]
    fn openai_strict_counts_nesting_through_shared_definitions() {
        // Level{i} has two properties referring to Level{i+1}: shared definitions
        // stay behind `$ref`, so the nesting is only seen by following them.
        let chain = |levels: usize| {
            let mut defs = Map::new();
            for level in 0..levels {
                let next = json!({"$ref": format!("#/$defs/Level{}", level + 1)});
                let properties = if level + 1 == levels {
                    json!({"leaf": {"type": "string"}})
                } else {
                    json!({"a": next.clone(), "b": next})
                };
                defs.insert(
                    format!("Level{level}"),
                    json!({"type": "object", "properties": properties, "required": ["a"]}),
                );
            }
            json!({
                "type": "object",
                "properties": {"top": {"$ref": "#/$defs/Level0"}, "other": {"$ref": "#/$defs/Level0"}},
                "$defs": defs,
            })
        };
        assert!(schema_of(Dialect::OpenAiChatStrict, &chain(9)).is_ok());
        let error = schema_of(Dialect::OpenAiChatStrict, &chain(10)).unwrap_err();
        assert_eq!(
            error.reason,
            "objects nest 11 levels deep; OpenAI strict mode accepts at most 10"
        );
    }

    #[test]
    fn mcp_annotations_follow_the_verb() {
        let rendered = schema_of(Dialect::Mcp, &canonical()).unwrap();
        assert_eq!(rendered["title"], json!("Update tasks"));
        assert_eq!(
            rendered["annotations"],
            json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true})
        );
        assert_eq!(
            rendered["_meta"],
            json!({"toolkit/tier": "confirm", "toolkit/scope": "shared"})
        );
        assert_eq!(rendered.get("outputSchema"), None);
    }
}

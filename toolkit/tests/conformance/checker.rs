//! An independent conformance checker: one rule set per provider dialect, written
//! from the providers' documentation of what each accepts in a tool's schema,
//! not from the renderer, so it can catch the renderer's mistakes.
//!
//! [`check`] looks at one rendered tool on its own. [`check_preserves`] compares it
//! with the tool's declaration and canonical schema: names, descriptions, required
//! and optional properties, MCP annotations.
//!
//! Paths are JSON Pointers into the rendered tool (`/function/parameters/properties/x`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::{Map, Value};
use toolkit::Dialect;

/// Which rule a rendered tool breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Rule {
    /// The envelope has a missing, unexpected or mistyped key.
    Envelope,
    /// The tool name does not match `^[a-zA-Z0-9_-]{1,64}$`.
    ToolName,
    /// The tool description is missing or empty.
    ToolDescription,
    /// A `title` keyword in a schema (a property *named* `title` is fine).
    Title,
    /// A `$schema` keyword in a schema.
    SchemaKeyword,
    /// The arguments' root is not `type: object`.
    RootObject,
    /// The arguments' root is a union (`anyOf`, `oneOf`, `allOf`).
    RootUnion,
    /// An array without an `items` schema.
    ArrayItems,
    /// A top-level property without a non-empty `description`.
    PropertyDescription,
    /// A `required` entry that names no property.
    RequiredUnknown,
    /// A `$ref` that does not point into this schema's `$defs`.
    DanglingRef,
    /// Strict mode: a property missing from `required`.
    RequiredAll,
    /// Strict mode: an object without `additionalProperties: false`.
    ClosedObject,
    /// A keyword the dialect rejects.
    ForbiddenKeyword,
    /// A keyword beside a `$ref` that the dialect does not allow there.
    RefSiblings,
    /// Anthropic: `input_examples` is not a list of objects that each fit
    /// `input_schema`.
    InputExamples,
    /// A keyword whose value has the wrong JSON type (`uniqueItems: {}`).
    KeywordValue,
    /// A `format` the dialect does not accept.
    Format,
    /// A schema node without a `type` where the dialect needs one.
    Untyped,
    /// A `type` value the dialect does not accept (an array, `null`, unknown).
    TypeValue,
    /// A size limit exceeded (properties, nesting, enum values, string length).
    SizeLimit,
    /// A `$ref` cycle in a dialect that cannot express recursion.
    Recursion,
    /// Anthropic strict: `minItems` other than 0 or 1.
    MinItems,
    /// Gemini `parameters`: `$defs` or `$ref` (definitions must be inlined).
    Inlining,
    /// Gemini `parameters`: an object without properties.
    EmptyObject,
    /// Gemini `parameters`: a property name outside `^[A-Za-z_][A-Za-z0-9_]{0,63}$`.
    PropertyName,
    /// Gemini `parameters`: a non-string `enum` value.
    EnumValue,
    /// MCP: `annotations` is not an object of known hints with boolean values, or
    /// the hints contradict the declaration.
    Annotations,
    /// MCP: `outputSchema` is not an object schema, or is missing for an object
    /// result.
    OutputSchema,
    /// MCP: `_meta` is not an object or does not carry the tier.
    Meta,
    /// The rendered name or title differs from the declaration.
    NameChanged,
    /// A description of the declaration or the canonical schema is gone.
    DescriptionLost,
    /// A property of the canonical schema is missing, added or out of order.
    PropertyChanged,
    /// A required property became optional, or an optional one became required
    /// without accepting `null`.
    Optionality,
}

/// One broken rule, at one place in the rendered tool.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Violation {
    /// JSON Pointer into the rendered tool.
    pub(crate) path: String,
    /// The rule broken.
    pub(crate) rule: Rule,
    /// What exactly is wrong.
    pub(crate) detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{path}: {:?}: {}", self.rule, self.detail)
    }
}

/// The rule family a dialect belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flavor {
    OpenAi { strict: bool },
    Anthropic { strict: bool },
    GeminiParameters,
    GeminiJsonSchema,
    Mcp,
}

impl Flavor {
    fn of(dialect: Dialect) -> Option<Flavor> {
        Some(match dialect {
            Dialect::OpenAiChat | Dialect::OpenAiResponses => Flavor::OpenAi { strict: false },
            Dialect::OpenAiChatStrict | Dialect::OpenAiResponsesStrict => {
                Flavor::OpenAi { strict: true }
            }
            Dialect::Anthropic => Flavor::Anthropic { strict: false },
            Dialect::AnthropicStrict => Flavor::Anthropic { strict: true },
            Dialect::GeminiParameters => Flavor::GeminiParameters,
            Dialect::GeminiJsonSchema => Flavor::GeminiJsonSchema,
            Dialect::Mcp => Flavor::Mcp,
            _ => return None,
        })
    }

    fn openai_strict(self) -> bool {
        self == Flavor::OpenAi { strict: true }
    }

    fn anthropic_strict(self) -> bool {
        self == Flavor::Anthropic { strict: true }
    }

    /// Dialects whose arrays need an `items` *schema object*, not a boolean.
    fn items_must_be_object(self) -> bool {
        matches!(self, Flavor::OpenAi { .. } | Flavor::GeminiParameters)
    }

    /// Dialects where every node needs a `type`.
    fn every_node_typed(self) -> bool {
        self.openai_strict() || self == Flavor::GeminiParameters
    }
}

/// How a dialect wraps the schema: the envelope's exact keys.
struct Envelope {
    /// `Some("function")` when the tool sits under `{"type":"function","function":{..}}`.
    nested_under: Option<&'static str>,
    /// Whether the envelope carries `"type": "function"`.
    type_function: bool,
    required: &'static [&'static str],
    optional: &'static [&'static str],
    /// The key holding the arguments' schema.
    schema_key: &'static str,
    /// The value `strict` must have, when the envelope carries it.
    strict: Option<bool>,
}

fn envelope(dialect: Dialect) -> Option<Envelope> {
    const OPENAI_FUNCTION: &[&str] = &["name", "description", "parameters", "strict"];
    const OPENAI_FLAT: &[&str] = &["type", "name", "description", "parameters", "strict"];
    Some(match dialect {
        // Chat Completions reads a missing `strict` as false: lenient tools leave
        // it out.
        Dialect::OpenAiChat => Envelope {
            nested_under: Some("function"),
            type_function: true,
            required: &["name", "description", "parameters"],
            optional: &[],
            schema_key: "parameters",
            strict: None,
        },
        Dialect::OpenAiChatStrict => Envelope {
            nested_under: Some("function"),
            type_function: true,
            required: OPENAI_FUNCTION,
            optional: &[],
            schema_key: "parameters",
            strict: Some(true),
        },
        Dialect::OpenAiResponses | Dialect::OpenAiResponsesStrict => Envelope {
            nested_under: None,
            type_function: true,
            required: OPENAI_FLAT,
            optional: &[],
            schema_key: "parameters",
            strict: Some(dialect == Dialect::OpenAiResponsesStrict),
        },
        Dialect::Anthropic => Envelope {
            nested_under: None,
            type_function: false,
            required: &["name", "description", "input_schema"],
            optional: &["input_examples"],
            schema_key: "input_schema",
            strict: None,
        },
        Dialect::AnthropicStrict => Envelope {
            nested_under: None,
            type_function: false,
            required: &["name", "description", "input_schema", "strict"],
            optional: &["input_examples"],
            schema_key: "input_schema",
            strict: Some(true),
        },
        // Gemini rejects `parameters` whose root object has no properties, so a tool
        // without parameters leaves the key out.
        Dialect::GeminiParameters => Envelope {
            nested_under: None,
            type_function: false,
            required: &["name", "description"],
            optional: &["parameters"],
            schema_key: "parameters",
            strict: None,
        },
        Dialect::GeminiJsonSchema => Envelope {
            nested_under: None,
            type_function: false,
            required: &["name", "description", "parametersJsonSchema"],
            optional: &[],
            schema_key: "parametersJsonSchema",
            strict: None,
        },
        Dialect::Mcp => Envelope {
            nested_under: None,
            type_function: false,
            required: &["name", "description", "inputSchema", "annotations"],
            optional: &["title", "outputSchema", "_meta"],
            schema_key: "inputSchema",
            strict: None,
        },
        _ => return None,
    })
}

/// Appends `key` to a JSON Pointer, escaping `~` and `/`.
pub(crate) fn pointer(path: &str, key: &str) -> String {
    format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"))
}

/// Collects violations.
#[derive(Default)]
struct Report {
    violations: Vec<Violation>,
}

impl Report {
    fn add(&mut self, path: &str, rule: Rule, detail: impl Into<String>) {
        self.violations.push(Violation {
            path: path.to_owned(),
            rule,
            detail: detail.into(),
        });
    }
}

/// Checks one rendered tool against `dialect`'s rules. An empty list means the
/// provider accepts it as far as the documented rules go.
pub(crate) fn check(dialect: Dialect, rendered: &Value) -> Vec<Violation> {
    let mut report = Report::default();
    let (Some(flavor), Some(envelope)) = (Flavor::of(dialect), envelope(dialect)) else {
        report.add(
            "",
            Rule::Envelope,
            format!("no rule set for dialect {dialect:?}"),
        );
        return report.violations;
    };
    let Some(outer) = rendered.as_object() else {
        report.add("", Rule::Envelope, "a rendered tool must be a JSON object");
        return report.violations;
    };

    // The object holding name/description/schema, and its path.
    let (tool, base) = match envelope.nested_under {
        Some(key) => {
            exact_keys(&mut report, "", outer, &["type", key], &[]);
            match outer.get(key) {
                Some(Value::Object(inner)) => (inner, pointer("", key)),
                _ => {
                    report.add(&pointer("", key), Rule::Envelope, "expected an object");
                    return report.violations;
                }
            }
        }
        None => (outer, String::new()),
    };
    if envelope.type_function && outer.get("type") != Some(&Value::from("function")) {
        report.add(
            &pointer("", "type"),
            Rule::Envelope,
            "expected `\"function\"`",
        );
    }
    exact_keys(
        &mut report,
        &base,
        tool,
        envelope.required,
        envelope.optional,
    );
    if let Some(strict) = envelope.strict
        && let Some(value) = tool.get("strict")
        && value != &Value::Bool(strict)
    {
        report.add(
            &pointer(&base, "strict"),
            Rule::Envelope,
            format!("expected `strict: {strict}`, found `{value}`"),
        );
    }

    if let Some(examples) = tool.get("input_examples") {
        check_input_examples(&mut report, &base, examples, tool.get(envelope.schema_key));
    }

    match tool.get("name") {
        Some(Value::String(name)) if is_tool_name(name) => {}
        Some(other) => report.add(
            &pointer(&base, "name"),
            Rule::ToolName,
            format!("`{other}` does not match ^[a-zA-Z0-9_-]{{1,64}}$"),
        ),
        None => {}
    }
    match tool.get("description") {
        Some(Value::String(text)) if !text.trim().is_empty() => {}
        Some(_) => report.add(
            &pointer(&base, "description"),
            Rule::ToolDescription,
            "expected a non-empty string",
        ),
        None => {}
    }

    if let Some(schema) = tool.get(envelope.schema_key) {
        let path = pointer(&base, envelope.schema_key);
        SchemaCheck::new(flavor, schema, &path, &mut report).input();
    }
    if flavor == Flavor::Mcp {
        check_mcp_extras(tool, &mut report);
    }
    report.violations
}

/// Anthropic's `input_examples`: a non-empty array of objects, each valid
/// against the tool's own `input_schema` (the API refuses an example that is not).
fn check_input_examples(report: &mut Report, base: &str, examples: &Value, schema: Option<&Value>) {
    let path = pointer(base, "input_examples");
    let Some(examples) = examples.as_array().filter(|list| !list.is_empty()) else {
        report.add(&path, Rule::InputExamples, "expected a non-empty array");
        return;
    };
    let validator = schema.and_then(|schema| jsonschema::validator_for(schema).ok());
    for (index, example) in examples.iter().enumerate() {
        let at = format!("{path}/{index}");
        if !example.is_object() {
            report.add(&at, Rule::InputExamples, "expected an object");
        } else if let Some(validator) = &validator
            && !validator.is_valid(example)
        {
            report.add(
                &at,
                Rule::InputExamples,
                format!("`{example}` does not fit `input_schema`"),
            );
        }
    }
}

fn exact_keys(
    report: &mut Report,
    path: &str,
    object: &Map<String, Value>,
    required: &[&str],
    optional: &[&str],
) {
    for key in required {
        if !object.contains_key(*key) {
            report.add(&pointer(path, key), Rule::Envelope, "missing key");
        }
    }
    for key in object.keys() {
        if !required.contains(&key.as_str()) && !optional.contains(&key.as_str()) {
            report.add(&pointer(path, key), Rule::Envelope, "unexpected key");
        }
    }
}

fn is_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
}

fn is_gemini_property_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == b'_')
        && name.len() <= 64
        && bytes.all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
}

const MCP_HINTS: &[&str] = &[
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

fn check_mcp_extras(tool: &Map<String, Value>, report: &mut Report) {
    match tool.get("annotations") {
        Some(Value::Object(annotations)) => {
            for (key, value) in annotations {
                let path = pointer("/annotations", key);
                if key == "title" {
                    if !value.is_string() {
                        report.add(&path, Rule::Annotations, "`title` must be a string");
                    }
                } else if !MCP_HINTS.contains(&key.as_str()) {
                    report.add(&path, Rule::Annotations, "not an MCP tool annotation");
                } else if !value.is_boolean() {
                    report.add(&path, Rule::Annotations, "a hint must be a boolean");
                }
            }
        }
        Some(_) => report.add("/annotations", Rule::Annotations, "expected an object"),
        None => {}
    }
    match tool.get("title") {
        Some(Value::String(title)) if !title.trim().is_empty() => {}
        Some(_) => report.add("/title", Rule::Envelope, "expected a non-empty string"),
        None => {}
    }
    match tool.get("_meta") {
        Some(Value::Object(_)) | None => {}
        Some(_) => report.add("/_meta", Rule::Meta, "expected an object"),
    }
    if let Some(output) = tool.get("outputSchema") {
        SchemaCheck::new(Flavor::Mcp, output, "/outputSchema", report).output();
    }
}

/// Keywords whose value is one subschema.
const ONE_SCHEMA: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "contains",
    "not",
    "if",
    "then",
    "else",
];
/// Keywords whose value is a list of subschemas.
const SCHEMA_LIST: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const SCHEMA_MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// One schema node met while walking a schema.
struct Node<'a> {
    path: String,
    value: &'a Value,
    /// The keyword it was reached through (`""` for the root).
    via: &'static str,
}

/// Every node of a schema, parents before children.
fn nodes<'a>(root: &'a Value, path: &str) -> Vec<Node<'a>> {
    let mut out = Vec::new();
    collect(root, path, "", &mut out);
    out
}

fn collect<'a>(value: &'a Value, path: &str, via: &'static str, out: &mut Vec<Node<'a>>) {
    let children = value.as_object();
    out.push(Node {
        path: path.to_owned(),
        value,
        via,
    });
    let Some(object) = children else { return };
    for (key, child) in object {
        if let Some(&keyword) = ONE_SCHEMA.iter().find(|&&k| k == key) {
            match child {
                Value::Array(list) => {
                    for (i, item) in list.iter().enumerate() {
                        collect(
                            item,
                            &pointer(&pointer(path, key), &i.to_string()),
                            keyword,
                            out,
                        );
                    }
                }
                _ => collect(child, &pointer(path, key), keyword, out),
            }
        } else if let Some(&keyword) = SCHEMA_LIST.iter().find(|&&k| k == key) {
            if let Value::Array(list) = child {
                for (i, item) in list.iter().enumerate() {
                    collect(
                        item,
                        &pointer(&pointer(path, key), &i.to_string()),
                        keyword,
                        out,
                    );
                }
            }
        } else if let Some(&keyword) = SCHEMA_MAP.iter().find(|&&k| k == key)
            && let Value::Object(map) = child
        {
            for (name, item) in map {
                collect(item, &pointer(&pointer(path, key), name), keyword, out);
            }
        }
    }
}

/// The `type` of a node as a list (`"string"` -> `["string"]`).
fn types(node: &Map<String, Value>) -> Vec<&str> {
    match node.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn has_type(node: &Map<String, Value>, wanted: &str) -> bool {
    types(node)
        .iter()
        .any(|kind| kind.eq_ignore_ascii_case(wanted))
}

fn is_object_node(node: &Map<String, Value>) -> bool {
    has_type(node, "object") || node.contains_key("properties")
}

const OPENAI_STRICT_FORMATS: &[&str] = &[
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
const OPENAI_STRICT_FORBIDDEN: &[&str] = &[
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "default",
    "minLength",
    "maxLength",
    "uniqueItems",
    "propertyNames",
];
const ANTHROPIC_STRICT_FORMATS: &[&str] = &[
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
/// Strict mode supports `anyOf` but not `oneOf`; no numeric or length bounds.
const ANTHROPIC_STRICT_FORBIDDEN: &[&str] = &[
    "oneOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
];
const GEMINI_FORBIDDEN: &[&str] = &[
    "additionalProperties",
    "const",
    "oneOf",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "uniqueItems",
    "prefixItems",
    "$defs",
    "definitions",
    "$ref",
];
/// The fields of Gemini's `Schema` object (an OpenAPI 3.0 subset); anything else
/// is an unknown field the API rejects. `title` is a field there but stripped by
/// the rule every dialect shares.
const GEMINI_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
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
const JSON_TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "object", "array", "null",
];
/// OpenAI strict limits.
const MAX_PROPERTIES: usize = 5000;
const MAX_OBJECT_DEPTH: usize = 10;
const MAX_ENUM_VALUES: usize = 1000;
const MAX_TOTAL_STRING_LENGTH: usize = 120_000;
const LARGE_ENUM: usize = 250;
const MAX_LARGE_ENUM_LENGTH: usize = 15_000;

/// Checks one schema (the arguments, or MCP's `outputSchema`).
struct SchemaCheck<'a, 'r> {
    flavor: Flavor,
    root: &'a Value,
    path: &'a str,
    report: &'r mut Report,
}

impl<'a, 'r> SchemaCheck<'a, 'r> {
    fn new(flavor: Flavor, root: &'a Value, path: &'a str, report: &'r mut Report) -> Self {
        SchemaCheck {
            flavor,
            root,
            path,
            report,
        }
    }

    /// The arguments' schema: the root rules, then every node.
    fn input(mut self) {
        self.root_rules("arguments");
        if let Some(Value::Object(properties)) = self.root.get("properties") {
            for (name, property) in properties {
                let described = property
                    .get("description")
                    .and_then(Value::as_str)
                    .is_some_and(|text| !text.trim().is_empty());
                if !described {
                    self.report.add(
                        &pointer(&pointer(self.path, "properties"), name),
                        Rule::PropertyDescription,
                        "a top-level property needs a non-empty `description`",
                    );
                }
            }
        }
        if self.flavor == Flavor::GeminiParameters
            && self
                .root
                .get("properties")
                .and_then(Value::as_object)
                .is_none_or(Map::is_empty)
        {
            // Covered by the node rule too, but say it where the fix is.
            self.report.add(
                self.path,
                Rule::EmptyObject,
                "Gemini rejects `parameters` without properties; leave `parameters` out for a tool without parameters",
            );
        }
        self.every_node();
        if self.flavor.openai_strict() {
            self.openai_limits();
        }
        if self.flavor.anthropic_strict() || self.flavor == Flavor::GeminiParameters {
            self.no_recursion();
        }
    }

    /// MCP `outputSchema`: an object schema, clean.
    fn output(mut self) {
        match self.root.as_object() {
            Some(root) if types(root) == ["object"] => {}
            _ => self.report.add(
                self.path,
                Rule::OutputSchema,
                "`outputSchema` must be a schema with `type: \"object\"`",
            ),
        }
        self.every_node();
    }

    fn root_rules(&mut self, what: &str) {
        let Some(root) = self.root.as_object() else {
            self.report.add(
                self.path,
                Rule::RootObject,
                format!("the {what} schema must be a JSON object"),
            );
            return;
        };
        let single_object = match root.get("type") {
            Some(Value::String(kind)) => kind.eq_ignore_ascii_case("object"),
            _ => false,
        };
        if !single_object {
            self.report.add(
                self.path,
                Rule::RootObject,
                format!(
                    "the root must have `type: \"object\"`, found {}",
                    root.get("type")
                        .map_or("no type".to_owned(), Value::to_string)
                ),
            );
        }
        for union in ["anyOf", "oneOf", "allOf"] {
            if root.contains_key(union) {
                self.report.add(
                    &pointer(self.path, union),
                    Rule::RootUnion,
                    "the root must not be a union",
                );
            }
        }
    }

    fn every_node(&mut self) {
        let all = nodes(self.root, self.path);
        for node in &all {
            match node.value {
                Value::Object(object) => self.node_rules(node, object),
                Value::Bool(_) => self.bool_node_rules(node),
                _ => self.report.add(
                    &node.path,
                    Rule::KeywordValue,
                    "a schema must be an object or a boolean",
                ),
            }
        }
    }

    fn bool_node_rules(&mut self, node: &Node<'_>) {
        // `additionalProperties: false` is the usual way to close an object; any
        // other boolean schema is a node without a type.
        let closes = matches!(
            node.via,
            "additionalProperties" | "unevaluatedProperties" | "unevaluatedItems"
        );
        if node.via == "items" && self.flavor.items_must_be_object() {
            self.report.add(
                &node.path,
                Rule::ArrayItems,
                "`items` must be a schema object",
            );
        } else if !closes && self.flavor.every_node_typed() {
            self.report
                .add(&node.path, Rule::Untyped, "a boolean schema has no `type`");
        }
    }

    fn node_rules(&mut self, node: &Node<'_>, object: &Map<String, Value>) {
        let path = node.path.as_str();
        self.common_node_rules(path, object);
        match self.flavor {
            Flavor::OpenAi { strict: true } => self.openai_strict_node(path, object),
            Flavor::Anthropic { strict: true } => self.anthropic_strict_node(path, object),
            Flavor::GeminiParameters => self.gemini_parameters_node(path, object),
            Flavor::GeminiJsonSchema => {
                self.ref_siblings(path, object, &["description", "default"]);
            }
            _ => {}
        }
        if self.flavor.every_node_typed() {
            self.typed(path, object);
        }
    }

    fn common_node_rules(&mut self, path: &str, object: &Map<String, Value>) {
        keyword_values(self.report, path, object);
        if object.contains_key("title") {
            self.report.add(
                &pointer(path, "title"),
                Rule::Title,
                "`title` keywords are noise to the model",
            );
        }
        if object.contains_key("$schema") {
            self.report.add(
                &pointer(path, "$schema"),
                Rule::SchemaKeyword,
                "`$schema` does not belong in a tool schema",
            );
        }
        if has_type(object, "array") {
            match object.get("items") {
                Some(Value::Array(_)) if self.flavor.items_must_be_object() => self.report.add(
                    &pointer(path, "items"),
                    Rule::ArrayItems,
                    "`items` must be one schema object, not a list",
                ),
                // A boolean `items` is reported as a boolean node where it matters.
                Some(_) => {}
                None => self
                    .report
                    .add(path, Rule::ArrayItems, "an array needs an `items` schema"),
            }
        }
        if let Some(required) = object.get("required") {
            let properties = object.get("properties").and_then(Value::as_object);
            match required {
                Value::Array(names) => {
                    for (i, name) in names.iter().enumerate() {
                        let known = name
                            .as_str()
                            .is_some_and(|name| properties.is_some_and(|p| p.contains_key(name)));
                        if !known {
                            self.report.add(
                                &pointer(&pointer(path, "required"), &i.to_string()),
                                Rule::RequiredUnknown,
                                format!("`required` names {name}, which is not a property"),
                            );
                        }
                    }
                }
                _ => self.report.add(
                    &pointer(path, "required"),
                    Rule::RequiredUnknown,
                    "`required` must be a list of property names",
                ),
            }
        }
        if let Some(reference) = object.get("$ref")
            && self.resolve(reference).is_none()
        {
            self.report.add(
                &pointer(path, "$ref"),
                Rule::DanglingRef,
                format!("{reference} does not point into this schema's `$defs`"),
            );
        }
    }

    /// What a `$ref` points at, if it stays inside this schema.
    fn resolve(&self, reference: &Value) -> Option<&'a Value> {
        let reference = reference.as_str()?;
        if reference == "#" {
            return Some(self.root);
        }
        let rest = reference.strip_prefix("#/")?;
        let mut target = self.root;
        for token in rest.split('/') {
            let token = token.replace("~1", "/").replace("~0", "~");
            target = target.get(token.as_str())?;
        }
        Some(target)
    }

    fn closed_objects(&mut self, path: &str, object: &Map<String, Value>) {
        if is_object_node(object) && object.get("additionalProperties") != Some(&Value::Bool(false))
        {
            self.report.add(
                path,
                Rule::ClosedObject,
                format!(
                    "an object needs `additionalProperties: false`, found {}",
                    object
                        .get("additionalProperties")
                        .map_or("none".to_owned(), Value::to_string)
                ),
            );
        }
    }

    fn forbidden(&mut self, path: &str, object: &Map<String, Value>, keys: &[&str], dialect: &str) {
        for key in object.keys() {
            if keys.contains(&key.as_str()) {
                self.report.add(
                    &pointer(path, key),
                    Rule::ForbiddenKeyword,
                    format!("{dialect} does not accept `{key}`"),
                );
            }
        }
    }

    fn ref_siblings(&mut self, path: &str, object: &Map<String, Value>, allowed: &[&str]) {
        if !object.contains_key("$ref") {
            return;
        }
        for key in object.keys() {
            if key != "$ref" && !allowed.contains(&key.as_str()) {
                self.report.add(
                    &pointer(path, key),
                    Rule::RefSiblings,
                    format!("`{key}` beside a `$ref`"),
                );
            }
        }
    }

    fn openai_strict_node(&mut self, path: &str, object: &Map<String, Value>) {
        self.closed_objects(path, object);
        if let Some(Value::Object(properties)) = object.get("properties") {
            let required: BTreeSet<&str> = object
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for name in properties.keys() {
                if !required.contains(name.as_str()) {
                    self.report.add(
                        &pointer(&pointer(path, "properties"), name),
                        Rule::RequiredAll,
                        "strict mode needs every property in `required` (write optional ones as a union with null)",
                    );
                }
            }
        }
        self.forbidden(path, object, OPENAI_STRICT_FORBIDDEN, "OpenAI strict mode");
        self.ref_siblings(path, object, &[]);
        if let Some(format) = object.get("format")
            && !format
                .as_str()
                .is_some_and(|format| OPENAI_STRICT_FORMATS.contains(&format))
        {
            self.report.add(
                &pointer(path, "format"),
                Rule::Format,
                format!("OpenAI strict mode does not accept format {format}"),
            );
        }
        for kind in types(object) {
            if !JSON_TYPES.contains(&kind) {
                self.report.add(
                    &pointer(path, "type"),
                    Rule::TypeValue,
                    format!("unknown type `{kind}`"),
                );
            }
        }
    }

    fn anthropic_strict_node(&mut self, path: &str, object: &Map<String, Value>) {
        self.closed_objects(path, object);
        self.forbidden(
            path,
            object,
            ANTHROPIC_STRICT_FORBIDDEN,
            "Anthropic strict mode",
        );
        if let Some(min) = object.get("minItems")
            && min != &Value::from(0)
            && min != &Value::from(1)
        {
            self.report.add(
                &pointer(path, "minItems"),
                Rule::MinItems,
                format!("Anthropic strict mode accepts `minItems` 0 or 1, found {min}"),
            );
        }
        if let Some(format) = object.get("format")
            && !format
                .as_str()
                .is_some_and(|format| ANTHROPIC_STRICT_FORMATS.contains(&format))
        {
            self.report.add(
                &pointer(path, "format"),
                Rule::Format,
                format!("Anthropic strict mode does not accept format {format}"),
            );
        }
    }

    fn gemini_parameters_node(&mut self, path: &str, object: &Map<String, Value>) {
        for key in object.keys() {
            let key = key.as_str();
            let at = pointer(path, key);
            if matches!(key, "$defs" | "definitions" | "$ref") {
                self.report.add(
                    &at,
                    Rule::Inlining,
                    format!("Gemini `parameters` has no `{key}`; definitions must be inlined"),
                );
            } else if GEMINI_FORBIDDEN.contains(&key) {
                self.report.add(
                    &at,
                    Rule::ForbiddenKeyword,
                    format!("Gemini `parameters` does not accept `{key}`"),
                );
            } else if !GEMINI_FIELDS.contains(&key) && key != "$schema" {
                self.report.add(
                    &at,
                    Rule::ForbiddenKeyword,
                    format!("`{key}` is not a field of Gemini's Schema (an OpenAPI 3.0 subset)"),
                );
            }
        }
        match object.get("type") {
            Some(Value::String(kind)) => {
                let known = JSON_TYPES
                    .iter()
                    .any(|known| *known != "null" && kind.eq_ignore_ascii_case(known));
                if !known {
                    self.report.add(
                        &pointer(path, "type"),
                        Rule::TypeValue,
                        format!("Gemini has no type `{kind}` (write `nullable: true` for null)"),
                    );
                }
            }
            Some(other) => self.report.add(
                &pointer(path, "type"),
                Rule::TypeValue,
                format!(
                    "Gemini needs one type name, found {other} (write `nullable: true` for null)"
                ),
            ),
            None => {}
        }
        if let Some(format) = object.get("format")
            && !matches!(format.as_str(), Some("enum" | "date-time"))
        {
            self.report.add(
                &pointer(path, "format"),
                Rule::Format,
                format!("Gemini accepts format `enum` or `date-time`, found {format}"),
            );
        }
        if let Some(Value::Array(values)) = object.get("enum") {
            for (i, value) in values.iter().enumerate() {
                if !value.is_string() {
                    self.report.add(
                        &pointer(&pointer(path, "enum"), &i.to_string()),
                        Rule::EnumValue,
                        format!("Gemini enum values are strings, found {value}"),
                    );
                }
            }
        }
        if has_type(object, "object")
            && object
                .get("properties")
                .and_then(Value::as_object)
                .is_none_or(Map::is_empty)
            && path != self.path
        {
            self.report.add(
                path,
                Rule::EmptyObject,
                "Gemini rejects an object schema without properties",
            );
        }
        if let Some(Value::Object(properties)) = object.get("properties") {
            for name in properties.keys() {
                if !is_gemini_property_name(name) {
                    self.report.add(
                        &pointer(&pointer(path, "properties"), name),
                        Rule::PropertyName,
                        format!("`{name}` does not match ^[A-Za-z_][A-Za-z0-9_]{{0,63}}$"),
                    );
                }
            }
        }
    }

    /// Every node has a `type`, or is a `$ref` alone, or an `anyOf` whose only
    /// sibling is a `description` (typed through its branches).
    fn typed(&mut self, path: &str, object: &Map<String, Value>) {
        if object.contains_key("type") {
            return;
        }
        // A `$ref` is typed through its target; keywords beside it are a rule of
        // their own (and Gemini reports any `$ref` as not inlined).
        let only_ref = object.contains_key("$ref");
        let gemini = self.flavor == Flavor::GeminiParameters;
        let typed_branches = object.contains_key("anyOf")
            && object.keys().all(|key| {
                matches!(key.as_str(), "anyOf" | "description") || gemini && key == "nullable"
            });
        if only_ref || typed_branches {
            return;
        }
        self.report.add(
            path,
            Rule::Untyped,
            "this node has no `type` (an untyped value, such as serde_json::Value?)",
        );
    }

    fn openai_limits(&mut self) {
        let all = nodes(self.root, self.path);
        let mut properties = 0;
        let mut enum_values = 0;
        let mut string_length = 0;
        for node in &all {
            let Some(object) = node.value.as_object() else {
                continue;
            };
            if let Some(Value::Object(map)) = object.get("properties") {
                properties += map.len();
                string_length += map.keys().map(String::len).sum::<usize>();
            }
            if let Some(Value::Object(map)) = object.get("$defs") {
                string_length += map.keys().map(String::len).sum::<usize>();
            }
            if let Some(Value::String(value)) = object.get("const") {
                string_length += value.len();
            }
            if let Some(Value::Array(values)) = object.get("enum") {
                enum_values += values.len();
                let length: usize = values.iter().filter_map(Value::as_str).map(str::len).sum();
                string_length += length;
                if values.len() > LARGE_ENUM && length > MAX_LARGE_ENUM_LENGTH {
                    self.report.add(
                        &pointer(&node.path, "enum"),
                        Rule::SizeLimit,
                        format!(
                            "an enum of more than {LARGE_ENUM} values may total {MAX_LARGE_ENUM_LENGTH} characters, found {length}"
                        ),
                    );
                }
            }
        }
        if properties > MAX_PROPERTIES {
            self.report.add(
                self.path,
                Rule::SizeLimit,
                format!("{properties} properties, more than {MAX_PROPERTIES}"),
            );
        }
        if enum_values > MAX_ENUM_VALUES {
            self.report.add(
                self.path,
                Rule::SizeLimit,
                format!("{enum_values} enum values, more than {MAX_ENUM_VALUES}"),
            );
        }
        if string_length > MAX_TOTAL_STRING_LENGTH {
            self.report.add(
                self.path,
                Rule::SizeLimit,
                format!(
                    "{string_length} characters of names and values, more than {MAX_TOTAL_STRING_LENGTH}"
                ),
            );
        }
        let mut deepest = (0, String::new());
        let mut stack = Vec::new();
        self.depth(self.root, self.path, 0, &mut stack, &mut deepest);
        if deepest.0 > MAX_OBJECT_DEPTH {
            self.report.add(
                &deepest.1,
                Rule::SizeLimit,
                format!(
                    "objects nested {} levels deep, more than {MAX_OBJECT_DEPTH}",
                    deepest.0
                ),
            );
        }
    }

    /// The deepest nesting of object schemas, following `$ref`s (a cycle counts
    /// once: OpenAI allows recursion).
    fn depth(
        &self,
        value: &'a Value,
        path: &str,
        level: usize,
        refs: &mut Vec<String>,
        deepest: &mut (usize, String),
    ) {
        let Some(object) = value.as_object() else {
            return;
        };
        let level = level + usize::from(is_object_node(object));
        if level > deepest.0 {
            *deepest = (level, path.to_owned());
        }
        if let Some(Value::String(reference)) = object.get("$ref")
            && !refs.contains(reference)
            && let Some(target) = self.resolve(&Value::from(reference.as_str()))
        {
            refs.push(reference.clone());
            self.depth(
                target,
                path,
                level - usize::from(is_object_node(object)),
                refs,
                deepest,
            );
            refs.pop();
        }
        for (key, child) in object {
            if key == "$defs" || key == "definitions" {
                continue;
            }
            let here = pointer(path, key);
            if ONE_SCHEMA.contains(&key.as_str()) {
                self.depth(child, &here, level, refs, deepest);
            } else if SCHEMA_LIST.contains(&key.as_str()) {
                for (i, item) in child.as_array().into_iter().flatten().enumerate() {
                    self.depth(item, &pointer(&here, &i.to_string()), level, refs, deepest);
                }
            } else if SCHEMA_MAP.contains(&key.as_str()) {
                for (name, item) in child.as_object().into_iter().flatten() {
                    self.depth(item, &pointer(&here, name), level, refs, deepest);
                }
            }
        }
    }

    /// Reports each `$ref` that closes a cycle: recursion, including a `$ref` to
    /// the root (`#`).
    fn no_recursion(&mut self) {
        // The root without its definitions, then each definition: who refers to whom.
        let mut bare_root = self.root.clone();
        if let Some(root) = bare_root.as_object_mut() {
            root.remove("$defs");
            root.remove("definitions");
        }
        let mut scopes: Vec<(String, &Value, String)> =
            vec![("#".to_owned(), &bare_root, self.path.to_owned())];
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(defs)) = self.root.get(key) {
                for (name, def) in defs {
                    scopes.push((
                        format!("#/{key}/{name}"),
                        def,
                        pointer(&pointer(self.path, key), name),
                    ));
                }
            }
        }
        let mut edges: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for (id, value, path) in &scopes {
            let refs = nodes(value, path)
                .into_iter()
                .filter_map(|node| match node.value.get("$ref") {
                    Some(Value::String(reference)) => {
                        Some((reference.clone(), pointer(&node.path, "$ref")))
                    }
                    _ => None,
                })
                .collect();
            edges.insert(id.clone(), refs);
        }
        let mut reported = BTreeSet::new();
        for start in edges.keys() {
            // Depth-first search for a way back to `start`.
            let mut stack: Vec<&str> = vec![start];
            let mut seen = BTreeSet::new();
            while let Some(at) = stack.pop() {
                for (target, ref_path) in edges.get(at).into_iter().flatten() {
                    if target == start {
                        if reported.insert(ref_path.clone()) {
                            self.report.add(
                                ref_path,
                                Rule::Recursion,
                                format!("`{target}` refers back to itself: recursion"),
                            );
                        }
                    } else if seen.insert(target.as_str()) {
                        stack.push(target);
                    }
                }
            }
        }
    }
}

/// The JSON type each keyword's value must have; a provider validating the schema
/// rejects anything else (for example `uniqueItems: {}`).
fn keyword_values(report: &mut Report, path: &str, object: &Map<String, Value>) {
    for (key, value) in object {
        let expected = match key.as_str() {
            "uniqueItems" | "nullable" | "readOnly" | "writeOnly" | "deprecated" => {
                (value.is_boolean(), "a boolean")
            }
            "minItems" | "maxItems" | "minLength" | "maxLength" | "minProperties"
            | "maxProperties" | "minContains" | "maxContains" => {
                (value.is_u64(), "a non-negative integer")
            }
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                (value.is_number(), "a number")
            }
            "multipleOf" => (value.as_f64().is_some_and(|n| n > 0.0), "a number above 0"),
            "description" | "format" | "pattern" | "$ref" | "$id" | "$anchor" | "$comment" => {
                (value.is_string(), "a string")
            }
            "type" => (
                match value {
                    Value::String(_) => true,
                    Value::Array(kinds) => !kinds.is_empty() && kinds.iter().all(Value::is_string),
                    _ => false,
                },
                "a type name or a list of them",
            ),
            "enum" | "propertyOrdering" => (value.is_array(), "a list"),
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => (
                value.as_array().is_some_and(|list| !list.is_empty()),
                "a non-empty list of schemas",
            ),
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                (value.is_object(), "an object of schemas")
            }
            _ => (true, ""),
        };
        if let (false, wanted) = expected {
            report.add(
                &pointer(path, key),
                Rule::KeywordValue,
                format!("`{key}` must be {wanted}, found {value}"),
            );
        }
    }
}

/// What the declaration says a tool is, for [`check_preserves`].
#[derive(Clone, Debug)]
pub(crate) struct Declared<'a> {
    /// The tool's name.
    pub(crate) name: &'a str,
    /// The tool's description.
    pub(crate) description: &'a str,
    /// The tool's title, if declared.
    pub(crate) title: Option<&'a str>,
    /// The verb of the name (`get`, `delete`, ...).
    pub(crate) verb: &'a str,
    /// The tier as written in the attribute.
    pub(crate) tier: &'a str,
    /// The canonical (cleaned) arguments schema.
    pub(crate) schema: &'a Value,
    /// Whether the result type has an object schema (MCP then sends `outputSchema`).
    pub(crate) object_output: bool,
}

/// Where the name, description and schema sit in a dialect's envelope.
fn locate(
    dialect: Dialect,
    rendered: &Value,
) -> Option<(&Map<String, Value>, String, &'static str)> {
    let env = envelope(dialect)?;
    let outer = rendered.as_object()?;
    match env.nested_under {
        Some(key) => Some((
            outer.get(key)?.as_object()?,
            pointer("", key),
            env.schema_key,
        )),
        None => Some((outer, String::new(), env.schema_key)),
    }
}

/// Checks that the rendered tool says what the declaration says: same name and
/// title, every description of the declaration and the canonical schema kept,
/// the same properties in the same order, required ones required, optional ones
/// optional (or, where every property must be required, accepting `null`), and for
/// MCP the annotations the verb implies and the tier in `_meta`.
pub(crate) fn check_preserves(
    dialect: Dialect,
    declared: &Declared<'_>,
    rendered: &Value,
) -> Vec<Violation> {
    let mut report = Report::default();
    let Some((tool, base, schema_key)) = locate(dialect, rendered) else {
        report.add("", Rule::Envelope, "cannot find the tool in the envelope");
        return report.violations;
    };
    if tool.get("name").and_then(Value::as_str) != Some(declared.name) {
        report.add(
            &pointer(&base, "name"),
            Rule::NameChanged,
            format!("expected `{}`", declared.name),
        );
    }
    let description = tool
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !description.contains(declared.description) {
        report.add(
            &pointer(&base, "description"),
            Rule::DescriptionLost,
            format!("the tool description {:?} is gone", declared.description),
        );
    }
    let schema_path = pointer(&base, schema_key);
    let empty = Value::Object(Map::new());
    let schema = match tool.get(schema_key) {
        Some(schema) => schema,
        // Only Gemini `parameters` may leave the schema out, for a tool without
        // parameters; any canonical property is then lost.
        None => &empty,
    };

    let mut rendered_descriptions = Vec::new();
    if !tool.contains_key(schema_key) {
        // Gemini `parameters` left out for a tool without parameters: the tool's
        // description is where the arguments' own description can go.
        rendered_descriptions.push(description);
    }
    for node in nodes(schema, &schema_path) {
        if let Some(Value::String(text)) = node.value.get("description") {
            rendered_descriptions.push(text.as_str());
        }
    }
    for node in nodes(declared.schema, "") {
        // A blank description says nothing, so nothing is lost with it.
        if let Some(Value::String(text)) = node.value.get("description")
            && !text.trim().is_empty()
            && !rendered_descriptions
                .iter()
                .any(|kept| kept.contains(text.as_str()))
            && !summary_gave_way(schema, &node.path, text, &rendered_descriptions)
        {
            report.add(
                &schema_path,
                Rule::DescriptionLost,
                format!(
                    "the description {text:?} (canonical {}) is gone",
                    display(&node.path)
                ),
            );
        }
    }

    let mut pairs = Pairing {
        canonical_root: declared.schema,
        rendered_root: schema,
        report: &mut report,
        seen: BTreeSet::new(),
    };
    pairs.compare(declared.schema, schema, &schema_path, 0);

    if dialect == Dialect::Mcp {
        mcp_declaration(declared, tool, &mut report);
    }
    report.violations
}

/// A definition written in place under a property with its own doc keeps only
/// what its doc adds beyond its summary (its first sentence): the property's doc
/// says that for this use (a parameter's doc beside its type's doc).
fn summary_gave_way(schema: &Value, path: &str, text: &str, kept: &[&str]) -> bool {
    // Only a definition the rendering wrote in place (no `$defs` entry left).
    if !path.starts_with("/$defs/")
        || path.matches('/').count() != 2
        || schema.pointer(path).is_some()
    {
        return false;
    }
    let line_end = text.find('\n').unwrap_or(text.len());
    let summary_end = text[..line_end]
        .find(". ")
        .map_or(line_end, |period| period + 1);
    // A detail after a colon in the summary stays (capitalised): compare from
    // its second character.
    let detail = [": ", "; "]
        .iter()
        .filter_map(|mark| text[..summary_end].find(mark))
        .min()
        .map(|at| text[at + 2..summary_end].get(1..).unwrap_or_default());
    let rest = text[summary_end..].trim_start();
    (rest.is_empty() || kept.iter().any(|kept| kept.contains(rest)))
        && detail.is_none_or(|detail| kept.iter().any(|kept| kept.contains(detail)))
}

fn display(path: &str) -> &str {
    if path.is_empty() { "/" } else { path }
}

fn mcp_declaration(declared: &Declared<'_>, tool: &Map<String, Value>, report: &mut Report) {
    if tool.get("title").and_then(Value::as_str) != declared.title {
        report.add(
            "/title",
            Rule::NameChanged,
            format!("expected the declared title {:?}", declared.title),
        );
    }
    let hint = |name: &str| {
        tool.get("annotations")
            .and_then(|annotations| annotations.get(name))
            .and_then(Value::as_bool)
    };
    let mut expect = |name: &str, wanted: bool, why: &str| {
        if hint(name) != Some(wanted) {
            report.add(
                &pointer("/annotations", name),
                Rule::Annotations,
                format!("expected `{name}: {wanted}` ({why})"),
            );
        }
    };
    match declared.verb {
        "get" | "search" => {
            expect("readOnlyHint", true, "get and search only read");
            expect("idempotentHint", true, "get and search only read");
        }
        "delete" => expect("destructiveHint", true, "delete destroys"),
        _ => {
            if hint("readOnlyHint") == Some(true) {
                report.add(
                    "/annotations/readOnlyHint",
                    Rule::Annotations,
                    format!("`{}` changes data; it is not read-only", declared.verb),
                );
            }
        }
    }
    let carries_tier = tool
        .get("_meta")
        .is_some_and(|meta| contains_string(meta, declared.tier));
    if !carries_tier {
        report.add(
            "/_meta",
            Rule::Meta,
            format!("expected the tier `{}` in `_meta`", declared.tier),
        );
    }
    if declared.object_output && !tool.contains_key("outputSchema") {
        report.add(
            "/outputSchema",
            Rule::OutputSchema,
            "the result type has an object schema, so `outputSchema` is expected",
        );
    }
}

fn contains_string(value: &Value, wanted: &str) -> bool {
    match value {
        Value::String(text) => text == wanted,
        Value::Array(items) => items.iter().any(|item| contains_string(item, wanted)),
        Value::Object(map) => map.values().any(|item| contains_string(item, wanted)),
        _ => false,
    }
}

/// Walks the canonical and the rendered schema side by side.
struct Pairing<'a, 'r> {
    canonical_root: &'a Value,
    rendered_root: &'a Value,
    report: &'r mut Report,
    /// `(canonical ref, rendered ref)` pairs already compared: recursion stops.
    seen: BTreeSet<(String, String)>,
}

fn follow<'a>(root: &'a Value, node: &'a Value) -> (&'a Value, Option<String>) {
    let mut node = node;
    let mut last = None;
    for _ in 0..8 {
        let Some(Value::String(reference)) = node.get("$ref") else {
            break;
        };
        let target = if reference == "#" {
            Some(root)
        } else {
            reference.strip_prefix("#/").and_then(|rest| {
                rest.split('/').try_fold(root, |at, token| {
                    at.get(token.replace("~1", "/").replace("~0", "~"))
                })
            })
        };
        let Some(target) = target else { break };
        last = Some(reference.clone());
        node = target;
    }
    (node, last)
}

/// Whether a schema lets the model send `null`.
fn accepts_null(root: &Value, node: &Value) -> bool {
    let (node, _) = follow(root, node);
    let Some(object) = node.as_object() else {
        return node == &Value::Bool(true);
    };
    if object.is_empty() {
        return true;
    }
    let enum_ok = object
        .get("enum")
        .and_then(Value::as_array)
        .is_none_or(|values| values.contains(&Value::Null));
    if (has_type(object, "null") || object.get("nullable") == Some(&Value::Bool(true))) && enum_ok {
        return true;
    }
    ["anyOf", "oneOf"].iter().any(|key| {
        object
            .get(*key)
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(|branch| accepts_null(root, branch)))
    })
}

/// The non-null branch of a `T | null` union, or the node itself.
fn strip_null<'a>(root: &'a Value, node: &'a Value) -> &'a Value {
    let (node, _) = follow(root, node);
    if let Some(Value::Array(branches)) = node.get("anyOf") {
        let kept: Vec<&Value> = branches
            .iter()
            .filter(|branch| !(branch.get("type") == Some(&Value::from("null"))))
            .collect();
        // `T | null`, or a lone `anyOf: [T]` (a `$ref` wrapped to carry a description).
        if kept.len() == 1 {
            return follow(root, kept[0]).0;
        }
    }
    node
}

fn required_names(node: &Value) -> BTreeSet<&str> {
    node.get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

impl Pairing<'_, '_> {
    fn compare(&mut self, canonical: &Value, rendered: &Value, path: &str, depth: usize) {
        if depth > 32 {
            return;
        }
        let (canonical, canonical_ref) = follow(self.canonical_root, canonical);
        let (rendered_node, rendered_ref) = follow(self.rendered_root, rendered);
        let rendered = strip_null(self.rendered_root, rendered_node);
        if let (Some(a), Some(b)) = (&canonical_ref, &rendered_ref)
            && !self.seen.insert((a.clone(), b.clone()))
        {
            return;
        }

        if let Some(Value::Object(properties)) = canonical.get("properties") {
            let rendered_properties = rendered.get("properties").and_then(Value::as_object);
            let canonical_required = required_names(canonical);
            let rendered_required = required_names(rendered);
            // The same names. Not their order: a parsed `Value` has the map's order
            // (name order, or insertion order in a build where rig-core turns on
            // `preserve_order`); the written text's order is pinned by the render
            // tests and the goldens.
            let mut expected: Vec<&str> = properties.keys().map(String::as_str).collect();
            let mut found: Vec<&str> = rendered_properties
                .map(|map| map.keys().map(String::as_str).collect())
                .unwrap_or_default();
            expected.sort_unstable();
            found.sort_unstable();
            if expected != found {
                self.report.add(
                    path,
                    Rule::PropertyChanged,
                    format!("expected properties {expected:?}, found {found:?}"),
                );
            }
            for (name, property) in properties {
                let Some(rendered_property) = rendered_properties.and_then(|map| map.get(name))
                else {
                    continue;
                };
                let at = pointer(&pointer(path, "properties"), name);
                let required = rendered_required.contains(name.as_str());
                if canonical_required.contains(name.as_str()) {
                    if !required {
                        self.report.add(
                            &at,
                            Rule::Optionality,
                            "required in the declaration, optional here",
                        );
                    }
                } else if required && !accepts_null(self.rendered_root, rendered_property) {
                    self.report.add(
                        &at,
                        Rule::Optionality,
                        "optional in the declaration, but required here without accepting null",
                    );
                }
                self.compare(property, rendered_property, &at, depth + 1);
            }
        }
        if let (Some(items), Some(rendered_items)) = (canonical.get("items"), rendered.get("items"))
        {
            self.compare(items, rendered_items, &pointer(path, "items"), depth + 1);
        }
        let branches = |node: &Value| -> Option<(&'static str, Vec<Value>)> {
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(list)) = node.get(key) {
                    let kept = list
                        .iter()
                        .filter(|branch| branch.get("type") != Some(&Value::from("null")))
                        .cloned()
                        .collect();
                    return Some((key, kept));
                }
            }
            None
        };
        if let (Some((_, ours)), Some((key, theirs))) = (branches(canonical), branches(rendered))
            && ours.len() == theirs.len()
        {
            for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                self.compare(
                    a,
                    b,
                    &pointer(&pointer(path, key), &i.to_string()),
                    depth + 1,
                );
            }
        }
    }
}

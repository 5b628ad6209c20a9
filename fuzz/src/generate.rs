//! Arbitrary JSON schemas from fuzzer bytes.
//!
//! Random JSON rarely looks like a schema, so the generator spends its bytes on
//! choices that matter to a schema walker: which keyword, which type, which
//! `$ref` target, how deep. Keyword values usually have the JSON type the keyword
//! takes, and sometimes any value at all, so both well-formed and malformed
//! schemas come out. Running out of bytes just ends the schema.

use serde_json::{Map, Number, Value};

/// Reads choices from the fuzzer's bytes; zeros once they run out.
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    /// A reader over `data`.
    #[must_use]
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data }
    }

    /// The next byte, or 0.
    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&first, rest)) => {
                self.data = rest;
                first
            }
            None => 0,
        }
    }

    /// A number below `bound` (which must not be 0).
    pub fn below(&mut self, bound: usize) -> usize {
        usize::from(self.byte()) % bound
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// Whether bytes are left.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

const TYPES: &[&str] = &[
    "object", "array", "string", "integer", "number", "boolean", "null", "OBJECT", "any",
];

const NAMES: &[&str] = &[
    "a",
    "b",
    "id",
    "title",
    "type",
    "$ref",
    "due-date",
    "",
    "properties",
    "x y",
    "é",
];

const DEFS: &[&str] = &["A", "B", "Node", "a/b", "~0"];

const REFS: &[&str] = &[
    "#/$defs/A",
    "#/$defs/B",
    "#/$defs/Node",
    "#/$defs/a~1b",
    "#/$defs/~00",
    "#",
    "#/$defs/Missing",
    "#/properties/a",
    "#/definitions/A",
    "other.json#/x",
    "",
];

const FORMATS: &[&str] = &[
    "date-time",
    "date",
    "uint32",
    "int64",
    "double",
    "email",
    "uuid",
    "float",
    "",
];

const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "items",
    "prefixItems",
    "$defs",
    "$ref",
    "anyOf",
    "oneOf",
    "allOf",
    "enum",
    "const",
    "description",
    "title",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "multipleOf",
    "additionalProperties",
    "nullable",
    "default",
    "uniqueItems",
    "propertyNames",
    "pattern",
    "not",
    "$schema",
    "definitions",
    "examples",
    "deprecated",
    "readOnly",
    "x-extension",
];

/// The deepest the generator nests schemas.
const MAX_DEPTH: usize = 6;

/// An arbitrary schema whose root is an object schema most of the time, as a
/// tool's arguments are.
pub fn root_schema(bytes: &mut Bytes<'_>) -> Value {
    let mut root = match schema(bytes, 0) {
        Value::Object(root) => root,
        other => return other,
    };
    if bytes.below(4) != 0 {
        root.insert("type".to_owned(), Value::from("object"));
        if !root.contains_key("properties") {
            root.insert("properties".to_owned(), properties(bytes, 1));
        }
    }
    // Parameters are documented (the macro insists), most of the time.
    if let Some(Value::Object(properties)) = root.get_mut("properties") {
        for property in properties.values_mut() {
            if let Value::Object(property) = property
                && bytes.below(8) != 0
            {
                property.insert("description".to_owned(), Value::from("A parameter."));
            }
        }
    }
    if bytes.below(2) == 0 {
        let mut defs = Map::new();
        for _ in 0..bytes.below(3) {
            defs.insert(bytes.pick(DEFS).to_owned(), schema(bytes, 1));
        }
        root.insert("$defs".to_owned(), Value::Object(defs));
    }
    Value::Object(root)
}

/// An arbitrary schema: an object of keywords, or rarely `true`/`false`.
pub fn schema(bytes: &mut Bytes<'_>, depth: usize) -> Value {
    match bytes.below(16) {
        0 => return Value::Bool(true),
        1 => return Value::Bool(false),
        _ => {}
    }
    let mut node = Map::new();
    let count = if depth >= MAX_DEPTH {
        1
    } else {
        bytes.below(6)
    };
    for _ in 0..count {
        if bytes.is_empty() {
            break;
        }
        let keyword = bytes.pick(KEYWORDS);
        let value = keyword_value(bytes, keyword, depth);
        node.insert(keyword.to_owned(), value);
    }
    Value::Object(node)
}

fn keyword_value(bytes: &mut Bytes<'_>, keyword: &str, depth: usize) -> Value {
    // One time in sixteen, a value of any JSON type.
    if bytes.below(16) == 0 {
        return scalar(bytes);
    }
    let deeper = depth + 1;
    let nested = depth < MAX_DEPTH;
    match keyword {
        "type" => match bytes.below(4) {
            0 => Value::Array(
                (0..=bytes.below(3))
                    .map(|_| Value::from(bytes.pick(TYPES)))
                    .collect(),
            ),
            _ => Value::from(bytes.pick(TYPES)),
        },
        "properties" | "$defs" | "definitions" if nested => properties(bytes, deeper),
        "required" => Value::Array(
            (0..bytes.below(4))
                .map(|_| Value::from(bytes.pick(NAMES)))
                .collect(),
        ),
        "items" | "additionalProperties" | "propertyNames" | "not" if nested => {
            schema(bytes, deeper)
        }
        "prefixItems" | "anyOf" | "oneOf" | "allOf" if nested => {
            Value::Array((0..bytes.below(4)).map(|_| schema(bytes, deeper)).collect())
        }
        "$ref" => Value::from(bytes.pick(REFS)),
        "enum" | "examples" => Value::Array((0..bytes.below(4)).map(|_| scalar(bytes)).collect()),
        "const" | "default" => scalar(bytes),
        "description" | "title" | "pattern" => text(bytes),
        "format" => Value::from(bytes.pick(FORMATS)),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            number(bytes)
        }
        "minLength" | "maxLength" | "minItems" | "maxItems" => Value::from(bytes.below(4)),
        "nullable" | "uniqueItems" | "deprecated" | "readOnly" => Value::Bool(bytes.below(2) == 0),
        "$schema" => Value::from("https://json-schema.org/draft/2020-12/schema"),
        _ => scalar(bytes),
    }
}

fn properties(bytes: &mut Bytes<'_>, depth: usize) -> Value {
    let mut map = Map::new();
    for _ in 0..bytes.below(4) {
        map.insert(bytes.pick(NAMES).to_owned(), schema(bytes, depth));
    }
    Value::Object(map)
}

fn text(bytes: &mut Bytes<'_>) -> Value {
    const WORDS: &[&str] = &["", "A thing.", " ", "line\nbreak", "\u{0}", "quote\"", "ü"];
    Value::from(bytes.pick(WORDS))
}

fn number(bytes: &mut Bytes<'_>) -> Value {
    match bytes.below(6) {
        0 => Value::from(-1),
        1 => Value::from(0),
        2 => Value::from(u64::MAX),
        3 => Value::from(i64::MIN),
        4 => Number::from_f64(0.5).map_or(Value::Null, Value::Number),
        _ => Value::from(bytes.byte()),
    }
}

/// Any small JSON value.
fn scalar(bytes: &mut Bytes<'_>) -> Value {
    match bytes.below(8) {
        0 => Value::Null,
        1 => Value::Bool(bytes.below(2) == 0),
        2 => number(bytes),
        3 => text(bytes),
        4 => Value::from(bytes.pick(TYPES)),
        5 => Value::Array(vec![Value::Null, Value::from(1)]),
        6 => serde_json::json!({"type": "string"}),
        _ => Value::from(bytes.pick(NAMES)),
    }
}

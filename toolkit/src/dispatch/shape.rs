//! Arguments mean one thing, the thing the schema says: serde's derive takes a
//! JSON array for a struct, positionally, past the schema. This streaming pass
//! walks the text beside the schema and refuses an array wherever only an object
//! is accepted, in memory proportional to the nesting depth (no `Value` is built),
//! so a large valid call stays cheap. The precise problems come from the schema
//! check afterwards.
//!
//! Why not `jsonschema` alone: it checks a `Value`, so every call of a tool with
//! nested objects would build one. This pass runs only when an array appears in
//! the text where the plan cannot rule it out, and costs one `serde_json`
//! streaming read beside the schema, no `Value`.

use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// Whether `arguments` has an array where the schema accepts only an object.
pub(crate) fn has_array_for_object(schema: &Value, arguments: &str) -> bool {
    let mut deserializer = serde_json::Deserializer::from_str(arguments);
    // Malformed text is not this pass's business: the parser reports it next.
    Shape {
        candidates: vec![schema],
        root: schema,
    }
    .deserialize(&mut deserializer)
    .is_err_and(|error| error.to_string().starts_with(MARK))
}

const MARK: &str = "array for object";

/// The property names after which an array is always in its place: every
/// property of that name, anywhere in the schema, is typed and never takes an
/// object (an array, a string, ...). `None` when names cannot tell: the schema has
/// maps of objects (`additionalProperties` or `patternProperties` with a schema),
/// whose keys are the caller's.
pub(crate) fn array_keys(schema: &Value) -> Option<Box<[Box<str>]>> {
    let mut names: Vec<(String, bool)> = Vec::new();
    let mut maps = false;
    let mut visit = |node: &serde_json::Map<String, Value>| {
        maps |= node
            .get("additionalProperties")
            .is_some_and(Value::is_object)
            || node.contains_key("patternProperties");
        let Some(properties) = node.get("properties").and_then(Value::as_object) else {
            return;
        };
        for (name, property) in properties {
            let safe = never_object(schema, property);
            match names.iter_mut().find(|(known, _)| known == name) {
                Some((_, known_safe)) => *known_safe &= safe,
                None => names.push((name.clone(), safe)),
            }
        }
    };
    crate::schema::walk(schema, &mut visit);
    if maps {
        return None;
    }
    Some(
        names
            .into_iter()
            .filter(|&(_, safe)| safe)
            .map(|(name, _)| name.into_boxed_str())
            .collect(),
    )
}

/// Whether a property's schema (its `$ref`s followed) is typed and takes no object.
fn never_object<'v>(root: &'v Value, mut node: &'v Value) -> bool {
    for _ in 0..8 {
        match node
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix('#'))
        {
            Some(pointer) => match root.pointer(pointer) {
                Some(target) => node = target,
                None => return false,
            },
            None => break,
        }
    }
    let Some(map) = node.as_object() else {
        return false;
    };
    if ["$ref", "anyOf", "oneOf", "allOf", "properties"]
        .iter()
        .any(|key| map.contains_key(*key))
    {
        return false;
    }
    match map.get("type") {
        Some(Value::String(kind)) => kind != "object",
        Some(Value::Array(kinds)) => !kinds.iter().any(|kind| kind == "object"),
        _ => false,
    }
}

/// A byte scan that proves most calls need no [`has_array_for_object`] pass: every
/// `[` outside strings follows `"name":` with `name` in `keys` (from
/// [`array_keys`]). An array at the root, inside another array or after any other
/// key makes it answer `false`, and the precise pass decides.
pub(crate) fn arrays_in_place(keys: &[Box<str>], arguments: &str) -> bool {
    each_bracket_after_a_key(keys, arguments) || scan_arrays_in_place(keys, arguments)
}

/// The common case of [`arrays_in_place`] without reading every byte: each `[`
/// is found with `memchr`, and the bytes just before it must be `"name":` (spaces
/// aside) with `name` in `keys`, both quotes unescaped and no backslash in the
/// name. In valid JSON (the only text the typed parse accepts) an unescaped quote
/// is a string's end, so such a `[` opens an array in its place; a `[` inside a
/// string (or anything else) answers `false` here, and the full scan decides.
/// Linear in the text: the steps back over whitespace from two brackets never
/// overlap, and a name is compared only where it ends.
fn each_bracket_after_a_key(keys: &[Box<str>], arguments: &str) -> bool {
    let bytes = arguments.as_bytes();
    // The last byte before `at` that is not JSON whitespace, and its position.
    let before = |at: usize| {
        bytes[..at]
            .iter()
            .rposition(|byte| !matches!(byte, b' ' | b'\n' | b'\r' | b'\t'))
    };
    memchr::memchr_iter(b'[', bytes).all(|bracket| {
        let Some(colon) = before(bracket).filter(|&at| bytes[at] == b':') else {
            return false;
        };
        let Some(end) = before(colon).filter(|&at| bytes[at] == b'"') else {
            return false;
        };
        keys.iter().any(|name| {
            let name = name.as_bytes();
            // `"name"` ends at `end`, its opening quote not escaped.
            end > name.len()
                && bytes[end - name.len() - 1] == b'"'
                && bytes[end - name.len()..end] == *name
                && (end == name.len() + 1 || bytes[end - name.len() - 2] != b'\\')
                && !name.contains(&b'\\')
                && !name.contains(&b'"')
        })
    })
}

/// [`arrays_in_place`] byte by byte, strings tracked.
fn scan_arrays_in_place(keys: &[Box<str>], arguments: &str) -> bool {
    let bytes = arguments.as_bytes();
    let mut last = 0_u8; // the last byte outside strings and whitespace
    let mut key: &[u8] = &[];
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                // The last string before a `:` is its key (an escaped key never
                // matches a name: the precise pass reads it).
                key = &bytes[start.min(bytes.len())..i.min(bytes.len())];
                last = b'"';
            }
            b'[' => {
                if last != b':' || !keys.iter().any(|name| name.as_bytes() == key) {
                    return false;
                }
                last = b'[';
            }
            b' ' | b'\n' | b'\r' | b'\t' => {}
            other => last = other,
        }
        i += 1;
    }
    true
}

/// The schema nodes a value may match (several inside a union).
struct Shape<'s> {
    candidates: Vec<&'s Value>,
    root: &'s Value,
}

impl<'s> Shape<'s> {
    fn resolve(&self, mut node: &'s Value) -> &'s Value {
        for _ in 0..8 {
            match node
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|reference| reference.strip_prefix('#'))
                .and_then(|pointer| self.root.pointer(pointer))
            {
                Some(target) => node = target,
                None => break,
            }
        }
        node
    }

    /// The candidates with unions opened up: every branch is a candidate.
    fn flattened(&self) -> Vec<&'s Value> {
        let mut out = Vec::new();
        let mut pending: Vec<&'s Value> = self.candidates.clone();
        let mut steps = 0;
        while let Some(node) = pending.pop() {
            steps += 1;
            if steps > 256 {
                break;
            }
            let node = self.resolve(node);
            let mut branched = false;
            for union in ["anyOf", "oneOf", "allOf"] {
                if let Some(branches) = node.get(union).and_then(Value::as_array) {
                    pending.extend(branches.iter());
                    branched = true;
                }
            }
            if !branched || node.get("type").is_some() || node.get("properties").is_some() {
                out.push(node);
            }
        }
        out
    }

    fn child(&self, nodes: Vec<&'s Value>) -> Shape<'s> {
        Shape {
            candidates: nodes,
            root: self.root,
        }
    }
}

/// Whether a node takes only objects (a struct), never an array.
fn object_only(node: &Value) -> bool {
    match node.get("type") {
        Some(Value::String(kind)) => kind == "object",
        Some(Value::Array(kinds)) => !kinds.iter().any(|kind| kind == "array"),
        _ => node.get("properties").is_some(),
    }
}

/// Whether a node says nothing about its content (a `serde_json::Value`).
fn free(node: &Value) -> bool {
    node.as_bool() == Some(true)
        || node.as_object().is_some_and(|map| {
            ![
                "type",
                "properties",
                "items",
                "prefixItems",
                "additionalProperties",
            ]
            .iter()
            .any(|key| map.contains_key(*key))
        })
}

impl<'de> DeserializeSeed<'de> for Shape<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        let nodes = self.flattened();
        if nodes.is_empty() || nodes.iter().any(|node| free(node)) {
            deserializer.deserialize_ignored_any(IgnoredAny)?;
            return Ok(());
        }
        deserializer.deserialize_any(ShapeVisitor(self.child(nodes)))
    }
}

struct ShapeVisitor<'s>(Shape<'s>);

impl<'de> Visitor<'de> for ShapeVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let shape = self.0;
        if shape.candidates.iter().all(|node| object_only(node)) {
            return Err(de::Error::custom(MARK));
        }
        let mut index = 0;
        loop {
            let nodes: Vec<&Value> = shape
                .candidates
                .iter()
                .filter_map(|node| {
                    node.get("prefixItems")
                        .and_then(Value::as_array)
                        .and_then(|positions| positions.get(index))
                        .or_else(|| node.get("items").filter(|items| items.is_object()))
                })
                .collect();
            let found = if nodes.is_empty() {
                seq.next_element::<IgnoredAny>()?.is_some()
            } else {
                seq.next_element_seed(OptionalShape(shape.child(nodes)))?
                    .is_some()
            };
            if !found {
                return Ok(());
            }
            index += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let shape = self.0;
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let key = key.as_str();
            let nodes: Vec<&Value> = shape
                .candidates
                .iter()
                .filter_map(|node| {
                    node.get("properties")
                        .and_then(|properties| properties.get(key))
                        .or_else(|| {
                            node.get("additionalProperties")
                                .filter(|extra| extra.is_object())
                        })
                })
                .collect();
            if nodes.is_empty() {
                map.next_value::<IgnoredAny>()?;
            } else {
                map.next_value_seed(shape.child(nodes))?;
            }
        }
        Ok(())
    }
}

/// An element seed that yields `Some(())` so `next_element_seed` can say whether
/// an element was there.
struct OptionalShape<'s>(Shape<'s>);

impl<'de> DeserializeSeed<'de> for OptionalShape<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.0.deserialize(deserializer)
    }
}

/// A key, borrowed from the text when it has no escapes.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(key) => key,
            Key::Owned(key) => key,
        }
    }
}

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Key<'de>, E> {
                Ok(Key::Borrowed(key))
            }
            fn visit_str<E>(self, key: &str) -> Result<Key<'de>, E> {
                Ok(Key::Owned(key.to_owned()))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_arrays_where_only_objects_go() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tasks": {"type": "array", "items": {"$ref": "#/$defs/Task"}},
                "point": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "integer"}]},
                "config": {},
                "shape": {"oneOf": [
                    {"type": "object", "properties": {"center": {"$ref": "#/$defs/Task"}}},
                    {"type": "object", "properties": {"side": {"type": "integer"}}}
                ]}
            },
            "$defs": {"Task": {"type": "object", "properties": {"id": {"type": "integer"}}}}
        });
        let check = |text: &str| has_array_for_object(&schema, text);
        assert!(!check(
            r#"{"tasks": [{"id": 1}], "point": [1, 2], "config": [[1]]}"#
        ));
        assert!(check(r#"{"tasks": [{"id": 1}, [2]]}"#));
        assert!(check(r#"{"shape": {"center": [1]}}"#));
        assert!(!check(
            r#"{"shape": {"center": {"id": 1}}, "unknown": [[1]]}"#
        ));
        assert!(check("[1]"));
        assert!(!check(r#"{"tasks": [}"#));
    }

    /// The byte scan clears only texts whose every array follows a name that is
    /// never an object; whatever it cannot clear, the precise pass reads, and on
    /// every text here the two agree where the scan clears.
    #[test]
    fn the_byte_scan_clears_only_arrays_in_their_place() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tasks": {"type": "array", "items": {"$ref": "#/$defs/Task"}},
                "labels": {"type": ["array", "null"], "items": {"type": "string"}},
                "task": {"$ref": "#/$defs/Task"},
                "config": {}
            },
            "$defs": {"Task": {"type": "object", "properties": {
                "id": {"type": "integer"},
                "labels": {"type": "array", "items": {"type": "string"}},
                "tasks": {"type": "object"}
            }}}
        });
        let keys = array_keys(&schema).expect("no maps of objects");
        // `tasks` is an object somewhere, `task` and `config` may be objects.
        assert_eq!(&*keys, [Box::from("labels"), Box::from("id")]);
        for (text, cleared) in [
            (r#"{"labels": ["a", "[b"], "task": {"labels": []}}"#, true),
            (r#"{"labels" :[ "a" ]}"#, true),
            (r#"{"tasks": [{"id": 1}]}"#, false),
            (r#"{"task": [1]}"#, false),
            (r#"{"labels": [["a"]]}"#, false),
            (r#"{"la\u0062els": ["a"]}"#, false),
            (r#"["labels"]"#, false),
            (r#"{"config": [1]}"#, false),
            // Brackets in strings, and keys with escapes, go to the full scan.
            (r#"{"labels": ["x\":[", "\"labels\":["]}"#, true),
            (
                r#"{"labels": ["a"], "task": {"id": 1, "x": "a\\\"labels\":[1]"}}"#,
                true,
            ),
            (r#"{"a\"labels": [1]}"#, false),
        ] {
            assert_eq!(arrays_in_place(&keys, text), cleared, "{text}");
            assert_eq!(scan_arrays_in_place(&keys, text), cleared, "{text}");
            if each_bracket_after_a_key(&keys, text) {
                assert!(cleared, "{text}");
            }
            if cleared {
                assert!(!has_array_for_object(&schema, text), "{text}");
            }
        }
        let with_map = json!({
            "type": "object",
            "properties": {
                "labels": {"type": "array"},
                "by_name": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Task"}}
            },
            "$defs": {"Task": {"type": "object", "properties": {"id": {"type": "integer"}}}}
        });
        assert_eq!(array_keys(&with_map), None);
    }
}

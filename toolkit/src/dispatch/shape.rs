//! "Arguments mean one thing" (issue 7): serde's derive takes a JSON array for a
//! struct, positionally, past the schema. This streaming pass walks the text beside
//! the schema and refuses an array wherever only an object is accepted, in memory
//! proportional to the nesting depth (no `Value` is built), so a large valid call
//! stays cheap. The precise problems come from the schema check afterwards.

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
}

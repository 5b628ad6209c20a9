//! Tools with the argument types that are hardest to parse: tuples, untagged and
//! internally tagged enums, `flatten`, `serde_json::Value`, maps, `Vec<Option<T>>`,
//! bounded integers, recursion. Each returns what it was given, so dispatch also
//! serializes every shape back.
//!
//! The conformance corpus (`toolkit/tests/conformance/corpus.rs`, included by the
//! crate root) adds one tool per shape the renderers must handle; these add the
//! combinations the corpus does not have.

// The tools take their arguments by value because the macro deserializes them.
#![allow(clippy::needless_pass_by_value)]

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{Tool, ToolError, tool};

/// Something named either by its id, by its name, or both.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Target {
    /// By id.
    Id(u32),
    /// By name.
    Name(String),
    /// By both.
    Both {
        /// The id.
        id: u32,
        /// The name.
        name: String,
    },
    /// A list of ids.
    Many(Vec<u16>),
}

/// A shape, tagged by `kind`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Shape {
    /// A circle.
    Circle {
        /// Its radius.
        radius: f64,
    },
    /// A rectangle.
    Rect {
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
    },
    /// Nothing.
    Empty {},
    /// A group of shapes.
    Group {
        /// The shapes in it.
        shapes: Vec<Shape>,
    },
}

/// Fields shared by every record, flattened into it.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct Common {
    /// A note.
    pub note: Option<String>,
    /// A level.
    pub level: Option<i16>,
}

/// A record with flattened common fields and a flattened enum.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct Record {
    /// The record's id.
    pub id: u64,
    /// Shared fields.
    #[serde(flatten)]
    pub common: Common,
    /// The record's shape, flattened.
    #[serde(flatten)]
    pub shape: Option<Shape>,
}

/// One slot of a schedule; `null` is an empty slot.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Slot {
    /// Start, minutes after midnight.
    #[schemars(range(max = 1439))]
    pub start: u16,
    /// Length in minutes.
    #[schemars(range(min = 1, max = 600))]
    pub minutes: u16,
    /// Who is in it.
    #[serde(default)]
    pub people: Vec<Option<String>>,
}

/// Set a target and a list of more targets.
#[tool(scope = shared, tier = auto)]
pub fn set_target(
    /// The main target.
    target: Target,
    /// More targets.
    #[serde(default)]
    more: Vec<Target>,
) -> (Target, Vec<Target>) {
    (target, more)
}

/// Create shapes.
#[tool(scope = shared, tier = auto)]
pub fn create_figures(
    /// The shapes.
    shapes: Vec<Shape>,
) -> Vec<Shape> {
    shapes
}

/// Update records.
#[tool(scope = shared, tier = auto)]
pub fn update_records(
    /// The records.
    records: Vec<Record>,
) -> Vec<Record> {
    records
}

/// Create slots; `null` items are empty slots.
#[tool(scope = shared, tier = auto)]
pub fn create_slots(
    /// The slots, in order.
    slots: Vec<Option<Slot>>,
) -> Result<usize, ToolError> {
    if slots.len() > 1000 {
        return Err(ToolError::failed("at most 1000 slots"));
    }
    Ok(slots.iter().flatten().count())
}

/// Set the volume.
#[tool(scope = shared, tier = auto)]
pub fn set_volume(
    /// The volume, 0 to 11.
    #[schemars(range(max = 11))]
    level: u8,
    /// A signed step.
    #[schemars(range(min = -5, max = 5))]
    step: i8,
    /// A wide counter.
    #[tool(default = 0)]
    counter: i128,
    /// A character.
    mark: Option<char>,
) -> String {
    format!("{level} {step} {counter} {mark:?}")
}

/// Set a pair, a triple and a nested tuple.
#[tool(scope = shared, tier = auto)]
pub fn set_pairs(
    /// A label and a count.
    pair: (String, u8),
    /// Three optional flags.
    triple: Option<(bool, Option<bool>, ())>,
    /// Nested tuples.
    #[serde(default)]
    nested: Vec<((i32, i32), f32)>,
) -> String {
    format!("{pair:?} {triple:?} {nested:?}")
}

/// Set arbitrary values and maps.
#[tool(scope = shared, tier = auto)]
pub fn set_values(
    /// Anything.
    value: serde_json::Value,
    /// Counts by name.
    #[serde(default)]
    counts: BTreeMap<String, u64>,
    /// Optional flags by name.
    #[serde(default)]
    flags: HashMap<String, Vec<Option<bool>>>,
) -> serde_json::Value {
    let mut flags: Vec<_> = flags.into_iter().collect();
    flags.sort_by(|a, b| a.0.cmp(&b.0));
    serde_json::json!({"value": value, "counts": counts, "flags": flags})
}

/// Get nothing; takes no arguments.
#[tool(scope = shared, tier = auto)]
pub fn get_nothing() {}

/// The tools above.
#[must_use]
pub fn definitions() -> Vec<&'static Tool> {
    vec![
        set_target::definition(),
        create_figures::definition(),
        update_records::definition(),
        create_slots::definition(),
        set_volume::definition(),
        set_pairs::definition(),
        set_values::definition(),
        get_nothing::definition(),
    ]
}

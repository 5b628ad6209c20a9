//! The corpus: one tool per argument shape the renderers must handle.
//!
//! Every tool is declared exactly as a user would, with doc comments on every tool,
//! parameter, type, field and variant, so the conformance matrix can check that each
//! description survives every dialect.

// The corpus types exist for their schemas, so the tool bodies don't read every
// field; tools take their arguments by value (the macro deserializes them), and
// `set_integers` has one parameter per integer width on purpose.
#![allow(dead_code, clippy::needless_pass_by_value, clippy::too_many_arguments)]

use std::collections::{BTreeMap, BTreeSet, HashMap};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{Registry, Tool, tool};

// --- primitives -------------------------------------------------------------------

/// Set one integer of every width.
#[tool(scope = shared, tier = auto, examples = [
    r#"{"tiny": 255, "small": 1, "medium": 2, "large": 3, "signed_tiny": -128, "signed_small": -1, "signed_medium": -2, "signed_large": -3, "count": 0}"#,
])]
pub(crate) fn set_integers(
    /// An 8-bit unsigned integer.
    tiny: u8,
    /// A 16-bit unsigned integer.
    small: u16,
    /// A 32-bit unsigned integer.
    medium: u32,
    /// A 64-bit unsigned integer.
    large: u64,
    /// An 8-bit signed integer.
    signed_tiny: i8,
    /// A 16-bit signed integer.
    signed_small: i16,
    /// A 32-bit signed integer.
    signed_medium: i32,
    /// A 64-bit signed integer.
    signed_large: i64,
    /// A pointer-sized unsigned integer.
    count: usize,
) -> String {
    format!(
        "{tiny} {small} {medium} {large} {signed_tiny} {signed_small} {signed_medium} {signed_large} {count}"
    )
}

/// Set a ratio and an amount.
#[tool(scope = shared, tier = auto)]
pub(crate) fn set_floats(
    /// A single-precision ratio.
    ratio: f32,
    /// A double-precision amount.
    amount: f64,
) -> f64 {
    f64::from(ratio) * amount
}

/// Set whether the feature is on.
#[tool(scope = shared, tier = auto)]
pub(crate) fn set_flag(
    /// Turn the feature on or off.
    enabled: bool,
) -> bool {
    enabled
}

/// Set the label shown on the board.
#[tool(scope = shared, tier = auto)]
pub(crate) fn set_label(
    /// The new label text.
    label: String,
    /// How many labels to keep at most.
    #[tool(default = 20)]
    keep: u32,
) -> String {
    format!("{label} ({keep})")
}

// --- Option -----------------------------------------------------------------------

/// The person who wrote a note.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Author {
    /// The author's display name.
    pub(crate) name: String,
    /// The author's email address, if known.
    pub(crate) email: Option<String>,
}

/// How urgent something is.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Priority {
    /// Whenever there is time.
    Low,
    /// Within the week.
    Normal,
    /// Today.
    High,
}

/// A colour, without per-variant docs.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub(crate) enum Color {
    Red,
    Green,
    Blue,
}

/// Search notes up to an optional limit.
#[tool(scope = shared, tier = auto)]
pub(crate) fn search_by_limit(
    /// At most this many notes.
    limit: Option<u32>,
) -> Option<u32> {
    limit
}

/// Search notes by an optional author.
#[tool(scope = shared, tier = auto)]
pub(crate) fn search_by_author(
    /// Only notes by this author.
    author: Option<Author>,
) -> String {
    author.map(|author| author.name).unwrap_or_default()
}

/// Search notes by an optional priority.
#[tool(scope = shared, tier = auto)]
pub(crate) fn search_by_priority(
    /// Only notes of this priority.
    priority: Option<Priority>,
) -> Option<Priority> {
    priority
}

// --- sequences, maps, sets, tuples ------------------------------------------------

/// Create records for these ids.
#[tool(scope = shared, tier = confirm)]
pub(crate) fn create_ids(
    /// The ids to create.
    ids: Vec<u32>,
) -> Vec<u32> {
    ids
}

/// One step of a milestone.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Step {
    /// What to do.
    pub(crate) title: String,
    /// Whether it is done.
    pub(crate) done: bool,
}

/// A milestone of a project.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Milestone {
    /// The milestone's name.
    pub(crate) name: String,
    /// The steps that make up the milestone.
    pub(crate) steps: Vec<Step>,
}

/// A project with milestones.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Project {
    /// The project's name.
    pub(crate) name: String,
    /// The milestones, in order.
    pub(crate) milestones: Vec<Milestone>,
}

/// Create projects with their milestones and steps.
#[tool(scope = shared, tier = confirm)]
pub(crate) fn create_projects(
    /// The projects to create.
    projects: Vec<Project>,
) -> usize {
    projects.len()
}

/// Set quotas per user, in a sorted map.
#[tool(scope = shared, tier = approve)]
pub(crate) fn set_quotas(
    /// The quota of each user, by user name.
    quotas: BTreeMap<String, u32>,
) -> usize {
    quotas.len()
}

/// Set counters per key, in a hash map.
#[tool(scope = shared, tier = approve)]
pub(crate) fn set_counters(
    /// The value of each counter, by key.
    counters: HashMap<String, u32>,
) -> usize {
    counters.len()
}

/// Set the tags of a note.
#[tool(scope = shared, tier = auto)]
pub(crate) fn set_tags(
    /// The tags, each at most once.
    tags: BTreeSet<String>,
) -> usize {
    tags.len()
}

/// Set a position as a pair.
#[tool(scope = shared, tier = auto)]
pub(crate) fn set_position(
    /// The row number and the column name.
    position: (u32, String),
) -> String {
    format!("{}{}", position.1, position.0)
}

// --- enums ------------------------------------------------------------------------

/// Set the priority of a note.
#[tool(scope = shared, tier = auto)]
pub(crate) fn set_priority(
    /// The new priority.
    priority: Priority,
) -> Priority {
    priority
}

/// Set the colour of a note.
#[tool(scope = shared, tier = auto)]
pub(crate) fn set_color(
    /// The new colour.
    color: Color,
) -> String {
    format!("{color:?}")
}

/// A shape, tagged by its `kind`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Shape {
    /// A circle.
    Circle {
        /// The radius in centimetres.
        radius: f64,
    },
    /// A rectangle.
    Rectangle {
        /// The width in centimetres.
        width: f64,
        /// The height in centimetres.
        height: f64,
    },
}

/// Create shapes (an internally tagged enum).
#[tool(scope = shared, tier = auto)]
pub(crate) fn create_shapes(
    /// The shapes to draw.
    shapes: Vec<Shape>,
) -> usize {
    shapes.len()
}

/// Something on the calendar (an externally tagged enum).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Event {
    /// A meeting with people.
    Meeting {
        /// Who attends.
        attendees: Vec<String>,
    },
    /// A reminder with its text.
    Reminder(String),
    /// A slot that was cancelled.
    Cancelled,
}

/// Create one calendar event.
#[tool(scope = shared, tier = confirm)]
pub(crate) fn create_events(
    /// The event to create.
    event: Event,
) -> String {
    format!("{event:?}")
}

/// A chat message (an adjacently tagged enum).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub(crate) enum Message {
    /// Plain text.
    Text(String),
    /// An image by address.
    Image {
        /// Where the image is.
        url: String,
    },
}

/// Create a chat message.
#[tool(scope = shared, tier = confirm)]
pub(crate) fn create_messages(
    /// The message to send.
    message: Message,
) -> String {
    format!("{message:?}")
}

/// An amount given in one of several forms (an untagged enum).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum Amount {
    /// An exact number.
    Exact(u32),
    /// A range of numbers.
    Range {
        /// The smallest acceptable number.
        min: u32,
        /// The largest acceptable number.
        max: u32,
    },
    /// A word such as "a few".
    Label(String),
}

/// Create a budget line with an amount.
#[tool(scope = shared, tier = confirm)]
pub(crate) fn create_amounts(
    /// The amount, in any accepted form.
    amount: Amount,
) -> String {
    format!("{amount:?}")
}

// --- serde attributes -------------------------------------------------------------

/// Display settings; every field has a default.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct Settings {
    /// Sound volume from 0 to 10.
    pub(crate) volume: u8,
    /// Whether to use the dark theme.
    pub(crate) dark: bool,
}

/// Update the settings.
#[tool(scope = shared, tier = auto)]
pub(crate) fn update_settings(
    /// The new settings; fields left out keep their defaults.
    #[serde(default)]
    settings: Settings,
    /// Who changed them.
    #[tool(default = String::from("user"))]
    changed_by: String,
) -> String {
    format!("{} {} {changed_by}", settings.volume, settings.dark)
}

/// Set the due date, named with a dash on the wire.
#[tool(scope = shared, tier = auto)]
pub(crate) fn set_due_date(
    /// The date the task is due, as YYYY-MM-DD.
    #[serde(rename = "due-date")]
    due_date: String,
) -> String {
    due_date
}

/// A deadline for one task; the fields are renamed on the wire.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Deadline {
    /// The task this deadline is for.
    #[serde(rename = "taskId")]
    pub(crate) task_id: u32,
    /// When the task is due, as YYYY-MM-DD.
    #[serde(rename = "due-date")]
    pub(crate) due_date: String,
}

/// Update deadlines of tasks.
#[tool(scope = shared, tier = confirm)]
pub(crate) fn update_deadlines(
    /// The deadlines to set.
    deadlines: Vec<Deadline>,
) -> usize {
    deadlines.len()
}

/// A postal address.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Address {
    /// Street and number.
    pub(crate) street: String,
    /// The city.
    pub(crate) city: String,
}

/// A contact with an address written inline.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Contact {
    /// The contact's name.
    pub(crate) name: String,
    /// Where the contact lives; its fields sit beside `name`.
    #[serde(flatten)]
    pub(crate) address: Address,
}

/// Create a contact.
#[tool(scope = shared, tier = confirm)]
pub(crate) fn create_contacts(
    /// The contact to create.
    contact: Contact,
) -> String {
    format!("{} {}", contact.name, contact.address.city)
}

// --- lists whose entries may be `null` ---------------------------------------------
//
// Each entry's type is also used directly above; an `Option` around it must not
// change what a dialect makes of it.

/// Create shapes, with `null` for a gap (optional internally tagged enums).
#[tool(scope = shared, tier = auto)]
pub(crate) fn create_optional_shapes(
    /// The shapes to draw; `null` leaves a gap.
    shapes: Vec<Option<Shape>>,
) -> usize {
    shapes.iter().flatten().count()
}

/// Update deadlines of tasks, with `null` for a task left as it is.
#[tool(scope = shared, tier = confirm)]
pub(crate) fn update_optional_deadlines(
    /// The deadlines to set; `null` keeps a task's deadline.
    deadlines: Vec<Option<Deadline>>,
) -> usize {
    deadlines.iter().flatten().count()
}

/// The quota of each user, by user name (a map behind a newtype).
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Quotas(pub(crate) BTreeMap<String, u32>);

/// Set quotas per team, with `null` for a team without quotas.
#[tool(scope = shared, tier = approve)]
pub(crate) fn set_optional_quotas(
    /// One quota map per team; `null` where a team has none.
    quotas: Vec<Option<Quotas>>,
) -> usize {
    quotas.iter().flatten().count()
}

/// A cell of a sheet: its row number and its column name (a tuple struct).
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Cell(pub(crate) u32, pub(crate) String);

/// Set the selected cells, with `null` for a cursor that selects none.
#[tool(scope = shared, tier = auto)]
pub(crate) fn set_optional_cells(
    /// One cell per cursor; `null` where a cursor selects none.
    cells: Vec<Option<Cell>>,
) -> usize {
    cells.iter().flatten().count()
}

// --- recursion, untyped values, dates, nothing -------------------------------------

/// A node of a tree.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Node {
    /// The node's label.
    pub(crate) label: String,
    /// The node's children, each a tree of its own.
    pub(crate) children: Vec<Node>,
}

/// Create a tree of nodes.
#[tool(scope = shared, tier = confirm)]
pub(crate) fn create_trees(
    /// The root of the tree.
    root: Node,
) -> usize {
    fn count(node: &Node) -> usize {
        1 + node.children.iter().map(count).sum::<usize>()
    }
    count(&root)
}

/// Set free-form metadata.
#[tool(scope = shared, tier = approve)]
pub(crate) fn set_metadata(
    /// Any JSON value.
    metadata: serde_json::Value,
) -> serde_json::Value {
    metadata
}

/// Set a birthday.
#[tool(scope = shared, tier = auto)]
pub(crate) fn set_birthday(
    /// The birthday as a calendar date.
    #[schemars(extend("format" = "date"))]
    birthday: String,
    /// The anniversary, written as YYYY-MM-DD (a date kept as plain text).
    anniversary: Option<String>,
) -> String {
    anniversary.unwrap_or(birthday)
}

/// A status report.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Status {
    /// Whether everything is up.
    pub(crate) healthy: bool,
    /// How many tools are registered.
    pub(crate) tools: u32,
}

/// Get the service status; takes no parameters.
#[tool(scope = shared, tier = auto, title = "Service status")]
pub(crate) fn get_status() -> Status {
    Status {
        healthy: true,
        tools: 0,
    }
}

/// Delete the whole cache.
#[tool(scope = shared, tier = approve)]
pub(crate) fn delete_cache() {}

/// Every corpus tool, by its handle.
pub(crate) fn definitions() -> Vec<&'static Tool> {
    vec![
        set_integers::definition(),
        set_floats::definition(),
        set_flag::definition(),
        set_label::definition(),
        search_by_limit::definition(),
        search_by_author::definition(),
        search_by_priority::definition(),
        create_ids::definition(),
        create_projects::definition(),
        set_quotas::definition(),
        set_counters::definition(),
        set_tags::definition(),
        set_position::definition(),
        set_priority::definition(),
        set_color::definition(),
        create_shapes::definition(),
        create_events::definition(),
        create_messages::definition(),
        create_amounts::definition(),
        update_settings::definition(),
        set_due_date::definition(),
        update_deadlines::definition(),
        create_contacts::definition(),
        create_optional_shapes::definition(),
        update_optional_deadlines::definition(),
        set_optional_quotas::definition(),
        set_optional_cells::definition(),
        create_trees::definition(),
        set_metadata::definition(),
        set_birthday::definition(),
        get_status::definition(),
        delete_cache::definition(),
    ]
}

/// The corpus as a registry of its own (not the process-wide one).
pub(crate) fn registry() -> Registry {
    Registry::new(definitions()).expect("corpus tool names are unique")
}

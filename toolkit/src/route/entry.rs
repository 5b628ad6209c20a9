//! Catalog entries: what a router knows about a tool, whether it is local or comes
//! from elsewhere (an external MCP server, a JSON file).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::declaration::Tier;
use crate::registry::RegisteredTool;
use crate::tool::Tool;

/// Anything that stands for one tool definition: `&Tool`, `&RegisteredTool`, or a
/// view's items. Lets catalogs, guidance and docs take any iterator of tools.
pub trait AsTool {
    /// The tool's static definition.
    fn as_tool(&self) -> &Tool;
}

impl AsTool for Tool {
    fn as_tool(&self) -> &Tool {
        self
    }
}

impl AsTool for RegisteredTool {
    fn as_tool(&self) -> &Tool {
        self.tool()
    }
}

impl<T: AsTool + ?Sized> AsTool for &T {
    fn as_tool(&self) -> &Tool {
        (**self).as_tool()
    }
}

/// One model-visible parameter of a catalog entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamEntry {
    /// The parameter's name.
    pub name: String,
    /// What it means.
    #[serde(default)]
    pub description: String,
}

/// What a router knows about one tool: no schema, only words.
///
/// Built from a [`Tool`] with [`CatalogEntry::from_tool`], or deserialized from JSON
/// (only `name` is required):
///
/// ```
/// let entry: toolkit::route::CatalogEntry = serde_json::from_str(
///     r#"{"name": "getNavItem", "description": "Get navigation items.\n\nBy id or slug."}"#,
/// ).unwrap();
/// assert_eq!(entry.summary, "Get navigation items.");
/// assert_eq!(entry.verb.as_deref(), Some("get"));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "RawEntry")]
pub struct CatalogEntry {
    /// The name the model calls.
    pub name: String,
    /// One line: the first paragraph of the description unless given.
    pub summary: String,
    /// The full description.
    pub description: String,
    /// The tool's family.
    pub group: Option<String>,
    /// Free-form labels.
    pub tags: Vec<String>,
    /// Old names that still resolve to the tool.
    pub aliases: Vec<String>,
    /// The model-visible parameters.
    pub params: Vec<ParamEntry>,
    /// The one gotcha a schema can't say.
    pub guidance: Option<String>,
    /// The verb of the name (`get` in `getNavItem`, `get` in `game_scores.get`),
    /// when the name has one a router knows.
    pub verb: Option<String>,
    /// What users say when this tool is the right one (`#[tool(asked_as = ..)]`):
    /// indexed by [`LexicalRouter`](super::LexicalRouter), never put in a prompt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asked_as: Vec<String>,
}

/// The JSON shape, with everything but the name optional.
#[derive(Deserialize)]
struct RawEntry {
    name: String,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    description: String,
    #[serde(default)]
    group: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    aliases: Vec<String>,
    #[serde(default)]
    params: Vec<ParamEntry>,
    #[serde(default)]
    guidance: Option<String>,
    #[serde(default)]
    verb: Option<String>,
    #[serde(default)]
    asked_as: Vec<String>,
}

impl From<RawEntry> for CatalogEntry {
    fn from(raw: RawEntry) -> Self {
        let summary = raw
            .summary
            .unwrap_or_else(|| first_paragraph(&raw.description).to_owned());
        let verb = raw.verb.or_else(|| verb_of_name(&readable_name(&raw.name)));
        CatalogEntry {
            name: raw.name,
            summary,
            description: raw.description,
            group: raw.group,
            tags: raw.tags,
            aliases: raw.aliases,
            params: raw.params,
            guidance: raw.guidance,
            verb,
            asked_as: raw.asked_as,
        }
    }
}

impl CatalogEntry {
    /// A bare entry with only a name and a description (the summary is its first
    /// paragraph, the verb is read from the name).
    #[must_use]
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        CatalogEntry::from(RawEntry {
            name: name.into(),
            summary: None,
            description: description.into(),
            group: None,
            tags: Vec::new(),
            aliases: Vec::new(),
            params: Vec::new(),
            guidance: None,
            verb: None,
            asked_as: Vec::new(),
        })
    }

    /// The name as the lexical router reads it: [`name`](CatalogEntry::name) with
    /// the escape of runtime tools undone (an external server's
    /// `bilibili_get-2dbilibili-2drank` reads `bilibili_get-bilibili-rank`), so
    /// its words are the remote tool's own and not `2`, `dbilibili`, `drank`.
    /// Text the escape never writes is returned as it is.
    #[must_use]
    pub fn readable_name(&self) -> Cow<'_, str> {
        readable_name(&self.name)
    }

    /// The entry of a local tool. The `confirmed` argument toolkit adds to every
    /// `confirm` tool is left out of its parameters: it is the same on every such
    /// tool ("Set to true only after the user has seen this tool's preview..."),
    /// says nothing about what the tool does, and would pull every `confirm` tool
    /// up for "set", "user" or "seen" in any message.
    #[must_use]
    pub fn from_tool(tool: &Tool) -> Self {
        CatalogEntry {
            name: tool.name.to_owned(),
            summary: tool.summary().to_owned(),
            description: tool.description.to_owned(),
            group: tool.group.map(str::to_owned),
            tags: tool.tags.iter().map(|&tag| tag.to_owned()).collect(),
            aliases: tool.aliases.iter().map(|&alias| alias.to_owned()).collect(),
            params: tool
                .params
                .iter()
                .filter(|param| !is_added_by_toolkit(tool, param))
                .map(|param| ParamEntry {
                    name: param.name.to_owned(),
                    description: param.description.to_owned(),
                })
                .collect(),
            guidance: tool.guidance.map(str::to_owned),
            verb: verb_of_tool(tool),
            asked_as: tool
                .asked_as
                .iter()
                .map(|&message| message.to_owned())
                .collect(),
        }
    }
}

/// The verb a router reads for `tool`: [`Tool::verb`] for a local tool; for a
/// runtime tool (an external server's, offered as `{label}_{escaped name}`), the
/// verb of its own name, read like a name from elsewhere: never its server's
/// label (`bilibili_get-2dbilibili-2drank` has the verb `get`, not `bilibili`).
fn verb_of_tool(tool: &Tool) -> Option<String> {
    if tool.location != crate::runtime::RUNTIME_LOCATION {
        return Some(tool.verb().to_owned());
    }
    let name = readable_name(tool.name);
    let own = tool
        .group
        .and_then(|label| name.strip_prefix(label)?.strip_prefix('_'))
        .unwrap_or(&name);
    verb_of_name(own)
}

/// `name` with the runtime escape undone when it holds one
/// ([`unescape_name`](crate::runtime::unescape_name): `get-2dbilibili-2drank` ->
/// `get-bilibili-rank`), else as it is.
pub(crate) fn readable_name(name: &str) -> Cow<'_, str> {
    if !name.contains('-') {
        return Cow::Borrowed(name);
    }
    crate::runtime::unescape_name(name).map_or(Cow::Borrowed(name), Cow::Owned)
}

/// Whether `param` is an argument toolkit adds to `tool` rather than one its
/// author wrote: the `confirmed` flag of a `confirm` tool (the macro refuses a
/// parameter of that name on such a tool, so the name identifies it).
fn is_added_by_toolkit(tool: &Tool, param: &crate::declaration::Param) -> bool {
    tool.tier == Tier::Confirm && param.name == "confirmed"
}

fn first_paragraph(text: &str) -> &str {
    text.split("\n\n").next().unwrap_or(text).trim()
}

/// The verb of a name from elsewhere: its first word if that is a verb a router
/// knows (`getNavItem`), else its last (`game_scores.get`).
fn verb_of_name(name: &str) -> Option<String> {
    let words = super::lexicon::words(name);
    [words.first(), words.last()]
        .into_iter()
        .flatten()
        .find_map(|word| super::lexicon::canonical_verb(word))
        .map(str::to_owned)
}

/// A list of catalog entries with unique names, in the order given: what a router
/// ranks. Usually the *routed* tools of a view ([`Catalog::routed`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Catalog {
    entries: Vec<CatalogEntry>,
}

impl Catalog {
    /// A catalog of these entries; a later entry with a name already seen is left
    /// out (the first one wins).
    #[must_use]
    pub fn new(entries: impl IntoIterator<Item = CatalogEntry>) -> Self {
        let mut seen = std::collections::HashSet::new();
        let entries = entries
            .into_iter()
            .filter(|entry| seen.insert(entry.name.clone()))
            .collect();
        Catalog { entries }
    }

    /// Every one of these tools, always or routed.
    #[must_use]
    pub fn from_tools<T: AsTool>(tools: impl IntoIterator<Item = T>) -> Self {
        Catalog::new(
            tools
                .into_iter()
                .map(|tool| CatalogEntry::from_tool(tool.as_tool())),
        )
    }

    /// The routed tools among these (not `always`): what a router picks from.
    #[must_use]
    pub fn routed<T: AsTool>(tools: impl IntoIterator<Item = T>) -> Self {
        Catalog::new(
            tools
                .into_iter()
                .filter(|tool| !tool.as_tool().always)
                .map(|tool| CatalogEntry::from_tool(tool.as_tool())),
        )
    }

    /// A catalog from a JSON array of entries (see [`CatalogEntry`]).
    pub fn from_json(json: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str::<Vec<CatalogEntry>>(json).map(Catalog::new)
    }

    /// The entry named `name`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&CatalogEntry> {
        self.entries.iter().find(|entry| entry.name == name)
    }

    /// Every entry, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, CatalogEntry> {
        self.entries.iter()
    }

    /// The entries as a slice.
    #[must_use]
    pub fn entries(&self) -> &[CatalogEntry] {
        &self.entries
    }

    /// How many entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The light list for a prompt or a `search_tools` answer: one line per entry,
    /// ``- `name` (group): summary``.
    #[must_use]
    pub fn to_lines(&self) -> String {
        self.entries.iter().map(line).collect::<Vec<_>>().join("\n")
    }
}

/// ``- `name` (group): summary``, or without the group.
pub(crate) fn line(entry: &CatalogEntry) -> String {
    match &entry.group {
        Some(group) => format!("- `{}` ({group}): {}", entry.name, entry.summary),
        None => format!("- `{}`: {}", entry.name, entry.summary),
    }
}

impl<'a> IntoIterator for &'a Catalog {
    type Item = &'a CatalogEntry;
    type IntoIter = std::slice::Iter<'a, CatalogEntry>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'de> Deserialize<'de> for Catalog {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<CatalogEntry>::deserialize(deserializer).map(Catalog::new)
    }
}

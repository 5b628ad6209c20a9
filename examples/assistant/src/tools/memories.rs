//! Memories: facts about the user worth keeping across conversations, filed under
//! the active project, mentioning entities, linked to each other.
//!
//! Tiers: reads are `auto`; creating and linking are `auto` (additive, and the
//! user expects the assistant to remember); updating is `confirm`, because it
//! overwrites the old text with no history; deleting is `approve`: memories are
//! the user's long-term knowledge, and one lost by mistake silently degrades
//! every later conversation.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{State, ToolError, tool};

use super::entities::{self, EntityKind};
use super::{Deleted, Terms, empty_list, not_found, nothing_changed, require_text, take};
use crate::AssistantState;
use crate::state::Stores;

/// How one memory relates to another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// About the same thing.
    #[default]
    Related,
    /// Gives evidence for the other memory.
    Supports,
    /// Disagrees with the other memory.
    Contradicts,
    /// Is a newer version of the other memory.
    Updates,
}

/// A memory as the model sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Memory {
    /// The memory's id.
    pub id: u32,
    /// What to remember.
    pub content: String,
    /// Labels for finding it again.
    pub tags: Vec<String>,
    /// The project it was filed under, if one was active.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// The names of the entities it mentions.
    pub entities: Vec<String>,
    /// Its links to other memories.
    pub links: Vec<MemoryLink>,
}

/// A link from one memory to another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct MemoryLink {
    /// The memory linked to.
    pub to: u32,
    /// How this memory relates to it.
    pub relation: Relation,
}

/// A link between two memories, as `link_memories` returns it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Link {
    /// The memory the link starts from.
    pub from: u32,
    /// The memory it points to.
    pub to: u32,
    /// How `from` relates to `to`.
    pub relation: Relation,
}

/// An entity a new memory mentions.
// `Serialize` lets schemars write `"default": []` for `NewMemory::entities`;
// without a default the strict dialects render the field as nullable, and serde
// rejects the `null` a model then sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntityMention {
    /// The entity's name, as the user calls it.
    pub name: String,
    /// What kind of thing it is (used only when the entity is new).
    #[serde(default)]
    pub kind: EntityKind,
}

/// A memory to create.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMemory {
    /// What to remember: one self-contained fact, in the third person.
    pub content: String,
    /// Labels for finding it again.
    #[serde(default)]
    pub tags: Vec<String>,
    /// The people, places and things it mentions.
    #[serde(default)]
    pub entities: Vec<EntityMention>,
}

/// Changes to one memory: only the fields given change.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryUpdate {
    /// The memory to change.
    pub id: u32,
    /// The new text (replaces the old one).
    pub content: Option<String>,
    /// The new labels (replace the old ones).
    pub tags: Option<Vec<String>>,
}

/// A stored memory.
#[derive(Clone, Debug)]
pub(crate) struct MemoryRecord {
    content: String,
    tags: Vec<String>,
    project: Option<String>,
    entity_ids: Vec<u32>,
}

impl MemoryRecord {
    fn entity_names(&self, stores: &Stores) -> Vec<String> {
        self.entity_ids
            .iter()
            .filter_map(|&id| stores.entities.get(id))
            .map(|entity| entity.name.clone())
            .collect()
    }

    fn view(&self, id: u32, stores: &Stores) -> Memory {
        Memory {
            id,
            content: self.content.clone(),
            tags: self.tags.clone(),
            project: self.project.clone(),
            entities: self.entity_names(stores),
            // This memory's links are one range of the `(from, to)` index; links to
            // a deleted memory are hidden, not removed.
            links: stores
                .links
                .range((id, 0)..=(id, u32::MAX))
                .filter(|&(&(_, to), _)| stores.memories.contains(to))
                .map(|(&(_, to), &relation)| MemoryLink { to, relation })
                .collect(),
        }
    }

    /// The text a search looks in: content, tags and entity names.
    fn searchable(&self, stores: &Stores) -> String {
        let mut text = self.content.clone();
        for word in self.tags.iter().chain(&self.entity_names(stores)) {
            text.push(' ');
            text.push_str(word);
        }
        text
    }
}

/// Create memories; each is filed under the active project, if any.
#[tool(scope = shared, tier = auto, quota = "30/min", always, group = "memories", aliases = ["store_memory"],
       guidance = "Search first; if a memory on the subject exists, update it instead of creating a duplicate.")]
pub fn create_memories(
    #[ctx] state: State<AssistantState>,
    /// The memories to create.
    memories: Vec<NewMemory>,
) -> Result<Vec<Memory>, ToolError> {
    if memories.is_empty() {
        return Err(empty_list("memories"));
    }
    for (index, memory) in memories.iter().enumerate() {
        require_text(&memory.content, &format!("memories[{index}].content"))?;
        for (position, entity) in memory.entities.iter().enumerate() {
            require_text(
                &entity.name,
                &format!("memories[{index}].entities[{position}].name"),
            )?;
        }
    }
    let mut stores = state.lock();
    // Nothing below can fail: a panic here (a bug) could only leave an entity
    // that no memory mentions yet, and such an entity is invisible.
    let mut ids = Vec::with_capacity(memories.len());
    for new in memories {
        let id = stores.memories.next_id();
        let mut seen = BTreeSet::new();
        let mut entity_ids = Vec::with_capacity(new.entities.len());
        for mention in &new.entities {
            let entity = entities::resolve(&mut stores, &mention.name, mention.kind);
            if seen.insert(entity) {
                entity_ids.push(entity);
            }
        }
        for &entity in &entity_ids {
            if let Some(record) = stores.entities.get_mut(entity) {
                record.add_mention(id);
            }
        }
        let record = MemoryRecord {
            content: new.content,
            tags: new.tags,
            project: stores.project.clone(),
            entity_ids,
        };
        ids.push(stores.memories.insert(record));
    }
    Ok(views(&stores, &ids))
}

/// The views of the memories `ids`, in that order.
fn views(stores: &Stores, ids: &[u32]) -> Vec<Memory> {
    ids.iter()
        .filter_map(|&id| Some(stores.memories.get(id)?.view(id, stores)))
        .collect()
}

/// Search memories by words in their content, tags and entities; newest first.
#[tool(scope = shared, tier = auto, always, group = "memories",
       aliases = ["recall", "search_memory"],
       guidance = "While a project is set, only its memories and unfiled ones are searched; pass all_projects: true for everything.")]
pub fn search_memories(
    #[ctx] state: State<AssistantState>,
    /// Words that must all appear (case-insensitive).
    query: String,
    /// Search every project's memories, not only the active project's.
    #[tool(default = false)]
    all_projects: bool,
    /// At most this many memories.
    #[tool(default = 10)]
    limit: u32,
) -> Result<Vec<Memory>, ToolError> {
    // The query is read before taking the lock, once, not once per memory.
    let terms = Terms::new(&query)?;
    let stores = state.lock();
    let project = stores.project.as_deref().filter(|_| !all_projects);
    Ok(stores
        .memories
        .newest_first()
        .filter(|(_, memory)| match (project, memory.project.as_deref()) {
            (Some(active), Some(filed)) => active == filed,
            _ => true,
        })
        .filter(|(_, memory)| terms.all_in(&memory.searchable(&stores)))
        .take(take(limit))
        .map(|(id, memory)| memory.view(id, &stores))
        .collect())
}

/// Get memories: one by `id`, or the latest ones, newest first.
#[tool(scope = shared, tier = auto, group = "memories", aliases = ["fetch_memory"])]
pub fn get_memories(
    #[ctx] state: State<AssistantState>,
    /// Return only this memory.
    id: Option<u32>,
    /// At most this many memories.
    #[tool(default = 20)]
    limit: u32,
) -> Result<Vec<Memory>, ToolError> {
    let stores = state.lock();
    if let Some(id) = id {
        let memory = stores
            .memories
            .get(id)
            .ok_or_else(|| not_found("memory", id))?;
        return Ok(vec![memory.view(id, &stores)]);
    }
    Ok(stores
        .memories
        .newest_first()
        .take(take(limit))
        .map(|(id, memory)| memory.view(id, &stores))
        .collect())
}

/// Update memories: only the fields given change. Returns the updated memories.
#[tool(scope = shared, tier = confirm, quota = "30/min", group = "memories", aliases = ["update_memory"])]
pub fn update_memories(
    #[ctx] state: State<AssistantState>,
    /// The changes, one entry per memory.
    memories: Vec<MemoryUpdate>,
) -> Result<Vec<Memory>, ToolError> {
    if memories.is_empty() {
        return Err(empty_list("memories"));
    }
    let mut stores = state.lock();
    for (index, update) in memories.iter().enumerate() {
        if !stores.memories.contains(update.id) {
            return Err(nothing_changed("memory", update.id, "updated"));
        }
        if let Some(content) = &update.content {
            require_text(content, &format!("memories[{index}].content"))?;
        }
    }
    let mut ids = Vec::with_capacity(memories.len());
    for update in memories {
        if let Some(memory) = stores.memories.get_mut(update.id) {
            if let Some(content) = update.content {
                memory.content = content;
            }
            if let Some(tags) = update.tags {
                memory.tags = tags;
            }
        }
        ids.push(update.id);
    }
    Ok(views(&stores, &ids))
}

/// Delete memories by id.
#[tool(scope = shared, tier = approve, quota = "10/min", group = "memories", aliases = ["delete_memory"],
       guidance = "For a memory that is out of date, update it; delete only what the user asks to forget.")]
pub fn delete_memories(
    #[ctx] state: State<AssistantState>,
    /// The ids of the memories to delete.
    ids: Vec<u32>,
) -> Result<Deleted, ToolError> {
    let mut stores = state.lock();
    let deleted = super::soft_delete(&mut stores, &ids, "memory", |stores| &mut stores.memories)?;
    // The entities lose a live mention each; one no live memory mentions is
    // hidden (see `entities`). Counting down cannot fail.
    let Stores {
        memories, entities, ..
    } = &mut *stores;
    for &id in &deleted.deleted {
        for &entity in memories
            .stored(id)
            .map_or(&[][..], |memory| &memory.entity_ids)
        {
            if let Some(record) = entities.get_mut(entity) {
                record.remove_mention();
            }
        }
    }
    Ok(deleted)
}

/// Link two memories: `from` relates to `to` as `relation` says. Linking the same
/// pair again changes the relation.
#[tool(scope = shared, tier = auto, quota = "30/min", group = "memories")]
pub fn link_memories(
    #[ctx] state: State<AssistantState>,
    /// The memory the link starts from.
    from: u32,
    /// The memory it points to.
    to: u32,
    /// How `from` relates to `to`.
    #[tool(default = Relation::Related)]
    relation: Relation,
) -> Result<Link, ToolError> {
    if from == to {
        return Err(ToolError::failed(format!(
            "a memory cannot be linked to itself (from and to are both {from})"
        )));
    }
    let mut stores = state.lock();
    for id in [from, to] {
        if !stores.memories.contains(id) {
            return Err(not_found("memory", id));
        }
    }
    stores.links.insert((from, to), relation);
    Ok(Link { from, to, relation })
}

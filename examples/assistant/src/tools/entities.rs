//! Entities: the people, places and things memories mention. They are created by
//! `create_memories` (its `entities` list), so the model only reads them here.
//!
//! An entity exists only through the memories that mention it: once every memory
//! naming it is deleted, the entity is hidden too (its name came from those
//! memories, and a deleted memory must not stay visible through another tool).
//! Mentioning the name again in a new memory brings the same entity back.
//!
//! Tiers: both tools only read, so `auto`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{State, ToolError, tool};

use super::{Terms, not_found, take};
use crate::AssistantState;
use crate::state::Stores;

/// What kind of thing an entity is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EntityKind {
    /// A person.
    Person,
    /// A company, team or club.
    Organization,
    /// A city, venue or address.
    Place,
    /// A project or piece of work.
    Project,
    /// Anything else.
    #[default]
    Other,
}

/// An entity as the model sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Entity {
    /// The entity's id.
    pub id: u32,
    /// Its name.
    pub name: String,
    /// What kind of thing it is.
    pub kind: EntityKind,
    /// The ids of the memories that mention it.
    pub memories: Vec<u32>,
}

/// A stored entity.
#[derive(Clone, Debug)]
pub(crate) struct EntityRecord {
    pub(crate) name: String,
    kind: EntityKind,
    /// The memories that mention it, oldest first, deleted ones included (a view
    /// skips them): a view reads this list instead of scanning every memory.
    mentioned_by: Vec<u32>,
    /// How many of `mentioned_by` are live; the entity is visible while this is
    /// not zero.
    live_mentions: u32,
}

impl EntityRecord {
    fn view(&self, id: u32, stores: &Stores) -> Entity {
        Entity {
            id,
            name: self.name.clone(),
            kind: self.kind,
            memories: self
                .mentioned_by
                .iter()
                .copied()
                .filter(|&memory| stores.memories.contains(memory))
                .collect(),
        }
    }

    /// Whether a live memory mentions it.
    pub(crate) fn is_visible(&self) -> bool {
        self.live_mentions > 0
    }

    /// Records that memory `memory` (now live) mentions it.
    pub(crate) fn add_mention(&mut self, memory: u32) {
        self.mentioned_by.push(memory);
        self.live_mentions = self.live_mentions.saturating_add(1);
    }

    /// Records that a memory mentioning it was deleted.
    pub(crate) fn remove_mention(&mut self) {
        self.live_mentions = self.live_mentions.saturating_sub(1);
    }
}

/// The key two names share when they name one entity: trimmed, ASCII
/// case-insensitive.
pub(crate) fn name_key(name: &str) -> String {
    name.trim().to_ascii_lowercase()
}

/// The id of the entity called `name` (case-insensitive), created with `kind` if
/// there is none yet. One index lookup: naming n entities costs O(n log n), not
/// a scan of every entity per name.
pub(crate) fn resolve(stores: &mut Stores, name: &str, kind: EntityKind) -> u32 {
    let key = name_key(name);
    if let Some(&id) = stores.entity_index.get(&key) {
        return id;
    }
    let id = stores.entities.insert(EntityRecord {
        name: name.trim().to_owned(),
        kind,
        mentioned_by: Vec::new(),
        live_mentions: 0,
    });
    stores.entity_index.insert(key, id);
    id
}

/// The visible entity with this id.
fn visible(stores: &Stores, id: u32) -> Option<&EntityRecord> {
    stores.entities.get(id).filter(|entity| entity.is_visible())
}

/// Every visible entity with its id, oldest first.
fn all_visible(stores: &Stores) -> impl Iterator<Item = (u32, &EntityRecord)> {
    stores
        .entities
        .live()
        .filter(|(_, entity)| entity.is_visible())
}

/// Get entities: one by `id`, or all of them (optionally of one kind), oldest first.
#[tool(scope = shared, tier = auto, group = "entities", aliases = ["list_entities"])]
pub fn get_entities(
    #[ctx] state: State<AssistantState>,
    /// Return only this entity.
    id: Option<u32>,
    /// Only entities of this kind.
    kind: Option<EntityKind>,
    /// At most this many entities.
    #[tool(default = 20)]
    limit: u32,
) -> Result<Vec<Entity>, ToolError> {
    let stores = state.lock();
    if let Some(id) = id {
        let entity = visible(&stores, id).ok_or_else(|| not_found("entity", id))?;
        return Ok(vec![entity.view(id, &stores)]);
    }
    Ok(all_visible(&stores)
        .filter(|(_, entity)| kind.is_none_or(|kind| entity.kind == kind))
        .take(take(limit))
        .map(|(id, entity)| entity.view(id, &stores))
        .collect())
}

/// Search entities by name.
#[tool(scope = shared, tier = auto, group = "entities",
       guidance = "Entities come from the memories that mention them; to add one, create a memory naming it.")]
pub fn search_entities(
    #[ctx] state: State<AssistantState>,
    /// Words that must all appear in the name.
    query: String,
    /// Only entities of this kind.
    kind: Option<EntityKind>,
    /// At most this many entities.
    #[tool(default = 10)]
    limit: u32,
) -> Result<Vec<Entity>, ToolError> {
    // The query is read before taking the lock: under it, each entity costs its
    // name's length times the (bounded) number of distinct words.
    let terms = Terms::new(&query)?;
    let stores = state.lock();
    Ok(all_visible(&stores)
        .filter(|(_, entity)| kind.is_none_or(|kind| entity.kind == kind))
        .filter(|(_, entity)| terms.all_in(&entity.name))
        .take(take(limit))
        .map(|(id, entity)| entity.view(id, &stores))
        .collect())
}

//! Entities: the people, places and things memories mention. They are created by
//! `create_memories` (its `entities` list), so the model only reads them here.
//!
//! Tiers: both tools only read, so `auto`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{State, ToolError, tool};

use super::{matches_all_terms, not_found, take};
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
}

impl EntityRecord {
    fn view(&self, id: u32, stores: &Stores) -> Entity {
        Entity {
            id,
            name: self.name.clone(),
            kind: self.kind,
            memories: stores
                .memories
                .live()
                .filter(|(_, memory)| memory.mentions(id))
                .map(|(memory_id, _)| memory_id)
                .collect(),
        }
    }
}

/// The id of the entity called `name` (case-insensitive), created with `kind` if
/// there is none yet.
pub(crate) fn resolve(stores: &mut Stores, name: &str, kind: EntityKind) -> u32 {
    let name = name.trim();
    let existing = stores
        .entities
        .live()
        .find(|(_, entity)| entity.name.eq_ignore_ascii_case(name))
        .map(|(id, _)| id);
    existing.unwrap_or_else(|| {
        stores.entities.insert(EntityRecord {
            name: name.to_owned(),
            kind,
        })
    })
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
        let entity = stores
            .entities
            .get(id)
            .ok_or_else(|| not_found("entity", id))?;
        return Ok(vec![entity.view(id, &stores)]);
    }
    Ok(stores
        .entities
        .live()
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
) -> Vec<Entity> {
    let stores = state.lock();
    stores
        .entities
        .live()
        .filter(|(_, entity)| kind.is_none_or(|kind| entity.kind == kind))
        .filter(|(_, entity)| matches_all_terms(&query, &entity.name))
        .take(take(limit))
        .map(|(id, entity)| entity.view(id, &stores))
        .collect()
}

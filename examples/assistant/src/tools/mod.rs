//! The assistant's 23 tools, one module per group.
//!
//! Every tool follows the verb table of the use case: `get` reads one or many
//! (filter by `id` for one), `create` takes a list, `update` takes a list of
//! `{id, ...fields}` and changes only the fields given, `delete` soft-deletes a
//! list of ids, `search` queries, `set` sets a configuration value, `link` relates
//! two records. Lists are all-or-nothing: if one item is wrong, nothing changes
//! and the error names the item.
//!
//! Tiers, per group (each module says why):
//! - reads (`get_*`, `search_*`): `auto`;
//! - creates: `auto`, except schedules (`confirm`);
//! - updates: `auto` for tasks, `confirm` for memories and instructions;
//! - deletes: `confirm`, `approve` for memories;
//! - `set_project`: `confirm`; `link_memories`: `auto`.

pub mod context;
pub mod entities;
pub mod gmail;
pub mod memories;
pub mod reminders;
pub mod schedules;
pub mod tasks;

pub use context::{get_context, set_project, update_instructions};
pub use entities::{get_entities, search_entities};
pub use gmail::{get_gmail, search_gmail};
pub use memories::{
    create_memories, delete_memories, get_memories, link_memories, search_memories, update_memories,
};
pub use reminders::{create_reminders, delete_reminders, get_reminders};
pub use schedules::{create_schedules, delete_schedules, get_schedules};
pub use tasks::{create_tasks, delete_tasks, get_tasks, update_tasks};

use schemars::JsonSchema;
use serde::Serialize;
use toolkit::ToolError;

/// What a `delete_*` tool returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Deleted {
    /// The ids that are now gone, in the order given.
    pub deleted: Vec<u32>,
}

/// What every `delete_*` tool does: soft-deletes all of `ids` in one table, or
/// nothing if one is unknown. `what` names the record (`task`) in errors. What a
/// delete means for the other tools is each delete tool's doc (and
/// `tests/behaviour.rs`, "cascades").
pub(crate) fn soft_delete<R>(
    stores: &mut crate::state::Stores,
    ids: &[u32],
    what: &str,
    table: impl FnOnce(&mut crate::state::Stores) -> &mut crate::state::Table<R>,
) -> Result<Deleted, ToolError> {
    if ids.is_empty() {
        return Err(empty_list("ids"));
    }
    let deleted = table(stores)
        .soft_delete(ids)
        .map_err(|id| nothing_changed(what, id, "deleted"))?;
    Ok(Deleted { deleted })
}

/// The error for an id that names no live record of `what` (`task`, `memory`).
/// Deleted records are reported exactly like ones that never existed.
pub(crate) fn not_found(what: &str, id: u32) -> ToolError {
    ToolError::failed(format!("no {what} with id {id}"))
}

/// The error for a list call that names a missing record: the whole call is
/// refused, so the message says nothing changed.
pub(crate) fn nothing_changed(what: &str, id: u32, verb: &str) -> ToolError {
    ToolError::failed(format!("no {what} with id {id}; no {what} was {verb}"))
}

/// The error for an empty input list.
pub(crate) fn empty_list(parameter: &str) -> ToolError {
    ToolError::failed(format!("`{parameter}` is empty; pass at least one item"))
}

/// Rejects a blank required text, naming where it is (`tasks[1].title`).
pub(crate) fn require_text(text: &str, path: &str) -> Result<(), ToolError> {
    if text.trim().is_empty() {
        Err(ToolError::failed(format!("`{path}` is empty")))
    } else {
        Ok(())
    }
}

/// A model-given limit as a `take` count.
pub(crate) fn take(limit: u32) -> usize {
    usize::try_from(limit).unwrap_or(usize::MAX)
}

/// At most this many different words in one search query. Real queries have a
/// handful; the bound keeps a search's work under the store's lock proportional
/// to the store, whatever the query's size.
pub(crate) const MAX_QUERY_WORDS: usize = 32;

/// The words of a search query, lowercased, each once, in the order given. Built
/// before the store is locked, in one pass over the query.
#[derive(Debug, Default)]
pub(crate) struct Terms {
    words: Vec<String>,
}

impl Terms {
    /// The whitespace-separated words of `query`. An empty query matches
    /// everything.
    pub(crate) fn new(query: &str) -> Result<Self, ToolError> {
        let mut terms = Terms::default();
        for word in query.split_whitespace() {
            terms.add(word)?;
        }
        Ok(terms)
    }

    /// Adds `word` unless it is already there; refuses a word past
    /// [`MAX_QUERY_WORDS`] different ones.
    pub(crate) fn add(&mut self, word: &str) -> Result<(), ToolError> {
        let word = word.to_lowercase();
        if word.is_empty() || self.words.contains(&word) {
            return Ok(());
        }
        if self.words.len() == MAX_QUERY_WORDS {
            return Err(ToolError::failed(format!(
                "`query` has more than {MAX_QUERY_WORDS} different words; search with fewer"
            )));
        }
        self.words.push(word);
        Ok(())
    }

    /// How many different words.
    pub(crate) fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether there are no words (everything matches).
    pub(crate) fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Whether every word occurs in `haystack` (case-insensitive).
    pub(crate) fn all_in(&self, haystack: &str) -> bool {
        if self.words.is_empty() {
            return true;
        }
        let haystack = haystack.to_lowercase();
        self.all(|word| haystack.contains(word))
    }

    /// Whether `found` holds for every word.
    pub(crate) fn all(&self, mut found: impl FnMut(&str) -> bool) -> bool {
        self.words.iter().all(|word| found(word))
    }
}

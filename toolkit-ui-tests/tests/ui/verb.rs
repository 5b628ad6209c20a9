//! Tool names are `verb_resource` with a verb from the crate's vocabulary.

use toolkit::tool;

/// A stray read verb.
#[tool(scope = shared, tier = auto)]
fn list_reminders() {}

/// A stray create verb.
#[tool(scope = shared, tier = auto)]
fn store_memory() {}

/// A stray delete verb.
#[tool(scope = shared, tier = auto)]
fn remove_tasks() {}

/// The verb last.
#[tool(scope = shared, tier = auto)]
fn gmail_search() {}

/// The verb last, after two words.
#[tool(scope = shared, tier = auto)]
fn memory_item_delete() {}

/// No verb at all.
#[tool(scope = shared, tier = auto)]
fn recall() {}

/// A verb and nothing it acts on.
#[tool(scope = shared, tier = auto)]
fn get_() {}

/// An explicit name is checked like a function name, at the string.
#[tool(scope = shared, tier = auto, name = "fetch_tasks")]
fn tasks() {}

/// Aliases keep old names alive, so they may use any verb, but they must still be
/// names a provider accepts.
#[tool(scope = shared, tier = auto, aliases = ["list_notes", "notes", "get notes"])]
fn get_notes() {}

fn main() {}

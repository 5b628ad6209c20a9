//! `task = optional | required | forbidden`: a bare word, and never on a
//! `confirm` tool, whose first call answers with its preview in the request.

use toolkit::tool;

/// A word that is not one.
#[tool(scope = shared, tier = auto, task = sometimes)]
fn get_tasks() {}

/// A close misspelling.
#[tool(scope = shared, tier = auto, task = requried)]
fn get_notes() {}

/// A string, not a word.
#[tool(scope = shared, tier = auto, task = "optional")]
fn get_memories() {}

/// A flag, not a value.
#[tool(scope = shared, tier = auto, task)]
fn get_reminders() {}

/// Delete schedules: a preview first, then the confirmed call.
#[tool(scope = shared, tier = confirm, task = optional)]
fn delete_schedules() {}

/// The value without its key.
#[tool(scope = shared, tier = auto, required)]
fn get_contacts() {}

fn main() {}

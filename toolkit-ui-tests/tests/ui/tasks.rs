//! `task = optional | required | forbidden`: a bare word, and never on a
//! `confirm` tool, whose first call answers with its preview in the request;
//! `asks_first` only on a tool that may be a task and is not `approve`.

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

/// Asks first, but is never a task.
#[tool(scope = shared, tier = auto, asks_first)]
fn get_labels() {}

/// Asks first, but a person approves it.
#[tool(scope = shared, tier = approve, task = optional, asks_first)]
fn delete_labels() {}

/// Asks first, then a task: fine.
#[tool(scope = shared, tier = auto, task = required, asks_first)]
fn get_folders() {}

fn main() {}

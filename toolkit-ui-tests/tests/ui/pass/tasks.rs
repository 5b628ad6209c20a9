//! `task = ...` compiles on `auto` and `approve` tools, and the tool carries it;
//! a tool that says nothing is no task, unless it is `approve` (its call waits
//! for a person: a task may poll it).

use toolkit::{TaskSupport, tool};

/// Get the tasks.
#[tool(scope = shared, tier = auto, task = optional)]
fn get_tasks() {}

/// Get the notes.
#[tool(scope = shared, tier = auto, task = required)]
fn get_notes() {}

/// Delete the memories.
#[tool(scope = shared, tier = approve)]
fn delete_memories() {}

/// Delete the notes.
#[tool(scope = shared, tier = approve, task = forbidden)]
fn delete_notes() {}

/// Get the reminders.
#[tool(scope = shared, tier = auto)]
fn get_reminders() {}

/// Delete the reminders.
#[tool(scope = shared, tier = confirm, task = forbidden)]
fn delete_reminders() {}

fn main() {
    assert_eq!(get_tasks::definition().task, TaskSupport::Optional);
    assert_eq!(get_notes::definition().task, TaskSupport::Required);
    assert_eq!(delete_memories::definition().task, TaskSupport::Optional);
    assert_eq!(delete_notes::definition().task, TaskSupport::Forbidden);
    assert_eq!(get_reminders::definition().task, TaskSupport::Forbidden);
    assert_eq!(delete_reminders::definition().task, TaskSupport::Forbidden);
}

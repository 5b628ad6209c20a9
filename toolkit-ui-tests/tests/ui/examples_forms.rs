//! The forms `examples` can be mistaken for: a plain string whose inner quotes
//! end it, one string holding the whole JSON array, `include_str!` or a file's
//! path inside the list, and `examples` on a parameter. Each is one error saying
//! what to write instead; the other keys are still checked.

use toolkit::tool;

/// Inner quotes in a plain string.
#[tool(scope = shared, tier = auto, examples = ["{"id": 3}"])]
fn get_tasks(
    /// The task.
    id: u32,
) -> u32 {
    id
}

/// The whole array in one string.
#[tool(scope = shared, tier = auto, examples = r#"[{"id": 3}, {"id": 4}]"#)]
fn get_notes(
    /// The note.
    id: u32,
) -> u32 {
    id
}

/// A file read into the list.
#[tool(scope = shared, tier = auto, examples = [include_str!("../data/reminders.json")])]
fn get_reminders(
    /// The reminder.
    id: u32,
) -> u32 {
    id
}

/// A file's path inside the list.
#[tool(scope = shared, tier = auto, examples = ["tests/memories.json"])]
fn get_memories(
    /// The memory.
    id: u32,
) -> u32 {
    id
}

/// Examples on a parameter.
#[tool(scope = shared, tier = auto)]
fn get_events(
    /// The event.
    #[tool(examples = [r#"3"#])]
    id: u32,
) -> u32 {
    id
}

fn main() {}

//! `examples = "file.json"`: a file with comments is told that JSON has none, and
//! a mistake in one of its examples says which example (every error points at
//! the path, the one token in the source).

use toolkit::tool;

/// Get tasks.
#[tool(scope = shared, tier = auto, examples = "commented.json")]
pub fn get_tasks(
    /// The task.
    id: u32,
) -> u32 {
    id
}

/// Get notes.
#[tool(scope = shared, tier = auto, examples = "notes.json")]
pub fn get_notes(
    /// The note.
    id: u32,
) -> u32 {
    id
}

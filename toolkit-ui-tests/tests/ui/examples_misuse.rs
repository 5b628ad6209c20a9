//! Examples that compile into a tool that teaches the model the wrong thing or
//! fails when the registry is built: a `confirm` tool's example that sets
//! `confirmed`, values of the wrong type for the parameter, and `asked_as` on an
//! `always` tool, which is never routed.

use toolkit::tool;

/// Delete a task.
#[tool(scope = shared, tier = confirm, examples = [r#"{"id": 3, "confirmed": true}"#])]
fn delete_tasks(
    /// The task.
    id: u32,
) -> u32 {
    id
}

/// Move a task.
#[tool(scope = shared, tier = auto,
       examples = [r#"{"id": "3", "list": "work"}"#, r#"{"id": -1, "list": "work", "tags": ["a", 2], "done": "yes", "due": null}"#])]
fn update_task_lists(
    /// The task.
    id: u32,
    /// The list.
    list: String,
    /// Tags.
    tags: Option<Vec<String>>,
    /// Whether it is done.
    done: Option<bool>,
    /// Due day.
    due: u32,
) -> u32 {
    let _ = (list, tags, done, due);
    id
}

/// The time.
#[tool(scope = shared, tier = auto, always, asked_as = ["what time is it", "time please"])]
fn get_time() -> u32 {
    0
}

fn main() {}

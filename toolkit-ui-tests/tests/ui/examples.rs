//! `examples` must be JSON objects whose keys are the tool's arguments, and
//! `asked_as` messages must say something: each mistake is reported on its
//! literal. Whether a value fits its argument's type is the registry's check.

use toolkit::tool;

/// Move a task to another list.
#[tool(scope = shared, tier = auto,
       examples = [r#"{"id": 3, "list": groceries}"#, r#"[3, "groceries"]"#, r#"{"id": 3, "lsit": "work"}"#],
       asked_as = ["put the milk on my groceries list", " "])]
fn update_task_lists(
    /// The task to move.
    id: u32,
    /// The list it goes to.
    list: String,
) -> String {
    format!("{id} {list}")
}

/// Get the weather.
#[tool(scope = shared, tier = auto, examples = r#"{}"#)]
fn get_weather() -> String {
    String::new()
}

/// Get the time.
#[tool(scope = shared, tier = auto, examples = [r#"{"zone": "UTC"}"#])]
fn get_time() -> String {
    String::new()
}

fn main() {}

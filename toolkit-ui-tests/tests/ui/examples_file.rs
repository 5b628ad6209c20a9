//! `examples = "path.json"` reads a JSON array of argument objects from the
//! crate's directory. A file that is missing, or is not such an array, is one
//! error on the path. (The crate trybuild compiles this in has its own
//! `Cargo.toml`, which is not JSON.)

use toolkit::tool;

/// Move a task to another list.
#[tool(scope = shared, tier = auto, examples = "tests/data/no_such_file.json")]
fn update_task_lists(
    /// The task to move.
    id: u32,
) -> u32 {
    id
}

/// Get the weather.
#[tool(scope = shared, tier = auto, examples = "Cargo.toml")]
fn get_weather(
    /// The city.
    city: String,
) -> String {
    city
}

fn main() {}

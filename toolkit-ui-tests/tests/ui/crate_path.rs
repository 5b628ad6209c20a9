//! A `crate = path` that does not lead to toolkit: one error, on the path.

use toolkit::tool;

/// Get tasks.
#[tool(scope = shared, tier = auto, crate = not_toolkit)]
fn get_tasks() {}

fn main() {}

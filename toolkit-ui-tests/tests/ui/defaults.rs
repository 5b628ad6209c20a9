//! A default of the wrong type names the parameter's type, at the default.

use toolkit::tool;

/// Get tasks.
#[tool(scope = shared, tier = auto)]
fn get_tasks(
    /// At most this many.
    #[tool(default = "x")]
    limit: u32,
) -> u32 {
    limit
}

fn main() {}

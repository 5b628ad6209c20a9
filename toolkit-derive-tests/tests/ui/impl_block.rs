//! `#[tool]` on an associated function inside an `impl`, without `self`.

use toolkit::tool;

struct Tasks;

impl Tasks {
    /// Get tasks.
    #[tool(scope = shared, tier = auto)]
    fn get_tasks() {}
}

fn main() {
    let _ = Tasks;
}

//! `#[tool]` inside an `impl` or a `trait`: a tool is a free function.

use toolkit::tool;

struct Tasks;

impl Tasks {
    /// Get tasks.
    #[tool(scope = shared, tier = auto)]
    fn get_tasks() {}
}

trait Notes {
    /// Get notes.
    #[tool(scope = shared, tier = auto)]
    fn get_notes() -> u32 {
        1
    }
}

fn main() {
    let _ = Tasks;
}

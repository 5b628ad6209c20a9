//! `#[tool]` inside an `impl` or a `trait`: a tool is a free function. Written
//! through `cfg_attr`, it is the same one error.

use toolkit::tool;

struct Tasks;

impl Tasks {
    /// Get tasks.
    #[tool(scope = shared, tier = auto)]
    fn get_tasks() {}
}

struct Reports;

impl Reports {
    /// Get reports.
    #[cfg_attr(all(), tool(scope = shared, tier = auto))]
    fn get_reports() -> u32 {
        2
    }
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
    let _ = Reports;
}

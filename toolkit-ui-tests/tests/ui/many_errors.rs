//! Independent mistakes in one tool are all reported in one build.

use toolkit::tool;

#[tool(scope = shard, teir = auto)]
fn list_tasks(limit: u32, query: &str) -> u32 {
    limit + query.len() as u32
}

/// Callers of a tool with mistakes still compile: no follow-on errors.
fn caller() -> u32 {
    list_tasks(1, "x")
}

fn main() {
    let _ = caller();
}

//! `#[tool]` written twice on one function.

use toolkit::tool;

/// Get tasks.
#[tool(scope = shared, tier = auto)]
#[tool(scope = shared, tier = auto)]
async fn get_tasks() {}

fn main() {}

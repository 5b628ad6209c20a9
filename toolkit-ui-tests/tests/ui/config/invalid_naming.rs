//! An unknown naming style (see invalid_naming.toml) is an error at every tool.

use toolkit::tool;

/// Get tasks.
#[tool(scope = shared, tier = auto)]
pub fn get_tasks() {}

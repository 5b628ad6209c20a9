//! A misspelled key in `[package.metadata.toolkit]` (see invalid_table.toml) is an
//! error at every tool, not a silently ignored setting.

use toolkit::tool;

/// Get tasks.
#[tool(scope = shared, tier = auto)]
pub fn get_tasks() {}

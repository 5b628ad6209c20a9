//! Names and aliases must be `[a-zA-Z0-9_-]{1,64}`, and in a snake_case crate
//! (the default) tool names are snake_case.

use toolkit::tool;

/// A dot.
#[tool(scope = shared, tier = auto, name = "get.tasks")]
fn dotted() {}

/// Not ASCII.
#[tool(scope = shared, tier = auto, name = "get_tâches")]
fn accented() {}

/// Empty.
#[tool(scope = shared, tier = auto, name = "")]
fn empty() {}

/// Too long for providers.
#[tool(scope = shared, tier = auto)]
fn get_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx() {}

/// camelCase in a snake_case crate.
#[tool(scope = shared, tier = auto, name = "getTasks")]
fn camel() {}

/// kebab-case in a snake_case crate.
#[tool(scope = shared, tier = auto, name = "get-tasks")]
fn kebab() {}

/// Aliases follow the same format rule.
#[tool(scope = shared, tier = auto, aliases = ["get_task", "", "xyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"])]
fn get_tasks() {}

fn main() {}

//! `scope` and `tier` are required and take one of a few words.

use toolkit::tool;

/// No scope.
#[tool(tier = auto)]
fn get_tasks() {}

/// No tier.
#[tool(scope = shared)]
fn get_notes() {}

/// Neither.
#[tool]
fn get_memories() {}

/// A misspelled scope.
#[tool(scope = shard, tier = auto)]
fn get_reminders() {}

/// A misspelled tier.
#[tool(scope = shared, tier = confirmed)]
fn get_schedules() {}

/// Words that are not close to any.
#[tool(scope = global, tier = never)]
fn get_entities() {}

fn main() {}

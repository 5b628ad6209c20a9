//! Slips in the attribute's syntax: values without keys, `:` or nothing for `=`,
//! and a `#[ctx]` parameter that borrows the context.

use toolkit::{Context, tool};

/// Values without keys.
#[tool(shared, auto)]
fn get_tasks() {}

/// A colon for `=`.
#[tool(scope: shared, tier = auto)]
fn get_notes() {}

/// Nothing for `=`.
#[tool(scope shared, tier = auto)]
fn get_memories() {}

/// The context itself.
#[tool(scope = shared, tier = auto)]
fn get_reminders(#[ctx] ctx: &Context) -> bool {
    let _ = ctx;
    true
}

fn main() {}

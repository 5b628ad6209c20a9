//! Results inside standard containers: the error names the type to derive
//! `Serialize` on, not the container.

use std::collections::HashMap;

use toolkit::{ToolError, tool};

struct Thing;

/// A list of things.
#[tool(scope = shared, tier = auto)]
fn get_things() -> Vec<Thing> {
    vec![Thing]
}

/// Maybe a thing, with a count, in a result.
#[tool(scope = shared, tier = auto)]
fn get_thing() -> Result<Option<(Thing, u32)>, ToolError> {
    Ok(Some((Thing, 1)))
}

/// Things by name.
#[tool(scope = shared, tier = auto)]
fn get_named() -> HashMap<String, Vec<Thing>> {
    HashMap::new()
}

fn main() {}

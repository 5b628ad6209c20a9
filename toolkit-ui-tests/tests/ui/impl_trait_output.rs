//! `impl Trait` as a tool's result: the model's JSON needs a concrete type.

use toolkit::tool;

/// Get a count.
#[tool(scope = shared, tier = auto)]
fn get_count() -> impl serde::Serialize {
    1_u32
}

fn main() {}

//! `#[ctx] State<T>` needs `T: Clone + Send + Sync + 'static`: one error, in every
//! scope, on the parameter's type.

use toolkit::{State, tool};

struct Db;

/// Shared.
#[tool(scope = shared, tier = auto)]
fn get_a(#[ctx] db: State<Db>) -> bool {
    matches!(db.0, Db)
}

/// Agent.
#[tool(scope = agent, tier = auto)]
fn get_b(#[ctx] db: State<Db>) -> bool {
    matches!(db.0, Db)
}

fn main() {}

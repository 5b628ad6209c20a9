//! Shapes a tool function cannot have.

use toolkit::tool;

/// Generic.
#[tool(scope = shared, tier = auto)]
fn get_items<T: Default>(
    /// An id.
    id: u32,
) -> u32 {
    id
}

struct Store;

impl Store {
    /// A method.
    #[tool(scope = shared, tier = auto)]
    fn get_tasks(&self) {}
}

/// A tuple pattern.
#[tool(scope = shared, tier = auto)]
fn get_range(
    /// The range.
    (start, end): (u32, u32),
) -> u32 {
    end - start
}

/// Borrowed parameters.
#[tool(scope = shared, tier = auto)]
fn search_notes(
    /// What to look for.
    query: &str,
    /// Tags.
    tags: &[String],
    /// An id.
    id: &u32,
) -> usize {
    query.len() + tags.len() + *id as usize
}

/// An `impl Trait` parameter.
#[tool(scope = shared, tier = auto)]
fn search_memories(
    /// What to look for.
    query: impl Into<String>,
) -> String {
    query.into()
}

/// A context parameter with a default.
#[tool(scope = shared, tier = auto)]
fn get_memories(
    #[ctx]
    #[tool(default = toolkit::State(1))]
    store: toolkit::State<u32>,
) -> u32 {
    *store
}

/// A lifetime parameter.
#[tool(scope = shared, tier = auto)]
fn get_names<'a>(
    /// A name.
    name: String,
) -> String {
    name
}

/// A parameter without a name.
#[tool(scope = shared, tier = auto)]
fn get_limits(
    /// Unused.
    _: u32,
) {
}

/// Not a function.
#[tool(scope = shared, tier = auto)]
struct GetTasks;

/// Not a function either.
#[tool(scope = shared, tier = auto)]
mod tasks {}

fn main() {
    let _ = (Store, GetTasks);
}

//! Every parameter the model fills needs a doc comment: it is the field's
//! description in the schema.

use toolkit::tool;

/// Get tasks.
#[tool(scope = shared, tier = auto)]
fn get_tasks(
    /// Return only this task.
    id: Option<u32>,
    limit: u32,
    #[tool(default = false)] done: bool,
    #[doc = concat!("Only ", "these tags.")] tags: Vec<String>,
    ///
    empty: u8,
    // Context parameters are not shown to the model and need no doc comment.
    #[ctx] store: toolkit::State<u32>,
) -> bool {
    id.is_some() && limit > *store && done && tags.is_empty() && empty == 0
}

fn main() {}

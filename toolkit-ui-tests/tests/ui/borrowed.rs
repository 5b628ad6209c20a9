//! Borrowed types inside containers: the model's arguments are parsed into owned
//! values, at any depth.

use std::borrow::Cow;
use std::collections::HashMap;

use toolkit::tool;

/// Search notes.
#[tool(scope = shared, tier = auto)]
fn search_notes(
    /// Words to look for.
    words: Vec<&str>,
    /// A folder.
    folder: Option<&str>,
    /// Labels by name.
    labels: HashMap<String, &[u8]>,
    /// A title.
    title: Cow<'_, str>,
) -> usize {
    words.len() + folder.map_or(0, str::len) + labels.len() + title.len()
}

fn main() {}

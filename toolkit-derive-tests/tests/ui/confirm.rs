//! The `confirm` tier's keys: `preview` only on confirm tools, `confirmed` reserved,
//! and a preview function must return a preview.

use toolkit::{Preview, tool};

fn preview_anything() -> Preview {
    Preview::new("?")
}

/// `preview` on an auto tool.
#[tool(scope = shared, tier = auto, preview = preview_anything)]
fn get_a() {}

/// A parameter named like the argument toolkit adds.
#[tool(scope = shared, tier = confirm)]
fn delete_b(
    /// Whether the user agreed.
    confirmed: bool,
) -> bool {
    confirmed
}

/// The same name reached through a rename.
#[tool(scope = shared, tier = confirm)]
fn delete_c(
    /// Whether the user agreed.
    #[serde(rename = "confirmed")]
    agreed: bool,
) -> bool {
    agreed
}

fn preview_pages(ids: Vec<u32>) -> String {
    format!("delete {ids:?}?")
}

/// A preview function that returns a string.
#[tool(scope = shared, tier = confirm, preview = preview_pages)]
fn delete_pages(
    /// The pages.
    ids: Vec<u32>,
) -> usize {
    ids.len()
}

fn preview_posts(ids: Vec<String>) -> toolkit::Preview {
    Preview::new("?").items(ids)
}

/// A preview function whose parameters are not the tool's.
#[tool(scope = shared, tier = confirm, preview = preview_posts)]
fn delete_posts(
    /// The posts.
    ids: Vec<u32>,
    /// Why.
    reason: String,
) -> usize {
    ids.len() + reason.len()
}

fn main() {}

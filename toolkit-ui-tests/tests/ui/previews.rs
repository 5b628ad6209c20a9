//! Preview functions that do not fit their `confirm` tool: each mistake is one
//! error on `preview = ..` that says what the preview must take or return.

use toolkit::{Preview, State, tool};

#[derive(Clone)]
struct Site;

fn preview_few(ids: Vec<u32>) -> Preview {
    Preview::new("?").items(ids)
}

/// A preview that takes fewer parameters than the tool.
#[tool(scope = shared, tier = confirm, preview = preview_few)]
fn delete_few(
    /// The ids.
    ids: Vec<u32>,
    /// Why.
    reason: String,
) -> usize {
    ids.len() + reason.len()
}

fn preview_order(reason: String, ids: Vec<u32>) -> Preview {
    Preview::new(reason).items(ids)
}

/// A preview that takes them in another order.
#[tool(scope = shared, tier = confirm, preview = preview_order)]
fn delete_order(
    /// The ids.
    ids: Vec<u32>,
    /// Why.
    reason: String,
) -> usize {
    ids.len() + reason.len()
}

fn preview_type(ids: Vec<String>) -> Preview {
    Preview::new("?").items(ids)
}

/// A preview that takes another type.
#[tool(scope = shared, tier = confirm, preview = preview_type)]
fn delete_type(
    /// The ids.
    ids: Vec<u32>,
) -> usize {
    ids.len()
}

fn preview_ctx(site: State<Site>, ids: Vec<u32>) -> Preview {
    let State(Site) = site;
    Preview::new("?").items(ids)
}

/// A preview that takes a `#[ctx]` the tool does not have.
#[tool(scope = shared, tier = confirm, preview = preview_ctx)]
fn delete_ctx(
    /// The ids.
    ids: Vec<u32>,
) -> usize {
    ids.len()
}

fn preview_string(ids: Vec<u32>) -> String {
    format!("delete {ids:?}?")
}

/// A preview that returns a string.
#[tool(scope = shared, tier = confirm, preview = preview_string)]
fn delete_string(
    /// The ids.
    ids: Vec<u32>,
) -> usize {
    ids.len()
}

struct Oops;

fn preview_oops(ids: Vec<u32>) -> Result<Preview, Oops> {
    if ids.is_empty() {
        return Err(Oops);
    }
    Ok(Preview::new("?"))
}

/// A preview whose error cannot be shown to the model.
#[tool(scope = shared, tier = confirm, preview = preview_oops)]
fn delete_oops(
    /// The ids.
    ids: Vec<u32>,
) -> usize {
    ids.len()
}

fn main() {}

//! The `confirm` tier's keys: `preview` only on confirm tools, `confirmed` reserved;
//! and a `group` cannot start with the `@` that names a group in an allowlist.
//! Preview functions that do not fit their tool are in `previews.rs`.

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

/// A group written the way an allowlist names it.
#[tool(scope = shared, tier = auto, group = "@pages")]
fn get_pages() {}

fn main() {}

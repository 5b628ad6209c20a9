//! Two parameters the model would fill under one JSON name.

use toolkit::tool;

/// Renamed onto another parameter's name.
#[tool(scope = shared, tier = auto)]
fn get_tasks(
    /// An id.
    id: u32,
    /// Another id.
    #[serde(rename = "id")]
    task_id: u32,
) -> u32 {
    id + task_id
}

/// Both renamed to one name.
#[tool(scope = shared, tier = auto)]
fn get_notes(
    /// A.
    #[serde(rename = "query")]
    a: String,
    /// B.
    #[serde(rename = "query")]
    b: String,
) -> String {
    a + &b
}

fn main() {}

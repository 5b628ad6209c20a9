//! Type errors: context parameters must implement `FromContext`, model parameters
//! `Deserialize + JsonSchema`, and the output `Serialize`.

use toolkit::{ToolError, tool};

struct Store;

struct Filter;

struct Report;

struct Oops;

/// A context parameter that is not `FromContext`.
#[tool(scope = shared, tier = auto)]
fn get_tasks(#[ctx] store: Store) -> bool {
    matches!(store, Store)
}

/// A parameter type the model cannot fill.
#[tool(scope = shared, tier = auto)]
fn search_tasks(
    /// The filter.
    filter: Filter,
) -> bool {
    matches!(filter, Filter)
}

/// Deserialize, but without a schema.
#[derive(serde::Deserialize)]
struct Plain;

/// A parameter type the model cannot be shown.
#[tool(scope = shared, tier = auto)]
fn search_notes(
    /// The filter.
    filter: Plain,
) -> bool {
    matches!(filter, Plain)
}

/// An output that cannot be serialized.
#[tool(scope = shared, tier = auto)]
fn get_report() -> Report {
    Report
}

/// A result whose value cannot be serialized.
#[tool(scope = shared, tier = auto)]
fn get_reports() -> Result<Report, ToolError> {
    Ok(Report)
}

/// A result whose error cannot be shown to the model.
#[tool(scope = shared, tier = auto)]
fn get_summary() -> Result<u32, Oops> {
    Err(Oops)
}

fn main() {}

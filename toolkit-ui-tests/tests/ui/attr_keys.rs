//! Every key of `#[tool(...)]` is known, written once, and has the right shape.

use toolkit::tool;

/// Misspelled keys.
#[tool(scope = shared, teir = auto, nme = "get_tasks")]
fn get_tasks() {}

/// A key written twice.
#[tool(scope = shared, tier = auto, scope = agent)]
fn get_notes() {}

/// Keywords written as strings.
#[tool(scope = "shared", tier = "later")]
fn get_memories() {}

/// A list written as one string.
#[tool(scope = shared, tier = auto, aliases = "get_memo")]
fn get_reminders() {}

/// A flag given a value.
#[tool(scope = shared, tier = auto, always = true)]
fn get_schedules() {}

/// A flag given arguments.
#[tool(scope = shared, tier = auto, always(false))]
fn get_instructions() {}

/// A number where a string belongs.
#[tool(scope = shared, tier = auto, group = 1)]
fn get_entities() {}

/// A path key.
#[tool(scope = shared, tier = auto, toolkit::name = "get_gmail")]
fn get_gmail() {}

/// Parameter attributes.
#[tool(scope = shared, tier = auto)]
fn get_context(
    /// A misspelled parameter key.
    #[tool(defualt = 1)]
    limit: u32,
    /// A `default` without a value.
    #[tool(default)]
    offset: u32,
    #[ctx(x)] state: toolkit::State<u32>,
) -> u32 {
    limit + offset + state.0
}

/// Arguments that do not parse at all.
#[tool(scope = shared tier = auto)]
fn get_entries() {}

/// A string where the crate path belongs.
#[tool(scope = shared, tier = auto, crate = "toolkit")]
fn get_pages() {}

fn main() {}

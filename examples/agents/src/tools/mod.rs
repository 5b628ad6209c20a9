//! Every tool of the org, in one catalog. Each declares its scope (who may be
//! granted it), its tier, its group (for `@group` allowlist entries and page
//! surfacing) and, for plan-gated features, its gate.
//!
//! | module | scope | tools |
//! |---|---|---|
//! | [`crm`] | shared | contacts, messages, calls, deals |
//! | [`tasks`] | shared | the org's to-do list |
//! | [`features`] | shared | knowledge base and custom analyzers (gated) |
//! | [`infrastructure`] | shared | phone numbers and other agents: powerful, out of the recommended preset |
//! | [`agent`] | agent | memory, escalations, schedules, plans: the agent acting as itself |
//! | [`assistant`] | assistant | the member's personalization |
//! | [`channel`] | channel | replies on this turn's live channel |

pub mod agent;
pub mod assistant;
pub mod channel;
pub mod crm;
pub mod features;
pub mod infrastructure;
pub mod tasks;

use toolkit::ToolError;

/// The error for an id that names no record of `what`.
pub(crate) fn not_found(what: &str, id: u32) -> ToolError {
    ToolError::failed(format!("no {what} with id {id}"))
}

/// The error for an empty input list.
pub(crate) fn empty_list(parameter: &str) -> ToolError {
    ToolError::failed(format!("`{parameter}` is empty; pass at least one item"))
}

/// Rejects a blank required text, naming where it is (`memories[1]`).
pub(crate) fn require_text(text: &str, path: &str) -> Result<(), ToolError> {
    if text.trim().is_empty() {
        Err(ToolError::failed(format!("`{path}` is empty")))
    } else {
        Ok(())
    }
}

/// A model-given limit as a `take` count.
pub(crate) fn take(limit: u32) -> usize {
    usize::try_from(limit).unwrap_or(usize::MAX)
}

//! The human assistant acting on the live session.

use toolkit::{State, ToolError, tool};

use super::require_text;
use crate::context::Session;
use crate::store::Org;

/// Set how the assistant talks to the member signed in: tone, language, how to
/// address them. Replaces what was set before.
#[tool(scope = assistant, tier = auto, group = "personalization")]
pub fn set_member_personalization(
    #[ctx] org: State<Org>,
    #[ctx] session: Session,
    /// The member's wishes, in their words.
    instructions: String,
) -> Result<String, ToolError> {
    require_text(&instructions, "instructions")?;
    org.lock()
        .personalization
        .insert(session.member_id, instructions.clone());
    Ok(instructions)
}

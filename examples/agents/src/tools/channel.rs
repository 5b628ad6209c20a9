//! Replies on this turn's live channel. Injected per turn when the turn has a live
//! message; never in a stored allowlist.

use toolkit::{State, ToolError, tool};

use super::require_text;
use crate::context::LiveMessage;
use crate::store::{Org, Reply};

/// Reply to the message you are answering, on the channel it came in on.
#[tool(scope = channel, tier = auto, always, group = "replies")]
pub fn create_replies(
    #[ctx] org: State<Org>,
    #[ctx] live: LiveMessage,
    /// The reply, as the contact will read it.
    text: String,
) -> Result<Reply, ToolError> {
    require_text(&text, "text")?;
    Ok(send(&org, &live, text, false))
}

/// React to the message you are answering with one emoji.
#[tool(scope = channel, tier = auto, group = "replies")]
pub fn create_reactions(
    #[ctx] org: State<Org>,
    #[ctx] live: LiveMessage,
    /// The emoji.
    emoji: String,
) -> Result<Reply, ToolError> {
    if emoji.chars().count() != 1 {
        return Err(ToolError::failed("`emoji` must be exactly one emoji"));
    }
    Ok(send(&org, &live, emoji, true))
}

fn send(org: &Org, live: &LiveMessage, text: String, reaction: bool) -> Reply {
    let reply = Reply {
        channel: live.channel,
        conversation_id: live.conversation_id,
        in_reply_to: live.message_id,
        text,
        reaction,
    };
    org.lock().replies.push(reply.clone());
    reply
}

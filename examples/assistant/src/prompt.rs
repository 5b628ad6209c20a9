//! The system prompt: a template with `$placeholder`s, filled per run.
//!
//! Substitution is *safe*, like Python's `string.Template.safe_substitute`:
//! `$name` and `${name}` are replaced when a value is known and left exactly as
//! written when not, `$$` is a literal `$`, and any other `$` stays as it is.
//! Substituted values are never scanned again, so a `$` in the user's
//! instructions can't pull in another section. Nothing here panics.
//!
//! The template and the substitution are toolkit's (`toolkit::prompt`).
//! `$tool_guidance` is the `<tool-guidance>` block of every active tool, read
//! from the registry, so a tool's gotcha is written once, on the tool. Some sections are
//! only for interactive channels (web, telegram): a scheduled or heartbeat run
//! has nobody to talk to.
//!
//! ```
//! use example_assistant::prompt::{Channel, PromptTemplate};
//!
//! let template = PromptTemplate::new("$soul\n\n$style\n\nCost: $$5, $unknown")
//!     .section("soul", "You are Pip.")
//!     .interactive_section("style", "Keep replies short.");
//! let no_tools = toolkit::Registry::new([]).expect("no tools, no clash");
//! assert_eq!(
//!     template.render(Channel::Web, &no_tools),
//!     "You are Pip.\n\nKeep replies short.\n\nCost: $5, $unknown"
//! );
//! assert_eq!(
//!     template.render(Channel::Heartbeat, &no_tools),
//!     "You are Pip.\n\nCost: $5, $unknown"
//! );
//! ```

use schemars::JsonSchema;
use serde::Serialize;
use toolkit::prompt::Template;
use toolkit::{Scope, View, binding::Binding, registry::RegisteredTool, view::ViewError};

use crate::AssistantState;

/// Where a run of the assistant comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// The web chat: a user is reading.
    Web,
    /// Telegram: a user is reading.
    Telegram,
    /// A schedule fired: nobody is watching.
    Scheduled,
    /// The periodic heartbeat check: nobody is watching.
    Heartbeat,
}

impl Channel {
    /// Every channel.
    pub const ALL: [Channel; 4] = [
        Channel::Web,
        Channel::Telegram,
        Channel::Scheduled,
        Channel::Heartbeat,
    ];

    /// Whether a person is on the other end, reading and answering.
    #[must_use]
    pub const fn is_interactive(self) -> bool {
        matches!(self, Channel::Web | Channel::Telegram)
    }

    /// The channel's name, as `$channel` renders it.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Channel::Web => "web",
            Channel::Telegram => "telegram",
            Channel::Scheduled => "scheduled",
            Channel::Heartbeat => "heartbeat",
        }
    }
}

pub use toolkit::prompt::substitute;

/// The `$tool_guidance` block: `toolkit::prompt::guidance` of the tools, in the
/// order given, like `<tool-guidance>\n<get_tasks>Filter by id when ...</get_tasks>\n</tool-guidance>`.
/// Empty when no tool has any.
pub fn tool_guidance<'a>(tools: impl IntoIterator<Item = &'a RegisteredTool>) -> String {
    toolkit::prompt::guidance(tools)
}

/// The channels with a person on the other end, and those without.
const INTERACTIVE_CHANNELS: [&str; 2] = ["web", "telegram"];
const UNATTENDED_CHANNELS: [&str; 2] = ["scheduled", "heartbeat"];

/// A system prompt template and the text of its sections, on
/// [`toolkit::prompt::Template`].
///
/// Besides the sections you set, `$channel` is the channel's name and
/// `$tool_guidance` is [`tool_guidance`] of the tools passed to
/// [`render`](Self::render). A section that doesn't apply to the channel renders
/// as nothing, and the blank lines it leaves are folded away.
#[derive(Clone, Debug)]
pub struct PromptTemplate {
    template: Template,
}

impl PromptTemplate {
    /// A template; sections are added with the builder methods.
    #[must_use]
    pub fn new(template: impl Into<String>) -> Self {
        PromptTemplate {
            template: Template::new(template),
        }
    }

    /// `$name` renders as `text` on every channel.
    #[must_use]
    pub fn section(self, name: &str, text: impl Into<String>) -> Self {
        PromptTemplate {
            template: self.template.set(name, text),
        }
    }

    /// `$name` renders as `text` on interactive channels (web, telegram) and as
    /// nothing on scheduled and heartbeat runs.
    #[must_use]
    pub fn interactive_section(self, name: &str, text: impl Into<String>) -> Self {
        PromptTemplate {
            template: self.template.set_on(name, INTERACTIVE_CHANNELS, text),
        }
    }

    /// `$name` renders as `text` on scheduled and heartbeat runs and as nothing
    /// on interactive channels.
    #[must_use]
    pub fn unattended_section(self, name: &str, text: impl Into<String>) -> Self {
        PromptTemplate {
            template: self.template.set_on(name, UNATTENDED_CHANNELS, text),
        }
    }

    /// The prompt for a run on `channel` with the active `tools`.
    pub fn render<'a>(
        &self,
        channel: Channel,
        tools: impl IntoIterator<Item = &'a RegisteredTool>,
    ) -> String {
        self.template
            .clone()
            .set("channel", channel.as_str())
            .set("tool_guidance", tool_guidance(tools))
            .render(channel.as_str())
    }
}

/// The assistant's system prompt template.
pub const TEMPLATE: &str = "\
$soul

$operating_model

$conversation
$unattended

## Tool notes
$tool_guidance

$instructions

$project";

/// Who the assistant is.
pub const SOUL: &str = "You are Pip, a calm and precise personal assistant. You keep the user's tasks, reminders, schedules and memories in order.";

/// How the assistant works with its tools.
pub const OPERATING_MODEL: &str = "\
## How you work
- Read before you write: get or search first, then create or update.
- Lists go in one call: create, update and delete take many items at once.
- When a tool returns an error, fix the arguments it names and try again.";

/// Only for a person on the other end (`$conversation`).
pub const CONVERSATION: &str = "\
## Talking with the user
You are chatting on $channel. Keep replies short, and ask one question when a request is ambiguous.";

/// Only for unattended runs (`$unattended`).
pub const UNATTENDED: &str = "\
## Unattended run
This is a $channel run and nobody is watching. Don't ask questions; do the work, or create a task explaining what is blocked.";

/// The tools active on `channel`, as a view of the registry: the shared and
/// `scope = assistant` tools for a person (the web chat and Telegram provide the
/// live session), and on unattended runs only the shared ones (the assistant
/// tools change settings only the live user changes).
pub fn active_tools(channel: Channel) -> Result<View<'static>, ViewError> {
    let view = toolkit::registry().view();
    let view = if channel.is_interactive() {
        view.scopes([Scope::Shared, Scope::Assistant])
            .provides([Binding::HumanSession])
    } else {
        view.scopes([Scope::Shared])
    };
    view.build()
}

/// The assistant's system prompt for a run on `channel`, with the user's standing
/// instructions and active project from `state` and the guidance of the tools
/// active on the channel.
///
/// # Panics
///
/// Never in practice: a view without an allowlist fails to build only when a
/// tool needs a binding its channel can't provide, and only `scope = assistant`
/// tools may need the live session, which interactive channels provide.
#[must_use]
pub fn system_prompt(state: &AssistantState, channel: Channel) -> String {
    let instructions = state.instructions();
    let instructions = if instructions.is_empty() {
        String::new()
    } else {
        format!("## The user's instructions\n{instructions}")
    };
    let project = state
        .project()
        .map(|project| format!("## Active project\n{project}"))
        .unwrap_or_default();
    // `$channel` inside a section is filled here: rendered values are never
    // scanned again, which is what keeps the user's text from expanding.
    let with_channel =
        |text: &str| substitute(text, |name| (name == "channel").then_some(channel.as_str()));
    PromptTemplate::new(TEMPLATE)
        .section("soul", SOUL)
        .section("operating_model", OPERATING_MODEL)
        .interactive_section("conversation", with_channel(CONVERSATION))
        .unattended_section("unattended", with_channel(UNATTENDED))
        .section("instructions", instructions)
        .section("project", project)
        .render(
            channel,
            &active_tools(channel).unwrap_or_else(|error| panic!("{error}")),
        )
}

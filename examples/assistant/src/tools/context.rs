//! The assistant's own settings: the current context, the active project and the
//! user's standing instructions.
//!
//! Tiers: `get_context` only reads (`auto`). `set_project` and
//! `update_instructions` are `confirm`: both change how every later conversation
//! behaves (where memories are filed, what the system prompt says), so the user
//! should see the change before it happens. Both are `scope = assistant`: they
//! act on the live user's settings, which an unattended scheduled run must not
//! rewrite.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{State, ToolError, tool};

use crate::AssistantState;
use crate::prompt::Channel;

/// Where the assistant stands right now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ContextInfo {
    /// The current date-time, ISO 8601.
    pub now: String,
    /// The channel this conversation happens on, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<Channel>,
    /// The active project, if one is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// How many tasks are open.
    pub open_tasks: usize,
    /// How many reminders are pending.
    pub reminders: usize,
    /// How many schedules exist.
    pub schedules: usize,
    /// How many memories exist.
    pub memories: usize,
}

/// Get the current context: time, channel, active project, and how much is
/// stored.
#[tool(scope = shared, tier = auto, always, group = "context", aliases = ["get_context_info"])]
pub fn get_context(
    #[ctx] state: State<AssistantState>,
    #[ctx] channel: Option<State<Channel>>,
) -> ContextInfo {
    let stores = state.lock();
    ContextInfo {
        now: stores.now.clone(),
        channel: channel.map(|State(channel)| channel),
        project: stores.project.clone(),
        open_tasks: stores
            .tasks
            .live()
            .filter(|(_, task)| task.is_open())
            .count(),
        reminders: stores.reminders.live().count(),
        schedules: stores.schedules.live().count(),
        memories: stores.memories.live().count(),
    }
}

/// What `set_project` changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ProjectChange {
    /// The active project now (`null`: none).
    pub project: Option<String>,
    /// The project that was active before (`null`: none).
    pub previous: Option<String>,
}

/// Set the active project: new memories are filed under it and searches focus
/// on it. Leave `name` out to clear it.
#[tool(scope = assistant, tier = confirm, quota = "30/min", group = "project",
       guidance = "Set a project only when the user starts focused work on one; clear it when they are done.")]
pub fn set_project(
    #[ctx] state: State<AssistantState>,
    /// The project's name; leave it out to clear the active project.
    name: Option<String>,
) -> Result<ProjectChange, ToolError> {
    let name = match name {
        Some(name) if name.trim().is_empty() => {
            return Err(ToolError::failed(
                "`name` is empty; leave it out to clear the project",
            ));
        }
        name => name.map(|name| name.trim().to_owned()),
    };
    let mut stores = state.lock();
    let previous = std::mem::replace(&mut stores.project, name.clone());
    Ok(ProjectChange {
        project: name,
        previous,
    })
}

/// How `update_instructions` changes the instructions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InstructionsMode {
    /// Replace all instructions with the new text.
    #[default]
    Replace,
    /// Add the new text as a new line after the existing instructions.
    Append,
}

/// The user's standing instructions after an update.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Instructions {
    /// The full text, as the system prompt will show it.
    pub instructions: String,
}

/// Update the user's standing instructions, which the system prompt shows on
/// every run.
#[tool(scope = assistant, tier = confirm, quota = "30/min", group = "instructions",
       guidance = "Use append for one new rule; replace rewrites all instructions, so pass the full text.")]
pub fn update_instructions(
    #[ctx] state: State<AssistantState>,
    /// The new text.
    instructions: String,
    /// Whether the text replaces the instructions or is added to them.
    #[tool(default = InstructionsMode::Replace)]
    mode: InstructionsMode,
) -> Instructions {
    let mut stores = state.lock();
    let text = instructions.trim();
    match mode {
        InstructionsMode::Replace => text.clone_into(&mut stores.instructions),
        InstructionsMode::Append if stores.instructions.is_empty() => {
            text.clone_into(&mut stores.instructions);
        }
        InstructionsMode::Append => {
            stores.instructions.push('\n');
            stores.instructions.push_str(text);
        }
    }
    Instructions {
        instructions: stores.instructions.clone(),
    }
}

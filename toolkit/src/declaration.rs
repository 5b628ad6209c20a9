//! What a tool's declaration says beside its function: who may use it ([`Scope`]),
//! how guarded it is ([`Tier`]), where it was written ([`Location`]) and its
//! parameters ([`Param`]). Plain values that name nothing else of the crate, so a
//! binding's rules, an error's report and a tool's definition can all use them
//! without using each other.

use std::fmt;

use serde::Serialize;

/// Who may use a tool. Declared on every tool with `#[tool(scope = ...)]`.
///
/// A scope is about how a tool is *bound*, not what it does: a tool that needs the
/// caller's agent thread can only ever be an agent tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// A capability over shared data that needs only a session and a permission:
    /// usable by the assistant, agents, text replies, widgets and voice.
    Shared,
    /// The agent acting as itself over time, bound to the caller's thread: autonomous
    /// agents only.
    Agent,
    /// Acts on the live human session: the human assistant only.
    Assistant,
    /// Replies on this turn's live channel, bound to the live message: injected per
    /// turn, never a static allowlist entry.
    Channel,
}

impl Scope {
    /// Every scope, in declaration order.
    pub const ALL: [Scope; 4] = [
        Scope::Shared,
        Scope::Agent,
        Scope::Assistant,
        Scope::Channel,
    ];

    /// The scope's name as written in `#[tool(scope = ...)]`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Scope::Shared => "shared",
            Scope::Agent => "agent",
            Scope::Assistant => "assistant",
            Scope::Channel => "channel",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a human must approve a call. Declared on every tool with
/// `#[tool(tier = ...)]`; nothing falls back to a default tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Runs without asking.
    Auto,
    /// The model must confirm the call (for example by calling again with
    /// `confirmed: true` after a preview).
    Confirm,
    /// A human must approve the call before it runs.
    Approve,
}

impl Tier {
    /// Every tier, from least to most guarded.
    pub const ALL: [Tier; 3] = [Tier::Auto, Tier::Confirm, Tier::Approve];

    /// The tier's name as written in `#[tool(tier = ...)]`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Tier::Auto => "auto",
            Tier::Confirm => "confirm",
            Tier::Approve => "approve",
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a call of the tool may run as a task: kept in the approval store, run
/// by whichever replica claims it, and polled by the client (MCP Tasks,
/// `io.modelcontextprotocol/tasks`). Declared with `#[tool(task = optional)]` or
/// `#[tool(task = required)]`; a tool that says nothing is
/// [`Forbidden`](TaskSupport::Forbidden), except an `approve` tool, whose call
/// waits for a person and so is [`Optional`](TaskSupport::Optional).
///
/// The words are those of MCP's `execution.taskSupport` (2025-11-25).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskSupport {
    /// Never a task: the call answers in its own request.
    #[default]
    Forbidden,
    /// A task for a client that takes tasks; the call answers in its own request
    /// for any other.
    Optional,
    /// Only ever a task: a client that takes no tasks is refused (MCP: `-32021`,
    /// missing required client capability) and nothing runs.
    Required,
}

impl TaskSupport {
    /// The value as written in `#[tool(task = ...)]` and in MCP's
    /// `execution.taskSupport`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }

    /// What a tool of `tier` that declares nothing supports: an `approve` tool's
    /// call waits for a person, so it may be a task; any other's may not.
    #[must_use]
    pub const fn default_for(tier: Tier) -> Self {
        match tier {
            Tier::Approve => TaskSupport::Optional,
            Tier::Auto | Tier::Confirm => TaskSupport::Forbidden,
        }
    }

    /// Whether a call may be a task.
    #[must_use]
    pub const fn allows_task(self) -> bool {
        !matches!(self, TaskSupport::Forbidden)
    }
}

impl fmt::Display for TaskSupport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a tool was defined: reported when two definitions collide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    /// Source file, as `file!()` gives it.
    pub file: &'static str,
    /// Line of the `#[tool]` attribute.
    pub line: u32,
    /// Module path of the function, as `module_path!()` gives it.
    pub module_path: &'static str,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{} ({})", self.file, self.line, self.module_path)
    }
}

/// One model-visible parameter, as declared on the function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// The name the model uses (the Rust parameter name).
    pub name: &'static str,
    /// The parameter's doc comment.
    pub description: &'static str,
    /// Whether the model must provide it (not `Option`, no default).
    pub required: bool,
}

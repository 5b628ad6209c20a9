//! Which tools one request may see and call, derived from the registry alone.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use serde_json::Value;
use toolkit::{Context, Dialect, RegisteredTool, RenderError, Response, Tool, ToolError};

/// Where the user is talking to the assistant. A tool lists the channels it is
/// advertised on in its `tags`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Channel {
    /// The web chat.
    Text,
    /// The Telegram bot.
    Telegram,
    /// A phone call.
    Phone,
    /// A smart speaker.
    Voice,
}

impl Channel {
    /// Every channel.
    pub const ALL: [Channel; 4] = [
        Channel::Text,
        Channel::Telegram,
        Channel::Phone,
        Channel::Voice,
    ];

    /// The channel's tag, as tools write it in `tags = [..]`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Channel::Text => "text",
            Channel::Telegram => "telegram",
            Channel::Phone => "phone",
            Channel::Voice => "voice",
        }
    }
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tag that names no channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownChannel(pub String);

impl fmt::Display for UnknownChannel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown channel `{}`; expected one of text, telegram, phone, voice",
            self.0
        )
    }
}

impl std::error::Error for UnknownChannel {}

impl FromStr for Channel {
    type Err = UnknownChannel;

    fn from_str(tag: &str) -> Result<Self, Self::Err> {
        Channel::ALL
            .into_iter()
            .find(|channel| channel.as_str() == tag)
            .ok_or_else(|| UnknownChannel(tag.to_owned()))
    }
}

/// One request's view of the assistant's tools: the channel it came in on and the
/// feature flags that are on for this user.
///
/// - *Advertised* (sent to the model): tagged with the channel, and either not
///   gated or gated by a flag that is on.
/// - *Enabled* (may be called): not gated, or gated by a flag that is on, whatever
///   the channel. A handler may call an enabled tool the channel doesn't advertise;
///   nothing can call a tool whose flag is off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VoiceSurface {
    /// The channel of this request.
    pub channel: Channel,
    /// The feature flags that are on.
    pub flags: BTreeSet<String>,
}

impl VoiceSurface {
    /// The surface of `channel` with every flag off.
    #[must_use]
    pub fn new(channel: Channel) -> Self {
        VoiceSurface {
            channel,
            flags: BTreeSet::new(),
        }
    }

    /// The same surface with `flag` on.
    #[must_use]
    pub fn with_flag(mut self, flag: impl Into<String>) -> Self {
        self.flags.insert(flag.into());
        self
    }

    /// Whether `tool` may run: it has no gate, or its flag is on.
    #[must_use]
    pub fn is_enabled(&self, tool: &Tool) -> bool {
        tool.gate.is_none_or(|flag| self.flags.contains(flag))
    }

    /// Whether `tool` is sent to the model on this surface.
    #[must_use]
    pub fn is_advertised(&self, tool: &Tool) -> bool {
        self.is_enabled(tool) && tool.tags.contains(&self.channel.as_str())
    }

    /// The tools sent to the model, sorted by name.
    pub fn advertised(&self) -> impl Iterator<Item = &'static RegisteredTool> + '_ {
        toolkit::registry()
            .iter()
            .filter(|tool| self.is_advertised(tool))
    }

    /// The advertised tools as the `tools` array of a request in `dialect`, or the
    /// first tool that dialect cannot express.
    pub fn render(&self, dialect: Dialect) -> Result<Value, RenderError> {
        toolkit::render(self.advertised(), dialect)
    }

    /// Calls an enabled tool. A tool whose flag is off answers exactly as a name
    /// that doesn't exist would, so a model can't tell a disabled tool is there.
    pub async fn call(&self, name: &str, arguments: &str, ctx: &Context) -> Response {
        let registry = toolkit::registry();
        match registry.get(name) {
            Some(tool) if self.is_enabled(tool) => tool.call(arguments, ctx).await,
            _ => Response::Error(self.unknown_tool(name)),
        }
    }

    /// The error for a name that isn't callable here. The registry's suggestion
    /// looks at every tool, so drop it when it points to a disabled one.
    fn unknown_tool(&self, name: &str) -> ToolError {
        // Suggest only tools this surface could actually run.
        let enabled = toolkit::registry()
            .iter()
            .filter(|tool| self.is_enabled(tool));
        ToolError::unknown_tool(
            name,
            enabled.flat_map(|tool| std::iter::once(tool.name).chain(tool.aliases.iter().copied())),
        )
    }
}

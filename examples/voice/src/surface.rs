//! Which tools one request may see and call: a [`View`] of the registry, built per
//! request from the feature flags that are on, narrowed to the channel's tags for
//! what is advertised.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use serde_json::Value;
use toolkit::{
    Context, Dialect, Response, Tool, ToolError, View, registry::RegisteredTool,
    render::RenderError, view::ViewError,
};

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
/// - *Enabled* (may be called): the tools of [`VoiceSurface::view`], a toolkit
///   [`View`] with this surface's flags: not gated, or gated by a flag that is on,
///   whatever the channel. A handler may call an enabled tool the channel doesn't
///   advertise; nothing can call a tool whose flag is off.
/// - *Advertised* (sent to the model): the enabled tools tagged with the channel.
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

    /// The tools this request may call: the registry narrowed by the flags that
    /// are on. Built per request; it costs a pass over the registry's gates.
    pub fn view(&self) -> Result<View<'static>, ViewError> {
        toolkit::registry().view().flags(&self.flags).build()
    }

    /// Whether `tool` may run: it has no gate, or its flag is on.
    #[must_use]
    pub fn is_enabled(&self, tool: &Tool) -> bool {
        self.view().is_ok_and(|view| view.contains(tool.name))
    }

    /// Whether `tool` is sent to the model on this surface.
    #[must_use]
    pub fn is_advertised(&self, tool: &Tool) -> bool {
        self.is_enabled(tool) && tool.tags.contains(&self.channel.as_str())
    }

    /// The tools sent to the model, sorted by name.
    #[must_use]
    pub fn advertised(&self) -> std::vec::IntoIter<&'static RegisteredTool> {
        let channel = self.channel.as_str();
        let tools: Vec<&'static RegisteredTool> = match self.view() {
            Ok(view) => view
                .iter()
                .filter(|tool| tool.tags.contains(&channel))
                .collect(),
            Err(_) => Vec::new(),
        };
        tools.into_iter()
    }

    /// The advertised tools as the `tools` array of a request in `dialect`, or the
    /// first tool that dialect cannot express.
    pub fn render(&self, dialect: Dialect) -> Result<Value, RenderError> {
        toolkit::render::render(self.advertised(), dialect)
    }

    /// Calls an enabled tool through the view. A tool whose flag is off answers
    /// exactly as a name that doesn't exist would, suggesting only enabled tools,
    /// so a model can't tell a disabled tool is there.
    pub async fn call(&self, name: &str, arguments: &str, ctx: &Context) -> Response {
        match self.view() {
            Ok(view) => view.call(name, arguments, ctx).await,
            Err(error) => Response::Error(ToolError::failed(error)),
        }
    }
}

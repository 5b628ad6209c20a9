//! What a caller puts in the tool [`Context`] for one request, and what each piece
//! is bound to.
//!
//! | type | bound to | who provides it |
//! |---|---|---|
//! | [`Org`](crate::Org) (as `State<Org>`) | nothing | every consumer |
//! | [`Session`] | the live human session | the assistant |
//! | [`CallerThread`] | an agent's caller thread | an agent's run |
//! | [`LiveMessage`] | this turn's live channel | a text reply turn |
//!
//! The binding is what makes a tool agent-only or assistant-only: a tool that
//! takes a [`CallerThread`] needs an agent thread to exist at all.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{Context, ToolError, definition::FromContext};

/// An agent's thread: the long-lived identity an agent acts under, written like a
/// UUID (`00000000-0000-0000-0000-00000000000a`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ThreadId(pub u128);

impl fmt::Display for ThreadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex = format!("{:032x}", self.0);
        write!(
            f,
            "{}-{}-{}-{}-{}",
            &hex[..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..]
        )
    }
}

/// A text that is not a hyphenated 32-digit hex id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadThreadId(pub String);

impl fmt::Display for BadThreadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a thread id", self.0)
    }
}

impl std::error::Error for BadThreadId {}

impl FromStr for ThreadId {
    type Err = BadThreadId;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let groups: Vec<&str> = text.split('-').collect();
        let lengths: Vec<usize> = groups.iter().map(|group| group.len()).collect();
        if lengths != [8, 4, 4, 4, 12] || !groups.concat().bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(BadThreadId(text.to_owned()));
        }
        u128::from_str_radix(&groups.concat(), 16)
            .map(ThreadId)
            .map_err(|_| BadThreadId(text.to_owned()))
    }
}

impl Serialize for ThreadId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ThreadId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Who is acting, for the permission check: a member of the org, or one of its
/// agents. Bound to nothing; every consumer has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    /// A readable id for logs and approvals (`member:1`, `agent:<thread>`).
    pub id: String,
    /// Owners may do everything: the permission check is skipped.
    pub owner: bool,
    /// Permissions as stored (`contacts.read`, `messages.write`, ...).
    pub permissions: Vec<String>,
}

impl Principal {
    /// A member with `permissions`.
    #[must_use]
    pub fn member(id: u32, permissions: &[&str]) -> Self {
        Principal {
            id: format!("member:{id}"),
            owner: false,
            permissions: permissions.iter().map(|&p| p.to_owned()).collect(),
        }
    }

    /// An owner of the org.
    #[must_use]
    pub fn owner(id: u32) -> Self {
        Principal {
            id: format!("member:{id}"),
            owner: true,
            permissions: Vec::new(),
        }
    }

    /// An agent acting under `thread` with `permissions`.
    #[must_use]
    pub fn agent(thread: ThreadId, permissions: &[&str]) -> Self {
        Principal {
            id: format!("agent:{thread}"),
            owner: false,
            permissions: permissions.iter().map(|&p| p.to_owned()).collect(),
        }
    }

    /// This principal as toolkit compares it: of the application's own issuer
    /// ([`toolkit::Principal::local`]), its subject the id (`member:1`,
    /// `agent:7`). Approvals bind to it.
    ///
    /// # Panics
    /// Never: ids are `member:<n>` or `agent:<n>`, valid subjects.
    #[must_use]
    pub fn typed(&self) -> toolkit::Principal {
        toolkit::Principal::local(&self.id).expect("an id is a valid subject")
    }

    /// Whether this principal may hold `permission`.
    #[must_use]
    pub fn has(&self, permission: &str) -> bool {
        self.owner || self.permissions.iter().any(|held| held == permission)
    }
}

/// The live human session of the assistant: the member at the keyboard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// The member signed in.
    pub member_id: u32,
}

impl FromContext for Session {
    type Binding = toolkit::binding::BoundToHumanSession;

    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        ctx.require::<Session>().cloned()
    }
}

/// The thread of the agent making the call. Only an agent's run has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CallerThread(pub ThreadId);

impl FromContext for CallerThread {
    type Binding = toolkit::binding::BoundToCallerThread;

    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        ctx.require::<CallerThread>().copied()
    }
}

/// A channel a text reply goes out on.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ChannelKind {
    /// A text message to a phone.
    Sms,
    /// `WhatsApp`.
    Whatsapp,
    /// The chat widget on the org's website.
    Widget,
}

/// The inbound message this turn answers. Only a reply turn has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveMessage {
    /// Where it came in.
    pub channel: ChannelKind,
    /// The conversation it belongs to.
    pub conversation_id: u32,
    /// The message's id, for reactions.
    pub message_id: u32,
    /// The contact who wrote it, when known.
    pub contact_id: Option<u32>,
    /// What they wrote.
    pub text: String,
}

impl FromContext for LiveMessage {
    type Binding = toolkit::binding::BoundToLiveChannel;

    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        ctx.require::<LiveMessage>().cloned()
    }
}

/// What woke an agent up: the trust rules depend on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Trigger {
    /// One of its own schedules fired.
    Schedule {
        /// The schedule that fired.
        schedule_id: u32,
    },
    /// A contact wrote to it: what it does now was asked for by someone outside
    /// the org.
    Contact {
        /// The contact who wrote.
        contact_id: u32,
    },
    /// A member of the org started it by hand.
    Member {
        /// The member.
        member_id: u32,
    },
}

//! USE-CASES B rebuilt on toolkit: one catalog of tools for the human assistant and
//! for autonomous agents, where every tool declares its scope and one allowlist
//! gates every consumer.
//!
//! - [`tools`]: the catalog. A tool is agent-only because it takes the
//!   [`CallerThread`], assistant-only because it takes the [`Session`], a channel
//!   tool because it takes the [`LiveMessage`].
//! - [`Org`]: the in-memory data the tools act on, the stored agent
//!   configurations, and the schedules that wake agents up ([`Org::advance_to`]).
//! - [`context`]: what a caller puts in the tool context, and what each piece is
//!   bound to.

pub mod consumers;
pub mod context;
pub mod schedule;
mod store;
pub mod time;
pub mod tools;

pub use context::{CallerThread, ChannelKind, LiveMessage, Principal, Session, ThreadId, Trigger};
pub use store::{
    AgentConfig, Call, Contact, Deal, Escalation, FRONT_DESK_AGENT, MAX_OPEN_ESCALATIONS,
    MAX_PENDING_SCHEDULES, Memory, Message, Org, PhoneNumber, Reply, SALES_AGENT, Stage, Task,
    Wake,
};

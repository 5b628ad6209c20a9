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
//! - [`consumers`]: the views: the assistant's and each agent's, built per request
//!   from stored allowlist strings, the `recommended` preset, permissions, pages,
//!   flags, and the trust rule for schedules.
//! - [`inbox`] and [`wake`]: a contact-triggered schedule waits for an owner, who
//!   decides in the inbox; the core's runner creates it once while the agent is
//!   away, and the agent's next wake reads what came of it from the approval
//!   store.
//!
//! ```
//! use example_agents::consumers::{Request, agent_view, approvals, quotas};
//! use example_agents::{CallerThread, Org, Principal, SALES_AGENT};
//! use toolkit::approval::ApprovalKey;
//! use toolkit::Context;
//! use toolkit::quota::MemoryQuotaStore;
//!
//! // Once, at start-up.
//! let approvals = approvals(ApprovalKey::new(*b"an application secret, 32 bytes!").expect("32 bytes"));
//! // Each agent's calls are counted on their own (`create_schedules`: 6 an hour).
//! let quotas = quotas(MemoryQuotaStore::new())?;
//! let org = Org::sample();
//!
//! // Per request: the agent's stored row, its principal, the org's flags.
//! let sales = org.agent(SALES_AGENT).unwrap();
//! let principal = Principal::agent(SALES_AGENT, &["contacts.read", "sales.read", "sales.write"]);
//! let request = Request { principal: &principal, flags: &[], page: None };
//! let view = agent_view(toolkit::registry(), &approvals, &quotas, &sales, &request, false)?;
//! assert!(view.contains("update_deals") && !view.contains("buy_phone_numbers"));
//!
//! let ctx = Context::new().with(org.clone()).with(CallerThread(SALES_AGENT));
//! // `update_deal` is the name the stored allowlist and old transcripts use.
//! let response = futures_executor::block_on(view.call("update_deal", r#"{"id": 6, "stage": "won"}"#, &ctx));
//! assert_eq!(response.result().map(|deal| &deal["stage"]), Some(&serde_json::json!("won")));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod consumers;
pub mod context;
pub mod inbox;
pub mod schedule;
mod store;
pub mod time;
pub mod tools;
pub mod wake;

pub use context::{CallerThread, ChannelKind, LiveMessage, Principal, Session, ThreadId, Trigger};
pub use store::{
    AgentConfig, Call, Contact, Deal, Escalation, FRONT_DESK_AGENT, MAX_OPEN_ESCALATIONS,
    MAX_PENDING_SCHEDULES, Memory, Message, Org, PhoneNumber, Reply, SALES_AGENT, Stage, Task,
    Wake,
};

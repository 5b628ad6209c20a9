//! The org's in-memory data: what the shared tools act on, plus each agent's own
//! memory, escalations and schedules, and the stored agent configurations.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::context::{ChannelKind, Principal, ThreadId, Trigger};
use crate::schedule::ScheduleRecord;
use crate::time::Timestamp;

/// How many schedules one agent may have waiting to fire.
pub const MAX_PENDING_SCHEDULES: usize = 3;
/// How many open escalations one agent may have.
pub const MAX_OPEN_ESCALATIONS: usize = 5;

/// A person or company the org talks to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Contact {
    /// The contact's id.
    pub id: u32,
    /// Full name.
    pub name: String,
    /// Phone number, international format.
    pub phone: String,
    /// The company they work for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub company: Option<String>,
}

/// A text message to or from a contact.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Message {
    /// The message's id.
    pub id: u32,
    /// The contact on the other side.
    pub contact_id: u32,
    /// Whether the org sent it.
    pub outgoing: bool,
    /// The text.
    pub text: String,
}

/// A phone call with a contact.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Call {
    /// The call's id.
    pub id: u32,
    /// The contact on the other side.
    pub contact_id: u32,
    /// Whether the org placed it.
    pub outgoing: bool,
    /// What was said, in a sentence.
    pub summary: String,
}

/// Where a deal stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// First contact.
    Lead,
    /// A quote was sent.
    Proposal,
    /// Signed.
    Won,
    /// Gone.
    Lost,
}

/// A sales opportunity with a contact.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Deal {
    /// The deal's id.
    pub id: u32,
    /// The customer.
    pub contact_id: u32,
    /// What is being sold.
    pub title: String,
    /// Where it stands.
    pub stage: Stage,
}

/// A to-do item of the org.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Task {
    /// The task's id.
    pub id: u32,
    /// What to do.
    pub title: String,
    /// Whether it is done.
    pub done: bool,
    /// The contact it is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contact_id: Option<u32>,
}

/// A phone number the org owns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PhoneNumber {
    /// The number, international format.
    pub number: String,
    /// The agent that answers it, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// An agent's stored configuration, as the database row has it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentConfig {
    /// The agent's name.
    pub name: String,
    /// The thread it acts under.
    pub thread: ThreadId,
    /// What it is for, in its own words.
    pub instructions: String,
    /// Tool names, aliases, `@group`s and presets, exactly as stored.
    pub allowlist: Vec<String>,
    /// The legacy switch: `true` meant "every domain tool", and now means the
    /// recommended preset.
    #[serde(default)]
    pub attach_domain_tools: bool,
    /// The permissions the org granted the agent (`contacts.read`, ...), as stored.
    #[serde(default)]
    pub permissions: Vec<String>,
}

impl AgentConfig {
    /// Who the agent acts as: `agent:<thread>`, with its stored permissions.
    #[must_use]
    pub fn principal(&self) -> Principal {
        let permissions: Vec<&str> = self.permissions.iter().map(String::as_str).collect();
        Principal::agent(self.thread, &permissions)
    }
}

/// Something an agent remembers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Memory {
    /// The memory's id.
    pub id: u32,
    /// What it remembers.
    pub text: String,
}

/// A question an agent handed to the org's owners.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Escalation {
    /// The escalation's id.
    pub id: u32,
    /// What the owners should look at.
    pub reason: String,
    /// The contact it is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contact_id: Option<u32>,
    /// Whether nobody has resolved it yet.
    pub open: bool,
}

/// A text sent on a live channel in answer to an inbound message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Reply {
    /// The channel it went out on.
    pub channel: ChannelKind,
    /// The conversation.
    pub conversation_id: u32,
    /// The message it answers.
    pub in_reply_to: u32,
    /// The text, or the emoji of a reaction.
    pub text: String,
    /// Whether this is a reaction to the message rather than a reply.
    pub reaction: bool,
}

/// A scheduled wake-up of an agent: what it should do, for whom.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wake {
    /// The agent's thread.
    pub thread: ThreadId,
    /// The schedule that fired.
    pub schedule_id: u32,
    /// When it was due.
    pub due: Timestamp,
    /// What the agent told itself to do.
    pub prompt: String,
    /// The contact the schedule is about, carried into the run.
    pub contact_id: Option<u32>,
}

impl Wake {
    /// What woke the agent: always its schedule, whoever the schedule is about.
    #[must_use]
    pub fn trigger(&self) -> Trigger {
        Trigger::Schedule {
            schedule_id: self.schedule_id,
        }
    }
}

/// Everything behind the lock.
#[derive(Debug)]
pub(crate) struct Data {
    pub(crate) now: Timestamp,
    pub(crate) contacts: Vec<Contact>,
    pub(crate) messages: Vec<Message>,
    pub(crate) calls: Vec<Call>,
    pub(crate) deals: Vec<Deal>,
    pub(crate) tasks: Vec<Task>,
    pub(crate) phone_numbers: Vec<PhoneNumber>,
    pub(crate) agents: Vec<AgentConfig>,
    pub(crate) knowledge: Vec<(&'static str, &'static str)>,
    pub(crate) analyzers: Vec<String>,
    pub(crate) memories: BTreeMap<ThreadId, Vec<Memory>>,
    pub(crate) escalations: BTreeMap<ThreadId, Vec<Escalation>>,
    pub(crate) schedules: Vec<ScheduleRecord>,
    pub(crate) plans: BTreeMap<ThreadId, Vec<String>>,
    pub(crate) personalization: BTreeMap<u32, String>,
    pub(crate) replies: Vec<Reply>,
    pub(crate) awaiting: BTreeMap<ThreadId, Vec<String>>,
    next_id: u32,
}

impl Data {
    /// A fresh id for any record; ids are never reused.
    pub(crate) fn next_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    pub(crate) fn contact(&self, id: u32) -> Option<&Contact> {
        self.contacts.iter().find(|contact| contact.id == id)
    }
}

/// The org's data, shared by every tool through `#[ctx] org: State<Org>`. Cheap to
/// clone; clones share the same data.
#[derive(Clone, Debug)]
pub struct Org {
    data: Arc<Mutex<Data>>,
}

/// The thread of the sample org's sales agent.
pub const SALES_AGENT: ThreadId = ThreadId(0x5a1e_5000_0000_0000_0000_0000_0000_0001);
/// The thread of the sample org's front-desk agent, set up with the legacy switch.
pub const FRONT_DESK_AGENT: ThreadId = ThreadId(0xf00d_0000_0000_0000_0000_0000_0000_0002);

impl Org {
    /// A small org: three contacts with messages, calls and deals, two tasks, one
    /// phone number and two agents, the clock at `2026-11-23T09:00Z` (a Monday).
    #[must_use]
    pub fn sample() -> Self {
        let contact = |id: u32, name: &str, phone: &str, company: Option<&str>| Contact {
            id,
            name: name.to_owned(),
            phone: phone.to_owned(),
            company: company.map(str::to_owned),
        };
        let data = Data {
            now: Timestamp::from_minutes(29_923_740), // 2026-11-23T09:00Z
            contacts: vec![
                contact(
                    1,
                    "Ada Lovelace",
                    "+44 20 7946 0001",
                    Some("Analytical Engines"),
                ),
                contact(2, "Alan Turing", "+44 20 7946 0002", None),
                contact(3, "Grace Hopper", "+1 202 555 0103", Some("Navy")),
            ],
            messages: vec![Message {
                id: 4,
                contact_id: 1,
                outgoing: false,
                text: "Can you send the quote again?".to_owned(),
            }],
            calls: vec![Call {
                id: 5,
                contact_id: 3,
                outgoing: true,
                summary: "Asked for a demo next week.".to_owned(),
            }],
            deals: vec![Deal {
                id: 6,
                contact_id: 1,
                title: "Difference engine licence".to_owned(),
                stage: Stage::Proposal,
            }],
            tasks: vec![Task {
                id: 7,
                title: "Send Ada the quote".to_owned(),
                done: false,
                contact_id: Some(1),
            }],
            phone_numbers: vec![PhoneNumber {
                number: "+44 20 7946 0100".to_owned(),
                agent: Some("Front desk".to_owned()),
            }],
            agents: vec![
                AgentConfig {
                    name: "Sales".to_owned(),
                    thread: SALES_AGENT,
                    instructions: "Follow up on open deals.".to_owned(),
                    allowlist: [
                        "@contacts",
                        "get_deals",
                        "update_deal",
                        "create_messages",
                        "create_memories",
                        "search_memories",
                        "create_escalations",
                        "create_schedules",
                        "delete_schedules",
                        "list_schedules",
                    ]
                    .map(str::to_owned)
                    .to_vec(),
                    attach_domain_tools: false,
                    permissions: ["contacts.read", "messages.write", "sales.read"]
                        .map(str::to_owned)
                        .to_vec(),
                },
                AgentConfig {
                    name: "Front desk".to_owned(),
                    thread: FRONT_DESK_AGENT,
                    instructions: "Answer the phone line.".to_owned(),
                    allowlist: ["create_escalations"].map(str::to_owned).to_vec(),
                    attach_domain_tools: true,
                    permissions: Vec::new(),
                },
            ],
            knowledge: vec![
                ("Opening hours", "Weekdays 09:00 to 17:00 UK time."),
                ("Refunds", "Refunds within 30 days, on the original card."),
            ],
            analyzers: Vec::new(),
            memories: BTreeMap::new(),
            escalations: BTreeMap::new(),
            schedules: Vec::new(),
            plans: BTreeMap::new(),
            personalization: BTreeMap::new(),
            replies: Vec::new(),
            awaiting: BTreeMap::new(),
            next_id: 100,
        };
        Org {
            data: Arc::new(Mutex::new(data)),
        }
    }

    /// Locks the data. A tool that panicked with the lock held leaves the data as
    /// it was then; later calls keep working.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Data> {
        self.data.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The org's clock.
    #[must_use]
    pub fn now(&self) -> Timestamp {
        self.lock().now
    }

    /// Moves the clock to `now`.
    pub fn set_now(&self, now: Timestamp) {
        self.lock().now = now;
    }

    /// An agent's stored configuration.
    #[must_use]
    pub fn agent(&self, thread: ThreadId) -> Option<AgentConfig> {
        self.lock()
            .agents
            .iter()
            .find(|agent| agent.thread == thread)
            .cloned()
    }

    /// Every agent's stored configuration.
    #[must_use]
    pub fn agents(&self) -> Vec<AgentConfig> {
        self.lock().agents.clone()
    }

    /// The org's tasks, in id order.
    #[must_use]
    pub fn tasks(&self) -> Vec<Task> {
        self.lock().tasks.clone()
    }

    /// The messages, in id order.
    #[must_use]
    pub fn messages(&self) -> Vec<Message> {
        self.lock().messages.clone()
    }

    /// What an agent remembers, oldest first.
    #[must_use]
    pub fn memories(&self, thread: ThreadId) -> Vec<Memory> {
        self.lock()
            .memories
            .get(&thread)
            .cloned()
            .unwrap_or_default()
    }

    /// An agent's escalations, oldest first.
    #[must_use]
    pub fn escalations(&self, thread: ThreadId) -> Vec<Escalation> {
        self.lock()
            .escalations
            .get(&thread)
            .cloned()
            .unwrap_or_default()
    }

    /// An owner closes an escalation; returns whether it was open.
    #[must_use]
    pub fn resolve_escalation(&self, thread: ThreadId, id: u32) -> bool {
        let mut data = self.lock();
        let escalation = data
            .escalations
            .get_mut(&thread)
            .and_then(|all| all.iter_mut().find(|escalation| escalation.id == id));
        match escalation {
            Some(escalation) if escalation.open => {
                escalation.open = false;
                true
            }
            _ => false,
        }
    }

    /// How the assistant should address a member, as they set it.
    #[must_use]
    pub fn personalization(&self, member_id: u32) -> Option<String> {
        self.lock().personalization.get(&member_id).cloned()
    }

    /// Replies and reactions sent on live channels, oldest first.
    #[must_use]
    pub fn replies(&self) -> Vec<Reply> {
        self.lock().replies.clone()
    }

    /// The schedules of one agent, in id order, with their state.
    #[must_use]
    pub fn schedules(&self, thread: ThreadId) -> Vec<crate::schedule::Schedule> {
        self.lock()
            .schedules
            .iter()
            .filter(|schedule| schedule.thread == thread && !schedule.deleted)
            .map(ScheduleRecord::view)
            .collect()
    }

    /// Moves the clock to `now` and fires every schedule due by then, in due
    /// order: each yields one [`Wake`], however many runs it missed. A one-shot
    /// schedule disables itself after it fired; a recurring one moves to its next
    /// run after `now`.
    #[must_use = "the wakes are the agent runs to start"]
    pub fn advance_to(&self, now: Timestamp) -> Vec<Wake> {
        let mut data = self.lock();
        data.now = data.now.max(now);
        let now = data.now;
        let mut wakes = Vec::new();
        for schedule in &mut data.schedules {
            if let Some(wake) = schedule.fire_if_due(now) {
                wakes.push(wake);
            }
        }
        wakes.sort_by_key(|wake| (wake.due, wake.schedule_id));
        wakes
    }

    /// Remembers on `thread` that its call `call_id` waits for a person: the
    /// agent's next wake reads what came of it from the approval store
    /// ([`crate::wake`]). What the agent's transcript would hold; the call itself,
    /// and its whole life, are the approval store's.
    pub fn await_decision(&self, thread: ThreadId, call_id: impl Into<String>) {
        let call_id = call_id.into();
        let mut data = self.lock();
        let awaited = data.awaiting.entry(thread).or_default();
        if !awaited.contains(&call_id) {
            awaited.push(call_id);
        }
    }

    /// The calls `thread` waits on a person for, oldest first.
    #[must_use]
    pub fn awaiting(&self, thread: ThreadId) -> Vec<String> {
        self.lock()
            .awaiting
            .get(&thread)
            .cloned()
            .unwrap_or_default()
    }

    /// Forgets that `thread` waits on `call_id`: its agent has read what came of it.
    pub(crate) fn stop_awaiting(&self, thread: ThreadId, call_id: &str) {
        let mut data = self.lock();
        if let Some(awaited) = data.awaiting.get_mut(&thread) {
            awaited.retain(|awaited| awaited != call_id);
            if awaited.is_empty() {
                data.awaiting.remove(&thread);
            }
        }
    }
}

//! The brain's memory, prompts, calendar, contacts, mail, lists and GitHub issues,
//! in memory.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who the assistant is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Personality {
    /// Its name.
    pub name: String,
    /// How it speaks.
    pub voice: String,
}

/// Something the assistant remembers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Memory {
    /// The memory's id.
    pub id: u32,
    /// What it remembers.
    pub text: String,
}

/// A calendar event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Event {
    /// The event's id.
    pub id: u32,
    /// What it is.
    pub title: String,
    /// When it starts, `YYYY-MM-DDTHH:MM`.
    pub start: String,
    /// How long it lasts, in minutes.
    pub minutes: u32,
}

/// A person the household knows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Contact {
    /// The contact's id.
    pub id: u32,
    /// Their name.
    pub name: String,
    /// Their email address.
    pub email: String,
}

/// An email, received or sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Email {
    /// The email's id.
    pub id: u32,
    /// Who sent it.
    pub from: String,
    /// Who it is for.
    pub to: String,
    /// Its subject.
    pub subject: String,
    /// Its text.
    pub body: String,
}

/// One item of a list (groceries, packing, chores).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ListItem {
    /// The item's id.
    pub id: u32,
    /// The list it is on.
    pub list: String,
    /// The item.
    pub text: String,
    /// Whether it is ticked off.
    pub done: bool,
}

/// Open or closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum IssueState {
    /// Still to do.
    Open,
    /// Done or dropped.
    Closed,
}

/// A GitHub issue of the home automation repository.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Issue {
    /// The issue number.
    pub number: u32,
    /// Its title.
    pub title: String,
    /// Open or closed.
    pub state: IssueState,
    /// Its labels.
    pub labels: Vec<String>,
}

/// A call of a `persistent` tool, as the ledger keeps it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LedgerEntry {
    /// The client that called.
    pub client: &'static str,
    /// Whom the client acted for: the access token's subject over MCP
    /// (see [`crate::server`]); `None` for the brain's own calls.
    pub principal: Option<String>,
    /// The tool.
    pub tool: &'static str,
    /// The arguments, as the model sent them.
    pub arguments: Value,
}

#[derive(Debug)]
pub(crate) struct Data {
    pub(crate) personality: Personality,
    pub(crate) memories: Vec<Memory>,
    pub(crate) prompts: BTreeMap<String, String>,
    pub(crate) events: Vec<Event>,
    pub(crate) contacts: Vec<Contact>,
    pub(crate) inbox: Vec<Email>,
    pub(crate) outbox: Vec<Email>,
    pub(crate) items: Vec<ListItem>,
    pub(crate) issues: Vec<Issue>,
    pub(crate) ledger: Vec<LedgerEntry>,
    next_id: u32,
}

impl Data {
    pub(crate) fn next_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }
}

/// The household's data, shared by every tool through `#[ctx] home: State<Home>`.
/// Cheap to clone; clones share the data.
#[derive(Clone, Debug)]
pub struct Home {
    data: Arc<Mutex<Data>>,
}

impl Home {
    /// A household with a little of everything; ids run 1..=10, new ones from 11.
    #[must_use]
    pub fn sample() -> Self {
        let data = Data {
            personality: Personality {
                name: "Juniper".to_owned(),
                voice: "Warm, brief, a little dry.".to_owned(),
            },
            memories: vec![Memory {
                id: 1,
                text: "Sam is allergic to peanuts.".to_owned(),
            }],
            prompts: BTreeMap::from([(
                "morning".to_owned(),
                "Summarise today's events and the open chores.".to_owned(),
            )]),
            events: vec![Event {
                id: 2,
                title: "Dentist".to_owned(),
                start: "2026-11-24T09:00".to_owned(),
                minutes: 30,
            }],
            contacts: vec![
                Contact {
                    id: 3,
                    name: "Ada Lovelace".to_owned(),
                    email: "ada@example.com".to_owned(),
                },
                Contact {
                    id: 4,
                    name: "Grace Hopper".to_owned(),
                    email: "grace@example.com".to_owned(),
                },
            ],
            inbox: vec![Email {
                id: 5,
                from: "ada@example.com".to_owned(),
                to: "home@example.com".to_owned(),
                subject: "Dinner on Friday?".to_owned(),
                body: "Shall we cook together?".to_owned(),
            }],
            outbox: Vec::new(),
            items: vec![
                ListItem {
                    id: 6,
                    list: "groceries".to_owned(),
                    text: "oat milk".to_owned(),
                    done: false,
                },
                ListItem {
                    id: 7,
                    list: "groceries".to_owned(),
                    text: "lemons".to_owned(),
                    done: true,
                },
            ],
            issues: vec![
                Issue {
                    number: 8,
                    title: "Hallway sensor drops offline".to_owned(),
                    state: IssueState::Open,
                    labels: vec!["bug".to_owned()],
                },
                Issue {
                    number: 9,
                    title: "Add a vacation mode".to_owned(),
                    state: IssueState::Closed,
                    labels: vec![],
                },
            ],
            ledger: Vec::new(),
            next_id: 10,
        };
        Home {
            data: Arc::new(Mutex::new(data)),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Data> {
        self.data.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The calls of `persistent` tools, oldest first.
    #[must_use]
    pub fn ledger(&self) -> Vec<LedgerEntry> {
        self.lock().ledger.clone()
    }

    /// The emails sent, oldest first.
    #[must_use]
    pub fn outbox(&self) -> Vec<Email> {
        self.lock().outbox.clone()
    }

    pub(crate) fn record(&self, entry: LedgerEntry) {
        self.lock().ledger.push(entry);
    }
}

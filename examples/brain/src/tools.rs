//! The brain's tools: one function each, carrying all its metadata. `always` tools
//! skip the router; `tags` name the clients that may call a tool (`internal`,
//! `copilot`, `external`) and mark `persistent` ones, whose calls go to the ledger;
//! `group` is the service behind it.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{State, ToolError, tool};

use crate::store::{Contact, Email, Event, Home, Issue, IssueState, ListItem, Memory, Personality};

/// What a tool that changes records answers: the records it touched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Changed<T> {
    /// How many.
    pub count: usize,
    /// The records, as they are now.
    pub items: Vec<T>,
}

impl<T> Changed<T> {
    fn new(items: Vec<T>) -> Self {
        Changed {
            count: items.len(),
            items,
        }
    }
}

/// Whether every word of `query` is in `text`, ignoring case.
fn matches(text: &str, query: &str) -> bool {
    let text = text.to_lowercase();
    query
        .split_whitespace()
        .all(|word| text.contains(&word.to_lowercase()))
}

/// Checks that every id in `ids` names one of `records` (`what` says which kind;
/// `after` ends the message); the first unknown id is the error. Returns the ids as
/// a set, so the caller's pass over the records stays linear: the store is locked,
/// and a model sending 100,000 ids must not make it quadratic.
fn known_ids<T>(
    records: &[T],
    id_of: impl Fn(&T) -> u32,
    ids: &[u32],
    what: &str,
    after: &str,
) -> Result<HashSet<u32>, ToolError> {
    let known: HashSet<u32> = records.iter().map(id_of).collect();
    match ids.iter().find(|id| !known.contains(id)) {
        Some(id) => Err(ToolError::failed(format!("no {what} with id {id}{after}"))),
        None => Ok(ids.iter().copied().collect()),
    }
}

/// Deletes the records `ids` name, or none if one is unknown (the shared body of
/// the `delete_*` tools).
fn delete_ids<T>(
    records: &mut Vec<T>,
    id_of: impl Fn(&T) -> u32,
    ids: Vec<u32>,
    what: &str,
) -> Result<Changed<u32>, ToolError> {
    not_empty(&ids, "ids")?;
    let doomed = known_ids(records, &id_of, &ids, what, "; nothing was deleted")?;
    records.retain(|record| !doomed.contains(&id_of(record)));
    Ok(Changed::new(ids))
}

fn not_empty<T>(items: &[T], what: &str) -> Result<(), ToolError> {
    if items.is_empty() {
        Err(ToolError::invalid_arguments(
            what,
            "empty; pass at least one",
        ))
    } else {
        Ok(())
    }
}

// ---------------------------------------------------------------- always

/// Get the assistant's personality: its name and how it speaks.
#[tool(scope = shared, tier = auto, always, group = "self",
       tags = ["internal", "copilot", "external"],
       guidance = "Speak in this voice in every reply.")]
pub fn get_personality(#[ctx] home: State<Home>) -> Personality {
    home.lock().personality.clone()
}

/// Remember facts about the household for later conversations.
#[tool(scope = shared, tier = auto, always, group = "memory",
       tags = ["internal", "copilot", "persistent"],
       guidance = "Remember lasting facts (allergies, birthdays), not the chat itself.")]
pub fn create_memories(
    #[ctx] home: State<Home>,
    /// One fact per item, as a full sentence.
    memories: Vec<String>,
) -> Result<Changed<Memory>, ToolError> {
    not_empty(&memories, "memories")?;
    let mut data = home.lock();
    let created = memories
        .into_iter()
        .map(|text| Memory {
            id: data.next_id(),
            text,
        })
        .collect::<Vec<_>>();
    data.memories.extend(created.iter().cloned());
    Ok(Changed::new(created))
}

/// Search what the assistant remembers by words.
#[tool(scope = shared, tier = auto, always, group = "memory",
       tags = ["internal", "copilot"])]
pub fn search_memories(
    #[ctx] home: State<Home>,
    /// Words the memory contains.
    query: String,
) -> Vec<Memory> {
    home.lock()
        .memories
        .iter()
        .filter(|memory| matches(&memory.text, &query))
        .cloned()
        .collect()
}

/// A stored prompt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Prompt {
    /// Its name, like `morning`.
    pub name: String,
    /// Its text.
    pub text: String,
}

/// Get the stored prompts (morning briefing, ...) by name, or all of them.
#[tool(scope = shared, tier = auto, always, group = "prompts", tags = ["internal"])]
pub fn get_prompts(
    #[ctx] home: State<Home>,
    /// The prompt's name; every prompt if left out.
    name: Option<String>,
) -> Result<Vec<Prompt>, ToolError> {
    let data = home.lock();
    let prompts: Vec<Prompt> = data
        .prompts
        .iter()
        .filter(|(key, _)| name.as_ref().is_none_or(|name| name == *key))
        .map(|(key, text)| Prompt {
            name: key.clone(),
            text: text.clone(),
        })
        .collect();
    match (name, prompts.is_empty()) {
        (Some(name), true) => Err(ToolError::failed(format!("no prompt named `{name}`"))),
        _ => Ok(prompts),
    }
}

/// Set the text of a stored prompt, creating it if new.
#[tool(scope = shared, tier = auto, always, group = "prompts",
       tags = ["internal", "persistent"],
       guidance = "Only when the user asks to change how a routine works.")]
pub fn set_prompt(
    #[ctx] home: State<Home>,
    /// The prompt's name, like `morning`.
    name: String,
    /// Its new text.
    text: String,
) -> Prompt {
    home.lock().prompts.insert(name.clone(), text.clone());
    Prompt { name, text }
}

// ---------------------------------------------------------------- calendar

/// Get calendar events, soonest first; only one day's with `day`.
#[tool(scope = shared, tier = auto, group = "calendar",
       tags = ["internal", "copilot", "external"],
       examples = [r#"{"day": "2026-12-24"}"#, "{}"],
       asked_as = ["am I free on Saturday?", "what do we have on this week", "when is the parents' evening?"])]
pub fn get_events(
    #[ctx] home: State<Home>,
    /// The day, `YYYY-MM-DD`.
    day: Option<String>,
) -> Vec<Event> {
    let mut events: Vec<Event> = home
        .lock()
        .events
        .iter()
        .filter(|event| {
            day.as_ref()
                .is_none_or(|day| event.start.starts_with(day.as_str()))
        })
        .cloned()
        .collect();
    events.sort_by(|a, b| a.start.cmp(&b.start));
    events
}

/// A new calendar event.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct NewEvent {
    /// What it is.
    pub title: String,
    /// When it starts, `YYYY-MM-DDTHH:MM`.
    pub start: String,
    /// How long it lasts, in minutes.
    pub minutes: u32,
}

/// Create calendar events (appointments, dinners, trips).
#[tool(scope = shared, tier = auto, group = "calendar",
       tags = ["internal", "copilot", "persistent"],
       guidance = "Times are local; ask for a time rather than guessing one.",
       examples = [r#"{"events": [{"title": "Dinner with Ada", "start": "2026-12-04T20:00", "minutes": 120}]}"#])]
pub fn create_events(
    #[ctx] home: State<Home>,
    /// The events.
    events: Vec<NewEvent>,
) -> Result<Changed<Event>, ToolError> {
    not_empty(&events, "events")?;
    if let Some((index, _)) = events
        .iter()
        .enumerate()
        .find(|(_, event)| event.start.len() != 16 || event.start.as_bytes().get(10) != Some(&b'T'))
    {
        return Err(ToolError::invalid_arguments(
            format!("events[{index}].start"),
            "write it as `YYYY-MM-DDTHH:MM`",
        ));
    }
    let mut data = home.lock();
    let created: Vec<Event> = events
        .into_iter()
        .map(|event| Event {
            id: data.next_id(),
            title: event.title,
            start: event.start,
            minutes: event.minutes,
        })
        .collect();
    data.events.extend(created.iter().cloned());
    Ok(Changed::new(created))
}

/// Delete calendar events by id.
#[tool(scope = shared, tier = auto, group = "calendar",
       tags = ["internal", "copilot", "persistent"])]
pub fn delete_events(
    #[ctx] home: State<Home>,
    /// The events' ids.
    ids: Vec<u32>,
) -> Result<Changed<u32>, ToolError> {
    delete_ids(&mut home.lock().events, |e| e.id, ids, "event")
}

// ---------------------------------------------------------------- contacts

/// Search contacts by name or email address.
#[tool(scope = shared, tier = auto, group = "contacts", tags = ["internal", "copilot"])]
pub fn search_contacts(
    #[ctx] home: State<Home>,
    /// Part of a name or address.
    query: String,
) -> Vec<Contact> {
    home.lock()
        .contacts
        .iter()
        .filter(|contact| matches(&contact.name, &query) || matches(&contact.email, &query))
        .cloned()
        .collect()
}

/// A new contact.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct NewContact {
    /// Their name.
    pub name: String,
    /// Their email address.
    pub email: String,
}

/// Create contacts in the address book.
#[tool(scope = shared, tier = auto, group = "contacts", tags = ["internal", "persistent"])]
pub fn create_contacts(
    #[ctx] home: State<Home>,
    /// The people.
    contacts: Vec<NewContact>,
) -> Result<Changed<Contact>, ToolError> {
    not_empty(&contacts, "contacts")?;
    let mut data = home.lock();
    let created: Vec<Contact> = contacts
        .into_iter()
        .map(|contact| Contact {
            id: data.next_id(),
            name: contact.name,
            email: contact.email,
        })
        .collect();
    data.contacts.extend(created.iter().cloned());
    Ok(Changed::new(created))
}

// ---------------------------------------------------------------- email

/// Search the inbox by words in the sender, subject or text.
#[tool(scope = shared, tier = auto, group = "email", tags = ["internal", "copilot"],
       asked_as = ["has the school replied?", "any mail from the bank this week?", "did anyone answer my message about the boiler"])]
pub fn search_emails(
    #[ctx] home: State<Home>,
    /// Words the email contains.
    query: String,
) -> Vec<Email> {
    home.lock()
        .inbox
        .iter()
        .filter(|email| {
            matches(
                &format!("{} {} {}", email.from, email.subject, email.body),
                &query,
            )
        })
        .cloned()
        .collect()
}

fn check_address(to: &str) -> Result<(), ToolError> {
    if to.contains('@') {
        Ok(())
    } else {
        Err(ToolError::invalid_arguments(
            "to",
            "an email address, like `ada@example.com`",
        ))
    }
}

/// What `send_emails` would send: checked like the sending itself.
// A preview function takes the tool's parameters by value, like the tool.
#[allow(clippy::needless_pass_by_value)]
pub fn preview_send_emails(
    _home: State<Home>,
    to: String,
    subject: String,
    body: String,
) -> Result<toolkit::Preview, ToolError> {
    check_address(&to)?;
    Ok(toolkit::Preview::new(format!(
        "This sends \"{subject}\" to {to}. Read it to the user, and only if they agree call `send_emails` again with `confirmed: true`."
    ))
    .item(serde_json::json!({"to": to, "subject": subject, "body": body})))
}

/// Send an email from the household's address.
#[tool(scope = shared, tier = confirm, group = "email", tags = ["internal", "persistent"],
       preview = preview_send_emails,
       guidance = "Read the draft back to the user before confirming.")]
pub fn send_emails(
    #[ctx] home: State<Home>,
    /// The recipient's address; look it up with search_contacts.
    to: String,
    /// The subject line.
    subject: String,
    /// The text.
    body: String,
) -> Result<Email, ToolError> {
    check_address(&to)?;
    let mut data = home.lock();
    let email = Email {
        id: data.next_id(),
        from: "home@example.com".to_owned(),
        to,
        subject,
        body,
    };
    data.outbox.push(email.clone());
    Ok(email)
}

// ---------------------------------------------------------------- lists

/// Get the items of a list (groceries, packing, chores), or of every list.
#[tool(scope = shared, tier = auto, group = "lists",
       tags = ["internal", "copilot", "external"])]
pub fn get_lists(
    #[ctx] home: State<Home>,
    /// The list's name; every list if left out.
    list: Option<String>,
) -> Vec<ListItem> {
    home.lock()
        .items
        .iter()
        .filter(|item| list.as_ref().is_none_or(|list| *list == item.list))
        .cloned()
        .collect()
}

/// Create items on a list; the list is made if new.
#[tool(scope = shared, tier = auto, group = "lists",
       tags = ["internal", "copilot", "external", "persistent"],
       guidance = "One thing per item: `milk`, not `milk and eggs`.")]
pub fn create_list_items(
    #[ctx] home: State<Home>,
    /// The list's name, like `groceries`.
    list: String,
    /// The items.
    items: Vec<String>,
) -> Result<Changed<ListItem>, ToolError> {
    not_empty(&items, "items")?;
    let mut data = home.lock();
    let created: Vec<ListItem> = items
        .into_iter()
        .map(|text| ListItem {
            id: data.next_id(),
            list: list.clone(),
            text,
            done: false,
        })
        .collect();
    data.items.extend(created.iter().cloned());
    Ok(Changed::new(created))
}

/// Tick list items off, or back on.
#[tool(scope = shared, tier = auto, group = "lists",
       tags = ["internal", "copilot", "external", "persistent"],
       asked_as = ["cross the bread off", "mark the milk as bought", "we got the batteries"])]
pub fn update_list_items(
    #[ctx] home: State<Home>,
    /// The items' ids.
    ids: Vec<u32>,
    /// Whether they are done.
    done: bool,
) -> Result<Changed<ListItem>, ToolError> {
    not_empty(&ids, "ids")?;
    let mut data = home.lock();
    let chosen = known_ids(&data.items, |i| i.id, &ids, "list item", "")?;
    let mut changed = Vec::new();
    for item in data
        .items
        .iter_mut()
        .filter(|item| chosen.contains(&item.id))
    {
        item.done = done;
        changed.push(item.clone());
    }
    Ok(Changed::new(changed))
}

/// Delete list items by id.
#[tool(scope = shared, tier = auto, group = "lists",
       tags = ["internal", "copilot", "persistent"])]
pub fn delete_list_items(
    #[ctx] home: State<Home>,
    /// The items' ids.
    ids: Vec<u32>,
) -> Result<Changed<u32>, ToolError> {
    delete_ids(&mut home.lock().items, |i| i.id, ids, "list item")
}

// ---------------------------------------------------------------- GitHub issues

/// Get the GitHub issues of the home automation repository, open ones unless told.
#[tool(scope = shared, tier = auto, group = "github", tags = ["internal", "copilot"])]
pub fn get_issues(
    #[ctx] home: State<Home>,
    /// open or closed.
    #[tool(default = IssueState::Open)]
    state: IssueState,
) -> Vec<Issue> {
    home.lock()
        .issues
        .iter()
        .filter(|issue| issue.state == state)
        .cloned()
        .collect()
}

/// Create a GitHub issue in the home automation repository (a bug, an idea).
#[tool(scope = shared, tier = auto, group = "github",
       tags = ["internal", "copilot", "persistent"],
       guidance = "Say what happened and where: `Hallway sensor drops offline`.")]
pub fn create_issues(
    #[ctx] home: State<Home>,
    /// The title.
    title: String,
    /// Labels, like `bug`.
    #[tool(default = Vec::new())]
    labels: Vec<String>,
) -> Issue {
    let mut data = home.lock();
    let issue = Issue {
        number: data.next_id(),
        title,
        state: IssueState::Open,
        labels,
    };
    data.issues.push(issue.clone());
    issue
}

/// Close or reopen a GitHub issue, or change its labels.
#[tool(scope = shared, tier = auto, group = "github",
       tags = ["internal", "copilot", "persistent"])]
pub fn update_issues(
    #[ctx] home: State<Home>,
    /// The issue number.
    number: u32,
    /// open or closed.
    state: Option<IssueState>,
    /// The labels, replacing the old ones.
    labels: Option<Vec<String>>,
) -> Result<Issue, ToolError> {
    let mut data = home.lock();
    let issue = data
        .issues
        .iter_mut()
        .find(|issue| issue.number == number)
        .ok_or_else(|| ToolError::failed(format!("no issue #{number}")))?;
    if let Some(state) = state {
        issue.state = state;
    }
    if let Some(labels) = labels {
        issue.labels = labels;
    }
    Ok(issue.clone())
}

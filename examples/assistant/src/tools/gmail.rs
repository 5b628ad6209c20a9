//! Gmail, read-only, over a fake inbox seeded with a few messages.
//!
//! Tiers: both tools only read, so `auto`.

use schemars::JsonSchema;
use serde::Serialize;
use toolkit::{State, ToolError, tool};

use super::{MAX_QUERY_WORDS, Terms, take};
use crate::AssistantState;

/// One email, in full.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Message {
    /// The message id, for `get_gmail`.
    pub id: String,
    /// The sender, `Name <address>`.
    pub from: String,
    /// The subject line.
    pub subject: String,
    /// When it arrived, ISO 8601.
    pub date: String,
    /// The plain-text body.
    pub body: String,
}

/// One email found by `search_gmail`: enough to pick it, without the body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct MessageSummary {
    /// The message id, for `get_gmail`.
    pub id: String,
    /// The sender, `Name <address>`.
    pub from: String,
    /// The subject line.
    pub subject: String,
    /// When it arrived, ISO 8601.
    pub date: String,
    /// The first words of the body.
    pub snippet: String,
}

/// How many characters of the body a snippet keeps.
const SNIPPET_CHARS: usize = 60;

impl Message {
    fn summary(&self) -> MessageSummary {
        let mut snippet: String = self.body.chars().take(SNIPPET_CHARS).collect();
        if self.body.chars().count() > SNIPPET_CHARS {
            snippet.push('…');
        }
        MessageSummary {
            id: self.id.clone(),
            from: self.from.clone(),
            subject: self.subject.clone(),
            date: self.date.clone(),
            snippet,
        }
    }

    /// Whether the message matches every word of `query`.
    fn matches(&self, query: &Query) -> bool {
        // Each field is lowercased once per message, not once per word.
        let lower = |text: &str| text.to_lowercase();
        let (from, subject) = (lower(&self.from), lower(&self.subject));
        if !(query.from.all(|word| from.contains(word))
            && query.subject.all(|word| subject.contains(word)))
        {
            return false;
        }
        if query.anywhere.is_empty() {
            return true;
        }
        let body = lower(&self.body);
        query
            .anywhere
            .all(|word| from.contains(word) || subject.contains(word) || body.contains(word))
    }
}

/// A parsed `search_gmail` query: `from:x` and `subject:x` look in that header,
/// other words anywhere. Parsed once, before the store is locked.
#[derive(Debug, Default)]
struct Query {
    from: Terms,
    subject: Terms,
    anywhere: Terms,
}

impl Query {
    fn parse(text: &str) -> Result<Self, ToolError> {
        let mut query = Query::default();
        for word in text.split_whitespace() {
            if let Some(sender) = word.strip_prefix("from:") {
                query.from.add(sender)?;
            } else if let Some(subject) = word.strip_prefix("subject:") {
                query.subject.add(subject)?;
            } else {
                query.anywhere.add(word)?;
            }
            if query.from.len() + query.subject.len() + query.anywhere.len() > MAX_QUERY_WORDS {
                return Err(ToolError::failed(format!(
                    "`query` has more than {MAX_QUERY_WORDS} different words; search with fewer"
                )));
            }
        }
        Ok(query)
    }
}

/// The demo inbox, newest last.
pub(crate) fn seed_inbox() -> Vec<Message> {
    let message = |id: &str, from: &str, subject: &str, date: &str, body: &str| Message {
        id: id.to_owned(),
        from: from.to_owned(),
        subject: subject.to_owned(),
        date: date.to_owned(),
        body: body.to_owned(),
    };
    vec![
        message(
            "msg-1",
            "Ada Lovelace <ada@example.com>",
            "Engine notes for Thursday",
            "2025-01-03T16:20:00Z",
            "Here are my notes on the analytical engine. Can we go through them on Thursday?",
        ),
        message(
            "msg-2",
            "Billing <billing@example.net>",
            "Your January invoice",
            "2025-01-04T08:00:00Z",
            "Invoice 2025-01 is ready: 42.00 EUR, due on 2025-01-31.",
        ),
        message(
            "msg-3",
            "Grace Hopper <grace@example.com>",
            "Re: compiler review",
            "2025-01-05T11:45:00Z",
            "The review is done. Two small fixes, then it can ship.",
        ),
        message(
            "msg-4",
            "Ada Lovelace <ada@example.com>",
            "Lunch on Friday?",
            "2025-01-06T07:55:00Z",
            "Are you free for lunch on Friday at noon?",
        ),
    ]
}

/// Search Gmail; returns summaries of matching messages, newest first.
// A task where the client takes them: a search of a whole mailbox can take
// longer than a request may.
#[tool(scope = shared, tier = auto, group = "gmail", aliases = ["gmail_search"], task = optional,
       guidance = "Results carry no body; call get_gmail with a message id to read one.")]
pub fn search_gmail(
    #[ctx] state: State<AssistantState>,
    /// Words that must all appear. `from:name` and `subject:word` look only in
    /// that header.
    query: String,
    /// At most this many messages.
    #[tool(default = 10)]
    limit: u32,
) -> Result<Vec<MessageSummary>, ToolError> {
    let query = Query::parse(&query)?;
    Ok(state
        .lock()
        .inbox
        .iter()
        .rev()
        .filter(|message| message.matches(&query))
        .take(take(limit))
        .map(Message::summary)
        .collect())
}

/// Get Gmail messages in full: one by `id`, or the latest ones, newest first.
#[tool(scope = shared, tier = auto, group = "gmail", aliases = ["gmail_get_message"])]
pub fn get_gmail(
    #[ctx] state: State<AssistantState>,
    /// Return only this message.
    id: Option<String>,
    /// At most this many messages.
    #[tool(default = 5)]
    limit: u32,
) -> Result<Vec<Message>, ToolError> {
    let stores = state.lock();
    if let Some(id) = id {
        return match stores.inbox.iter().find(|message| message.id == id) {
            Some(message) => Ok(vec![message.clone()]),
            None => Err(ToolError::failed(format!("no message with id `{id}`"))),
        };
    }
    Ok(stores
        .inbox
        .iter()
        .rev()
        .take(take(limit))
        .cloned()
        .collect())
}

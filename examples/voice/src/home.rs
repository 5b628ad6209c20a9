//! The in-memory backend the tools act on: one user's contacts, calendar, messages,
//! reminders, timers and devices. Cheap to clone; clones share the same data.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use schemars::JsonSchema;
use serde::Serialize;

use crate::tools::Room;

/// A person the user knows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Contact {
    /// The contact's id.
    pub id: u32,
    /// Full name.
    pub name: String,
    /// Phone number, international format.
    pub phone: String,
}

/// An event in the calendar.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Event {
    /// Day, like `2025-06-01`.
    pub date: String,
    /// Start time, like `09:30`.
    pub time: String,
    /// What it is.
    pub title: String,
}

/// A text message, sent or received.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Message {
    /// The message's id.
    pub id: u32,
    /// The other side of the conversation.
    pub contact_id: u32,
    /// Whether the user sent it (`false`: received it).
    pub outgoing: bool,
    /// Whether the user has read it.
    pub read: bool,
    /// The text.
    pub text: String,
}

/// A reminder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Reminder {
    /// The reminder's id.
    pub id: u32,
    /// What to remind the user of.
    pub text: String,
    /// When, as a local date and time.
    pub at: String,
}

/// A running timer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Timer {
    /// The timer's id.
    pub id: u32,
    /// Its name, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// How long it runs, in seconds.
    pub seconds: u32,
}

#[derive(Debug, Default)]
struct Data {
    contacts: Vec<Contact>,
    events: Vec<Event>,
    messages: Vec<Message>,
    reminders: Vec<Reminder>,
    timers: Vec<Timer>,
    volume: u8,
    lights: BTreeMap<&'static str, (bool, u8)>,
}

/// One user's world, shared by every tool through `#[ctx] State<Home>`.
#[derive(Clone, Debug, Default)]
pub struct Home {
    data: Arc<Mutex<Data>>,
}

impl Home {
    /// A home with a few contacts, events and messages, so the tools have something
    /// to find.
    #[must_use]
    pub fn sample() -> Self {
        let contact = |id: u32, name: &str, phone: &str| Contact {
            id,
            name: name.to_owned(),
            phone: phone.to_owned(),
        };
        let event = |time: &str, title: &str| Event {
            date: "2025-06-02".to_owned(),
            time: time.to_owned(),
            title: title.to_owned(),
        };
        let data = Data {
            contacts: vec![
                contact(1, "Ada Lovelace", "+44 20 7946 0001"),
                contact(2, "Alan Turing", "+44 20 7946 0002"),
                contact(3, "Grace Hopper", "+1 202 555 0103"),
            ],
            events: vec![event("09:30", "Standup"), event("13:00", "Lunch with Ada")],
            messages: vec![Message {
                id: 1,
                contact_id: 1,
                outgoing: false,
                read: false,
                text: "Lunch at one?".to_owned(),
            }],
            volume: 40,
            ..Data::default()
        };
        Home {
            data: Arc::new(Mutex::new(data)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Data> {
        self.data.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The temperature in degrees Celsius and the conditions in `city`, if known.
    #[must_use]
    pub fn weather(&self, city: &str) -> Option<(i32, &'static str)> {
        match city.to_lowercase().as_str() {
            "lisbon" => Some((24, "sunny")),
            "london" => Some((15, "light rain")),
            "oslo" => Some((-2, "snow showers")),
            _ => None,
        }
    }

    /// Starts a timer.
    #[must_use]
    pub fn add_timer(&self, seconds: u32, label: Option<String>) -> Timer {
        let mut data = self.lock();
        let timer = Timer {
            id: next_id(data.timers.last().map(|timer| timer.id)),
            label,
            seconds,
        };
        data.timers.push(timer.clone());
        timer
    }

    /// Adds a reminder.
    #[must_use]
    pub fn add_reminder(&self, text: String, at: String) -> Reminder {
        let mut data = self.lock();
        let reminder = Reminder {
            id: next_id(data.reminders.iter().map(|reminder| reminder.id).max()),
            text,
            at,
        };
        data.reminders.push(reminder.clone());
        data.reminders.sort_by(|a, b| a.at.cmp(&b.at));
        reminder
    }

    /// The first `limit` reminders, soonest first.
    #[must_use]
    pub fn reminders(&self, limit: usize) -> Vec<Reminder> {
        self.lock().reminders.iter().take(limit).cloned().collect()
    }

    /// The events on `date`, in time order.
    #[must_use]
    pub fn events_on(&self, date: &str) -> Vec<Event> {
        let mut events: Vec<Event> = self
            .lock()
            .events
            .iter()
            .filter(|event| event.date == date)
            .cloned()
            .collect();
        events.sort_by(|a, b| a.time.cmp(&b.time));
        events
    }

    /// Contacts whose name or number contains `query`, ignoring case.
    #[must_use]
    pub fn search_contacts(&self, query: &str, limit: usize) -> Vec<Contact> {
        let query = query.to_lowercase();
        self.lock()
            .contacts
            .iter()
            .filter(|contact| {
                contact.name.to_lowercase().contains(&query) || contact.phone.contains(&query)
            })
            .take(limit)
            .cloned()
            .collect()
    }

    /// The contact with this id.
    #[must_use]
    pub fn contact(&self, id: u32) -> Option<Contact> {
        self.lock()
            .contacts
            .iter()
            .find(|contact| contact.id == id)
            .cloned()
    }

    /// Messages, newest first, optionally with one contact or unread only.
    #[must_use]
    pub fn messages(&self, contact_id: Option<u32>, unread_only: bool) -> Vec<Message> {
        self.lock()
            .messages
            .iter()
            .rev()
            .filter(|message| contact_id.is_none_or(|id| message.contact_id == id))
            .filter(|message| !unread_only || !message.read)
            .cloned()
            .collect()
    }

    /// Sends a message to a contact.
    #[must_use]
    pub fn send(&self, contact_id: u32, text: String) -> Message {
        let mut data = self.lock();
        let message = Message {
            id: next_id(data.messages.last().map(|message| message.id)),
            contact_id,
            outgoing: true,
            read: true,
            text,
        };
        data.messages.push(message.clone());
        message
    }

    /// The speaker volume, from 0 to 100.
    #[must_use]
    pub fn volume(&self) -> u8 {
        self.lock().volume
    }

    /// Sets the speaker volume.
    pub fn set_volume(&self, level: u8) {
        self.lock().volume = level;
    }

    /// Switches a room's lights, and says what they are now.
    #[must_use]
    pub fn set_lights(&self, room: Room, on: bool, brightness: Option<u8>) -> String {
        let name = match room {
            Room::LivingRoom => "living room",
            Room::Kitchen => "kitchen",
            Room::Bedroom => "bedroom",
        };
        let mut data = self.lock();
        let state = data.lights.entry(name).or_insert((false, 100));
        state.0 = on;
        if let Some(brightness) = brightness {
            state.1 = brightness;
        }
        if on {
            format!("{name} lights on at {}%", state.1)
        } else {
            format!("{name} lights off")
        }
    }
}

fn next_id(last: Option<u32>) -> u32 {
    last.map_or(1, |id| id + 1)
}

//! The assistant's tools. Each one is the whole spec: its name, description and
//! input come from the function, its group, channels (`tags`) and feature flag
//! (`gate`) from the attribute. Adding a tool is adding a function here.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{State, ToolError, tool};

use crate::home::{Contact, Event, Home, Message, Reminder, Timer};

/// A temperature unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// The weather in one city.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Weather {
    /// The city, as the caller named it.
    pub city: String,
    /// The temperature now, in `unit`.
    pub temperature: i32,
    /// The unit of `temperature`.
    pub unit: Unit,
    /// Sky and precipitation, in a few words.
    pub conditions: String,
}

/// Get the current weather in a city.
#[tool(scope = shared, tier = auto, always, group = "weather",
       tags = ["text", "telegram", "phone", "voice"])]
pub fn get_weather(
    #[ctx] home: State<Home>,
    /// The city, like "Lisbon".
    city: String,
    /// The unit to report the temperature in.
    #[tool(default = Unit::Celsius)]
    unit: Unit,
) -> Result<Weather, ToolError> {
    let (celsius, conditions) = home
        .weather(&city)
        .ok_or_else(|| ToolError::failed(format!("no weather known for `{city}`")))?;
    let temperature = match unit {
        Unit::Celsius => celsius,
        Unit::Fahrenheit => celsius * 9 / 5 + 32,
    };
    Ok(Weather {
        city,
        temperature,
        unit,
        conditions: conditions.to_owned(),
    })
}

/// Set a countdown timer that rings on the device the user is talking to.
#[tool(scope = shared, tier = auto, always, group = "timers",
       tags = ["telegram", "phone", "voice"])]
pub fn set_timer(
    #[ctx] home: State<Home>,
    /// How long the timer runs, in seconds (at most one day).
    #[schemars(range(min = 1, max = 86_400))]
    seconds: u32,
    /// A name to announce when it rings, like "pasta".
    label: Option<String>,
) -> Result<Timer, ToolError> {
    if !(1..=86_400).contains(&seconds) {
        return Err(ToolError::failed(
            "a timer runs between 1 second and 86400 seconds (one day)",
        ));
    }
    Ok(home.add_timer(seconds, label))
}

/// A reminder to create.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewReminder {
    /// What to remind the user of.
    pub text: String,
    /// When, as a local date and time like `2025-06-01T09:00`.
    pub at: String,
}

/// Create reminders; the user is notified on their preferred channel at each time.
#[tool(scope = shared, tier = auto, always, group = "reminders",
       tags = ["text", "telegram", "voice"])]
pub fn create_reminders(
    #[ctx] home: State<Home>,
    /// The reminders to create, one or many.
    reminders: Vec<NewReminder>,
) -> Vec<Reminder> {
    reminders
        .into_iter()
        .map(|reminder| home.add_reminder(reminder.text, reminder.at))
        .collect()
}

/// Get the user's upcoming reminders, soonest first.
#[tool(scope = shared, tier = auto, always, group = "reminders",
       tags = ["text", "telegram", "voice"])]
pub fn get_reminders(
    #[ctx] home: State<Home>,
    /// At most this many reminders.
    #[tool(default = 10)]
    limit: u32,
) -> Vec<Reminder> {
    home.reminders(limit as usize)
}

/// Get the events in the user's calendar on one day.
#[tool(scope = shared, tier = auto, always, group = "calendar",
       tags = ["text", "telegram", "phone", "voice"])]
pub fn get_calendar(
    #[ctx] home: State<Home>,
    /// The day, like `2025-06-01`.
    date: String,
) -> Vec<Event> {
    home.events_on(&date)
}

/// Search the user's contacts by name, nickname or phone number.
#[tool(scope = shared, tier = auto, always, group = "contacts",
       tags = ["text", "telegram", "phone", "voice"])]
pub fn search_contacts(
    #[ctx] home: State<Home>,
    /// Part of a name, nickname or number.
    query: String,
    /// At most this many contacts.
    #[tool(default = 5)]
    limit: u32,
) -> Vec<Contact> {
    home.search_contacts(&query, limit as usize)
}

/// Call a contact by phone, on the user's behalf; the user hears the call.
#[tool(scope = shared, tier = confirm, group = "calls", gate = "outbound_calls",
       tags = ["phone", "voice"])]
pub fn create_calls(
    #[ctx] home: State<Home>,
    /// The contact to call, from `search_contacts`.
    contact_id: u32,
) -> Result<String, ToolError> {
    let contact = home
        .contact(contact_id)
        .ok_or_else(|| ToolError::failed(format!("no contact with id {contact_id}")))?;
    Ok(format!("calling {} at {}", contact.name, contact.phone))
}

/// Get the user's messages, newest first.
#[tool(scope = shared, tier = auto, always, group = "messages",
       tags = ["text", "telegram"])]
pub fn get_messages(
    #[ctx] home: State<Home>,
    /// Only messages from or to this contact.
    contact_id: Option<u32>,
    /// Only messages the user has not read yet.
    #[tool(default = false)]
    unread_only: bool,
) -> Vec<Message> {
    home.messages(contact_id, unread_only)
}

/// A text message to send.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMessage {
    /// The recipient, from `search_contacts`.
    pub contact_id: u32,
    /// The message, as the user dictated it.
    pub text: String,
}

/// Send text messages to contacts, as the user.
#[tool(scope = shared, tier = confirm, always, group = "messages",
       tags = ["text", "telegram", "voice"])]
pub fn create_messages(
    #[ctx] home: State<Home>,
    /// The messages to send, one or many.
    messages: Vec<NewMessage>,
) -> Result<Vec<Message>, ToolError> {
    if let Some(unknown) = messages
        .iter()
        .find(|message| home.contact(message.contact_id).is_none())
    {
        return Err(ToolError::failed(format!(
            "no contact with id {}; nothing was sent",
            unknown.contact_id
        )));
    }
    Ok(messages
        .into_iter()
        .map(|message| home.send(message.contact_id, message.text))
        .collect())
}

/// Set the speaker volume of the device the user is talking to.
#[tool(scope = shared, tier = auto, always, group = "media", tags = ["voice"])]
pub fn set_volume(
    #[ctx] home: State<Home>,
    /// The volume, from 0 (muted) to 100 (loudest).
    #[schemars(range(max = 100))]
    level: u8,
) -> Result<u8, ToolError> {
    if level > 100 {
        return Err(ToolError::failed("the volume goes from 0 to 100"));
    }
    home.set_volume(level);
    Ok(level)
}

/// A kind of entry in the music catalog.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MusicKind {
    /// One track.
    Song,
    /// A whole album.
    Album,
    /// Everything by one artist.
    Artist,
    /// A curated playlist.
    Playlist,
}

/// One search hit in the music catalog.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Track {
    /// What kind of hit this is.
    pub kind: MusicKind,
    /// The title.
    pub title: String,
    /// Who made it.
    pub artist: String,
}

/// Search the music catalog to play something.
#[tool(scope = shared, tier = auto, group = "media", gate = "music",
       tags = ["telegram", "voice"])]
pub fn search_music(
    /// Words from a title or an artist's name.
    query: String,
    /// What kind of music to look for.
    #[tool(default = MusicKind::Song)]
    kind: MusicKind,
) -> Vec<Track> {
    const CATALOG: [(MusicKind, &str, &str); 4] = [
        (MusicKind::Song, "So What", "Miles Davis"),
        (MusicKind::Album, "Kind of Blue", "Miles Davis"),
        (MusicKind::Song, "Blue in Green", "Miles Davis"),
        (MusicKind::Playlist, "Blue Mondays", "Various artists"),
    ];
    let query = query.to_lowercase();
    let matches = |text: &str| text.to_lowercase().contains(&query);
    CATALOG
        .iter()
        .filter(|&&(hit, title, artist)| match kind {
            // An artist search returns everything by the matching artists.
            MusicKind::Artist => matches(artist),
            _ => hit == kind && (matches(title) || matches(artist)),
        })
        .map(|&(kind, title, artist)| Track {
            kind,
            title: title.to_owned(),
            artist: artist.to_owned(),
        })
        .collect()
}

/// A room with smart lights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Room {
    /// The living room.
    LivingRoom,
    /// The kitchen.
    Kitchen,
    /// The bedroom.
    Bedroom,
}

/// Switch the lights of one room on or off, or dim them.
#[tool(scope = shared, tier = auto, group = "home", gate = "smart_home",
       tags = ["telegram", "voice"])]
pub fn set_lights(
    #[ctx] home: State<Home>,
    /// The room.
    room: Room,
    /// Whether the lights are on.
    on: bool,
    /// Brightness in percent when on; the room's last brightness when left out.
    #[schemars(range(min = 1, max = 100))]
    brightness: Option<u8>,
) -> Result<String, ToolError> {
    if brightness.is_some_and(|level| !(1..=100).contains(&level)) {
        return Err(ToolError::failed("brightness goes from 1 to 100"));
    }
    Ok(home.set_lights(room, on, brightness))
}

//! An agent's schedules: when they fire, and what a one-shot does after firing.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::context::ThreadId;
use crate::store::Wake;
use crate::time::{TimeOfDay, Timestamp, Weekday};

/// When a schedule wakes its agent. Times are UTC.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Recurrence {
    /// Once, at `at`; the schedule disables itself after it fired.
    Once {
        /// When, like `2026-11-24T09:30Z`.
        at: Timestamp,
    },
    /// Every hour, on the hour.
    // `{}` rather than a unit variant: serde ignores unknown fields next to the tag
    // of a unit variant, even with `deny_unknown_fields`.
    Hourly {},
    /// Every day at `time`.
    Daily {
        /// Time of day, `HH:MM`.
        time: TimeOfDay,
    },
    /// Monday to Friday at `time`.
    Weekdays {
        /// Time of day, `HH:MM`.
        time: TimeOfDay,
    },
    /// Every week on `day` at `time`.
    Weekly {
        /// The day of the week.
        day: Weekday,
        /// Time of day, `HH:MM`.
        time: TimeOfDay,
    },
}

impl Recurrence {
    /// The first run strictly after `now`; `None` when there is none (a one-shot
    /// in the past).
    #[must_use]
    pub fn next_after(&self, now: Timestamp) -> Option<Timestamp> {
        match self {
            Recurrence::Once { at } => (*at > now).then_some(*at),
            Recurrence::Hourly {} => Some(now.next_hour()),
            Recurrence::Daily { time } => now.next_at(*time, |_| true),
            Recurrence::Weekdays { time } => now.next_at(*time, Weekday::is_weekday),
            Recurrence::Weekly { day, time } => now.next_at(*time, |weekday| weekday == *day),
        }
    }
}

/// A schedule as its agent sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Schedule {
    /// The schedule's id.
    pub id: u32,
    /// What the agent will do when it wakes.
    pub prompt: String,
    /// When it wakes.
    pub recurrence: Recurrence,
    /// The contact the wake is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contact_id: Option<u32>,
    /// The next run; absent once a one-shot has fired.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_run: Option<Timestamp>,
    /// How many times it fired.
    pub fired: u32,
}

/// A stored schedule.
#[derive(Clone, Debug)]
pub(crate) struct ScheduleRecord {
    pub(crate) id: u32,
    pub(crate) thread: ThreadId,
    pub(crate) prompt: String,
    pub(crate) recurrence: Recurrence,
    pub(crate) contact_id: Option<u32>,
    /// `None`: disabled (a one-shot that fired).
    pub(crate) next_run: Option<Timestamp>,
    pub(crate) fired: u32,
    pub(crate) deleted: bool,
}

impl ScheduleRecord {
    pub(crate) fn view(&self) -> Schedule {
        Schedule {
            id: self.id,
            prompt: self.prompt.clone(),
            recurrence: self.recurrence.clone(),
            contact_id: self.contact_id,
            next_run: self.next_run,
            fired: self.fired,
        }
    }

    /// Whether it still has a run ahead: counts against the agent's cap.
    pub(crate) fn is_pending(&self) -> bool {
        !self.deleted && self.next_run.is_some()
    }

    /// Fires the schedule if it is due at `now`, and moves it on.
    pub(crate) fn fire_if_due(&mut self, now: Timestamp) -> Option<Wake> {
        let due = self.next_run.filter(|&due| !self.deleted && due <= now)?;
        self.fired += 1;
        // A one-shot's next run after `now` is `None`: it is disabled for good.
        self.next_run = self.recurrence.next_after(now);
        Some(Wake {
            thread: self.thread,
            schedule_id: self.id,
            due,
            prompt: self.prompt.clone(),
            contact_id: self.contact_id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    fn time(text: &str) -> TimeOfDay {
        text.parse().unwrap()
    }

    #[test]
    fn each_recurrence_finds_its_next_run() {
        // A Friday, after nine.
        let now = at("2026-11-27T09:30Z");
        let next = |recurrence: Recurrence| recurrence.next_after(now).map(|t| t.to_string());
        assert_eq!(
            next(Recurrence::Hourly {}).as_deref(),
            Some("2026-11-27T10:00Z")
        );
        assert_eq!(
            next(Recurrence::Daily {
                time: time("09:00")
            })
            .as_deref(),
            Some("2026-11-28T09:00Z")
        );
        assert_eq!(
            next(Recurrence::Weekdays {
                time: time("09:00")
            })
            .as_deref(),
            Some("2026-11-30T09:00Z")
        );
        assert_eq!(
            next(Recurrence::Weekdays {
                time: time("17:00")
            })
            .as_deref(),
            Some("2026-11-27T17:00Z")
        );
        assert_eq!(
            next(Recurrence::Weekly {
                day: Weekday::Friday,
                time: time("09:00")
            })
            .as_deref(),
            Some("2026-12-04T09:00Z")
        );
        assert_eq!(
            next(Recurrence::Once {
                at: at("2026-11-27T12:00Z")
            })
            .as_deref(),
            Some("2026-11-27T12:00Z")
        );
        assert_eq!(next(Recurrence::Once { at: now }), None);
    }
}

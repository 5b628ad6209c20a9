//! Schedules: prompts the assistant runs by itself, unattended, on a recurrence.
//!
//! Tiers: reads are `auto`; creating is `confirm`, because a schedule makes the
//! assistant act again and again with nobody watching; deleting is `confirm`
//! (the model cannot undo it, and the user may rely on the run).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{State, ToolError, tool};

use super::{Deleted, empty_list, not_found, require_text, take};
use crate::AssistantState;

/// A day of the week.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)] // The day names say it all.
pub enum Weekday {
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
    Sunday,
}

/// When a schedule runs. Times are `HH:MM` (24-hour) in the user's time zone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Recurrence {
    /// Once, at one date-time; the schedule is done afterwards.
    Once {
        /// When: ISO 8601 date-time with offset.
        at: String,
    },
    /// Every hour, on the hour.
    // `{}` rather than a unit variant: serde ignores unknown fields next to the tag
    // of a unit variant, even with `deny_unknown_fields`.
    Hourly {},
    /// Every day at `time`.
    Daily {
        /// Time of day, `HH:MM`.
        time: String,
    },
    /// Monday to Friday at `time`.
    Weekdays {
        /// Time of day, `HH:MM`.
        time: String,
    },
    /// Once a week, on `day` at `time`.
    Weekly {
        /// The day of the week.
        day: Weekday,
        /// Time of day, `HH:MM`.
        time: String,
    },
}

impl Recurrence {
    /// The `HH:MM` time this recurrence names, if any.
    fn time(&self) -> Option<&str> {
        match self {
            Recurrence::Daily { time }
            | Recurrence::Weekdays { time }
            | Recurrence::Weekly { time, .. } => Some(time),
            Recurrence::Once { .. } | Recurrence::Hourly {} => None,
        }
    }
}

/// Whether `text` is a 24-hour `HH:MM` time.
fn is_time_of_day(text: &str) -> bool {
    let Some((hours, minutes)) = text.split_once(':') else {
        return false;
    };
    let two_digits = |part: &str| part.len() == 2 && part.bytes().all(|b| b.is_ascii_digit());
    two_digits(hours)
        && two_digits(minutes)
        && hours.parse::<u8>().is_ok_and(|hours| hours < 24)
        && minutes.parse::<u8>().is_ok_and(|minutes| minutes < 60)
}

/// A schedule as the model sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Schedule {
    /// The schedule's id.
    pub id: u32,
    /// What the assistant does on each run.
    pub prompt: String,
    /// When it runs.
    pub recurrence: Recurrence,
}

/// A schedule to create.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSchedule {
    /// What the assistant should do on each run, as an instruction to itself.
    pub prompt: String,
    /// When it runs.
    pub recurrence: Recurrence,
}

/// A stored schedule.
#[derive(Clone, Debug)]
pub(crate) struct ScheduleRecord {
    prompt: String,
    recurrence: Recurrence,
}

impl ScheduleRecord {
    fn view(&self, id: u32) -> Schedule {
        Schedule {
            id,
            prompt: self.prompt.clone(),
            recurrence: self.recurrence.clone(),
        }
    }
}

/// Get schedules: one by `id`, or all of them, oldest first.
#[tool(scope = shared, tier = auto, group = "schedules", aliases = ["list_schedules"])]
pub fn get_schedules(
    #[ctx] state: State<AssistantState>,
    /// Return only this schedule.
    id: Option<u32>,
    /// At most this many schedules.
    #[tool(default = 20)]
    limit: u32,
) -> Result<Vec<Schedule>, ToolError> {
    let stores = state.lock();
    if let Some(id) = id {
        let schedule = stores
            .schedules
            .get(id)
            .ok_or_else(|| not_found("schedule", id))?;
        return Ok(vec![schedule.view(id)]);
    }
    Ok(stores
        .schedules
        .live()
        .take(take(limit))
        .map(|(id, schedule)| schedule.view(id))
        .collect())
}

/// Create schedules: prompts the assistant runs by itself at set times.
#[tool(scope = shared, tier = confirm, quota = "30/min", group = "schedules", aliases = ["create_schedule"],
       guidance = "Use a schedule for recurring work the assistant does itself; for a one-off nudge to the user, create a reminder.")]
pub fn create_schedules(
    #[ctx] state: State<AssistantState>,
    /// The schedules to create.
    schedules: Vec<NewSchedule>,
) -> Result<Vec<Schedule>, ToolError> {
    if schedules.is_empty() {
        return Err(empty_list("schedules"));
    }
    for (index, schedule) in schedules.iter().enumerate() {
        require_text(&schedule.prompt, &format!("schedules[{index}].prompt"))?;
        if let Some(time) = schedule.recurrence.time()
            && !is_time_of_day(time)
        {
            return Err(ToolError::failed(format!(
                "`schedules[{index}].recurrence.time`: `{time}` is not a time of day; use HH:MM, 24-hour"
            )));
        }
    }
    let mut stores = state.lock();
    Ok(schedules
        .into_iter()
        .map(|new| {
            let record = ScheduleRecord {
                prompt: new.prompt,
                recurrence: new.recurrence,
            };
            let view = record.view(stores.schedules.next_id());
            stores.schedules.insert(record);
            view
        })
        .collect())
}

/// Delete schedules by id; they stop running.
#[tool(scope = shared, tier = confirm, quota = "10/min", group = "schedules", aliases = ["delete_schedule"])]
pub fn delete_schedules(
    #[ctx] state: State<AssistantState>,
    /// The ids of the schedules to delete.
    ids: Vec<u32>,
) -> Result<Deleted, ToolError> {
    super::soft_delete(&mut state.lock(), &ids, "schedule", |stores| {
        &mut stores.schedules
    })
}

#[cfg(test)]
mod tests {
    use super::is_time_of_day;

    #[test]
    fn times_of_day_are_24_hour_hh_mm() {
        for good in ["00:00", "07:30", "23:59"] {
            assert!(is_time_of_day(good), "{good}");
        }
        for bad in ["24:00", "7:30", "07:60", "0730", "07:3a", "", ":"] {
            assert!(!is_time_of_day(bad), "{bad}");
        }
    }
}

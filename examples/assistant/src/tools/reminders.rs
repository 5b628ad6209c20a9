//! Reminders: a message for the user at a given time.
//!
//! Tiers: reads are `auto`; creating is `auto` (the user asked for it and sees
//! it arrive); deleting is `confirm`, because a reminder the model deletes by
//! mistake fails silently: the user simply never hears it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{State, ToolError, tool};

use super::tasks::TaskRecord;
use super::{Deleted, empty_list, not_found, require_text, take};
use crate::AssistantState;
use crate::state::Table;

/// A reminder as the model sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Reminder {
    /// The reminder's id.
    pub id: u32,
    /// What to tell the user.
    pub text: String,
    /// When, as an ISO 8601 date-time.
    pub at: String,
    /// The task it is about, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<u32>,
}

/// A reminder to create.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewReminder {
    /// What to tell the user, written to them.
    pub text: String,
    /// When: ISO 8601 date-time with offset, like `2025-01-06T17:30:00+01:00`.
    pub at: String,
    /// The task it is about.
    pub task_id: Option<u32>,
}

/// A stored reminder.
#[derive(Clone, Debug)]
pub(crate) struct ReminderRecord {
    text: String,
    at: String,
    task_id: Option<u32>,
}

impl ReminderRecord {
    /// The reminder as the model sees it. A reminder outlives its task (deleting
    /// a reminder is a `confirm` call of its own), but stops naming a task that
    /// was deleted: a deleted task is not visible through another tool.
    fn view(&self, id: u32, tasks: &Table<TaskRecord>) -> Reminder {
        Reminder {
            id,
            text: self.text.clone(),
            at: self.at.clone(),
            task_id: self.task_id.filter(|&task| tasks.contains(task)),
        }
    }
}

/// Get reminders: one by `id`, or the upcoming ones, soonest first.
#[tool(scope = shared, tier = auto, always, group = "reminders", aliases = ["list_reminders"])]
pub fn get_reminders(
    #[ctx] state: State<AssistantState>,
    /// Return only this reminder.
    id: Option<u32>,
    /// At most this many reminders.
    #[tool(default = 20)]
    limit: u32,
) -> Result<Vec<Reminder>, ToolError> {
    let stores = state.lock();
    if let Some(id) = id {
        let reminder = stores
            .reminders
            .get(id)
            .ok_or_else(|| not_found("reminder", id))?;
        return Ok(vec![reminder.view(id, &stores.tasks)]);
    }
    let mut reminders: Vec<Reminder> = stores
        .reminders
        .live()
        .map(|(id, reminder)| reminder.view(id, &stores.tasks))
        .collect();
    // ISO 8601 timestamps in one offset sort as text; ties keep creation order.
    reminders.sort_by(|a, b| a.at.cmp(&b.at));
    reminders.truncate(take(limit));
    Ok(reminders)
}

/// Create reminders; returns them with their new ids.
#[tool(scope = shared, tier = auto, quota = "30/min", always, group = "reminders", aliases = ["create_reminder"],
       guidance = "Give `at` as a full ISO 8601 date-time with the user's offset; get_context tells the current time.")]
pub fn create_reminders(
    #[ctx] state: State<AssistantState>,
    /// The reminders to create.
    reminders: Vec<NewReminder>,
) -> Result<Vec<Reminder>, ToolError> {
    if reminders.is_empty() {
        return Err(empty_list("reminders"));
    }
    let mut stores = state.lock();
    for (index, reminder) in reminders.iter().enumerate() {
        require_text(&reminder.text, &format!("reminders[{index}].text"))?;
        require_text(&reminder.at, &format!("reminders[{index}].at"))?;
        if let Some(task_id) = reminder.task_id
            && !stores.tasks.contains(task_id)
        {
            return Err(ToolError::failed(format!(
                "`reminders[{index}].task_id`: no task with id {task_id}; no reminder was created"
            )));
        }
    }
    Ok(reminders
        .into_iter()
        .map(|new| {
            let record = ReminderRecord {
                text: new.text,
                at: new.at,
                task_id: new.task_id,
            };
            let view = record.view(stores.reminders.next_id(), &stores.tasks);
            stores.reminders.insert(record);
            view
        })
        .collect())
}

/// Delete reminders by id.
#[tool(scope = shared, tier = confirm, quota = "10/min", group = "reminders")]
pub fn delete_reminders(
    #[ctx] state: State<AssistantState>,
    /// The ids of the reminders to delete.
    ids: Vec<u32>,
) -> Result<Deleted, ToolError> {
    super::soft_delete(&mut state.lock(), &ids, "reminder", |stores| {
        &mut stores.reminders
    })
}

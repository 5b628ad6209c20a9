//! Tasks: things the user wants to get done.
//!
//! Tiers: reads are `auto` (no side effects); creating and updating tasks is `auto`
//! too, since a task is cheap, visible to the user and changed back in one call;
//! deleting is `confirm`, because the model cannot undo a delete (it is soft, so an
//! operator can).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{State, ToolError, tool};

use super::{Deleted, empty_list, not_found, nothing_changed, require_text, take};
use crate::AssistantState;

/// How urgent a task is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Whenever there is time.
    Low,
    /// The usual.
    #[default]
    Normal,
    /// Before the normal ones.
    High,
    /// Today, ahead of everything else.
    Urgent,
}

/// A task as the model sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Task {
    /// The task's id.
    pub id: u32,
    /// What to do.
    pub title: String,
    /// Details, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// When it is due, as the user gave it (ISO 8601 date or date-time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub due: Option<String>,
    /// How urgent it is.
    pub priority: Priority,
    /// Whether it is done.
    pub done: bool,
}

/// A task to create.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTask {
    /// What to do, in a few words.
    pub title: String,
    /// Details worth keeping.
    pub notes: Option<String>,
    /// When it is due: ISO 8601 date (`2025-01-31`) or date-time.
    pub due: Option<String>,
    /// How urgent it is.
    #[serde(default)]
    pub priority: Priority,
}

/// Changes to one task: only the fields given change.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskUpdate {
    /// The task to change.
    pub id: u32,
    /// A new title.
    pub title: Option<String>,
    /// New details (replaces the old ones).
    pub notes: Option<String>,
    /// A new due date: ISO 8601 date or date-time.
    pub due: Option<String>,
    /// A new priority.
    pub priority: Option<Priority>,
    /// Mark the task done (`true`) or open again (`false`).
    pub done: Option<bool>,
}

/// A stored task; its deletion flag is kept by the table, not here.
#[derive(Clone, Debug)]
pub(crate) struct TaskRecord {
    title: String,
    notes: Option<String>,
    due: Option<String>,
    priority: Priority,
    done: bool,
}

impl TaskRecord {
    fn view(&self, id: u32) -> Task {
        Task {
            id,
            title: self.title.clone(),
            notes: self.notes.clone(),
            due: self.due.clone(),
            priority: self.priority,
            done: self.done,
        }
    }

    pub(crate) fn is_open(&self) -> bool {
        !self.done
    }
}

/// Get tasks: one by `id`, or the open tasks, newest first.
#[tool(scope = shared, tier = auto, always, group = "tasks",
       aliases = ["get_task", "fetch_tasks"],
       guidance = "Filter by id when the user names one task; done tasks are hidden unless include_done is true.")]
pub fn get_tasks(
    #[ctx] state: State<AssistantState>,
    /// Return only this task (even if it is done).
    id: Option<u32>,
    /// Also list tasks that are done.
    #[tool(default = false)]
    include_done: bool,
    /// At most this many tasks.
    #[tool(default = 20)]
    limit: u32,
) -> Result<Vec<Task>, ToolError> {
    let stores = state.lock();
    if let Some(id) = id {
        let task = stores.tasks.get(id).ok_or_else(|| not_found("task", id))?;
        return Ok(vec![task.view(id)]);
    }
    Ok(stores
        .tasks
        .newest_first()
        .filter(|(_, task)| include_done || task.is_open())
        .take(take(limit))
        .map(|(id, task)| task.view(id))
        .collect())
}

/// Create tasks; returns them with their new ids.
#[tool(scope = shared, tier = auto, quota = "30/min", always, group = "tasks", aliases = ["create_task"])]
pub fn create_tasks(
    #[ctx] state: State<AssistantState>,
    /// The tasks to create.
    tasks: Vec<NewTask>,
) -> Result<Vec<Task>, ToolError> {
    if tasks.is_empty() {
        return Err(empty_list("tasks"));
    }
    for (index, task) in tasks.iter().enumerate() {
        require_text(&task.title, &format!("tasks[{index}].title"))?;
    }
    let mut stores = state.lock();
    Ok(tasks
        .into_iter()
        .map(|new| {
            let record = TaskRecord {
                title: new.title,
                notes: new.notes,
                due: new.due,
                priority: new.priority,
                done: false,
            };
            let view = record.view(stores.tasks.next_id());
            stores.tasks.insert(record);
            view
        })
        .collect())
}

/// Update tasks: only the fields given change. Returns the updated tasks.
#[tool(scope = shared, tier = auto, quota = "30/min", group = "tasks", aliases = ["update_task"],
       guidance = "To complete a task, update it with done: true; don't delete it.")]
pub fn update_tasks(
    #[ctx] state: State<AssistantState>,
    /// The changes, one entry per task.
    tasks: Vec<TaskUpdate>,
) -> Result<Vec<Task>, ToolError> {
    if tasks.is_empty() {
        return Err(empty_list("tasks"));
    }
    let mut stores = state.lock();
    for (index, update) in tasks.iter().enumerate() {
        if !stores.tasks.contains(update.id) {
            return Err(nothing_changed("task", update.id, "updated"));
        }
        if let Some(title) = &update.title {
            require_text(title, &format!("tasks[{index}].title"))?;
        }
    }
    let mut updated = Vec::with_capacity(tasks.len());
    for update in tasks {
        let Some(task) = stores.tasks.get_mut(update.id) else {
            return Err(not_found("task", update.id));
        };
        if let Some(title) = update.title {
            task.title = title;
        }
        if let Some(notes) = update.notes {
            task.notes = Some(notes);
        }
        if let Some(due) = update.due {
            task.due = Some(due);
        }
        if let Some(priority) = update.priority {
            task.priority = priority;
        }
        if let Some(done) = update.done {
            task.done = done;
        }
        updated.push(task.view(update.id));
    }
    Ok(updated)
}

/// Delete tasks by id.
#[tool(scope = shared, tier = confirm, quota = "10/min", group = "tasks", aliases = ["delete_task"],
       guidance = "Only when the user asks to remove a task; finished tasks are updated with done: true.")]
pub fn delete_tasks(
    #[ctx] state: State<AssistantState>,
    /// The ids of the tasks to delete.
    ids: Vec<u32>,
) -> Result<Deleted, ToolError> {
    super::soft_delete(&mut state.lock(), &ids, "task", |stores| &mut stores.tasks)
}

//! Tools written exactly as a downstream crate writes them; the integration tests
//! in `tests/` call them through the registry.

// The tools are `async` like real I/O-bound tools, though these in-memory ones never
// await.
#![allow(clippy::unused_async)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{State, ToolError, tool};

/// A task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Task {
    /// The task's id.
    pub id: u32,
    /// What to do.
    pub title: String,
    /// How urgent it is.
    pub priority: Priority,
}

/// How urgent a task is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Whenever there is time.
    Low,
    /// Today.
    High,
}

/// A new task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTask {
    /// What to do.
    pub title: String,
    /// How urgent it is; low when left out.
    pub priority: Option<Priority>,
}

/// An in-memory task store shared by the tools.
#[derive(Clone, Debug, Default)]
pub struct TaskStore {
    tasks: Arc<Mutex<BTreeMap<u32, Task>>>,
}

impl TaskStore {
    /// All tasks, by id.
    #[must_use]
    pub fn all(&self) -> Vec<Task> {
        self.lock().values().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u32, Task>> {
        self.tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Get tasks. Filter by `id` for one task;
/// otherwise the tasks in id order.
///
/// Returns at most `limit` tasks.
#[tool(scope = shared, tier = auto, always, group = "tasks", aliases = ["get_task", "fetch_tasks"],
       guidance = "Filter by id when the user names one task.")]
pub async fn get_tasks(
    #[ctx] store: State<TaskStore>,
    /// Return only this task.
    id: Option<u32>,
    /// At most this many tasks.
    #[tool(default = 20)]
    limit: u32,
) -> Result<Vec<Task>, ToolError> {
    let tasks = store.all();
    match id {
        Some(id) => match tasks.into_iter().find(|task| task.id == id) {
            Some(task) => Ok(vec![task]),
            None => Err(ToolError::failed(format!("no task with id {id}"))),
        },
        None => Ok(tasks.into_iter().take(limit as usize).collect()),
    }
}

/// Create tasks; returns them with their new ids.
#[tool(scope = shared, tier = auto, group = "tasks", aliases = ["create_task"], tags = ["web", "voice"])]
pub async fn create_tasks(
    #[ctx] store: State<TaskStore>,
    /// The tasks to create.
    tasks: Vec<NewTask>,
) -> Vec<Task> {
    let mut all = store.lock();
    let mut created = Vec::with_capacity(tasks.len());
    for new in tasks {
        let id = all.keys().next_back().map_or(1, |last| last + 1);
        let task = Task {
            id,
            title: new.title,
            priority: new.priority.unwrap_or(Priority::Low),
        };
        all.insert(id, task.clone());
        created.push(task);
    }
    created
}

/// Delete one task for good.
#[tool(scope = agent, tier = approve, name = "delete_tasks", title = "Delete tasks", gate = "deletes_enabled")]
pub fn remove_task(
    #[ctx] store: State<TaskStore>,
    /// The task to delete.
    id: u32,
) -> Result<bool, std::io::Error> {
    let removed = store.lock().remove(&id).is_some();
    if removed {
        Ok(true)
    } else {
        Err(std::io::Error::other(format!("no task with id {id}")))
    }
}

/// Set the assistant's mood. Panics on "angry", to prove panics are caught.
#[tool(scope = assistant, tier = auto)]
pub async fn set_mood(
    /// The new mood.
    mood: String,
) -> String {
    assert!(mood != "angry", "moods must stay calm");
    mood
}

/// Search nothing at all: a tool without parameters.
#[tool(scope = channel, tier = auto, description = "Search the void; always finds nothing.")]
pub async fn search_void() {}

/// A change to one task; fields left out stay as they are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskUpdate {
    /// The task to change.
    #[serde(rename = "taskId")]
    pub id: u32,
    /// The new title.
    pub title: Option<String>,
    /// The new priority.
    pub priority: Option<Priority>,
}

/// Update tasks. Every id is checked before anything is written, so a bad id
/// changes nothing.
#[tool(scope = shared, tier = auto, group = "tasks", aliases = ["update_task"])]
pub async fn update_tasks(
    #[ctx] store: State<TaskStore>,
    /// The changes, one per task.
    updates: Vec<TaskUpdate>,
) -> Result<Vec<Task>, ToolError> {
    let mut all = store.lock();
    if let Some(missing) = updates.iter().find(|update| !all.contains_key(&update.id)) {
        return Err(ToolError::failed(format!("no task with id {}", missing.id)));
    }
    let mut changed = Vec::with_capacity(updates.len());
    for update in updates {
        let task = all.entry(update.id).or_insert_with(|| Task {
            id: update.id,
            title: String::new(),
            priority: Priority::Low,
        });
        if let Some(title) = update.title {
            task.title = title;
        }
        if let Some(priority) = update.priority {
            task.priority = priority;
        }
        changed.push(task.clone());
    }
    Ok(changed)
}

/// Set one task's title.
///
/// Panics while holding the store's lock when the title is "boom", to prove that a
/// panic in the middle of a write neither wedges the store nor half-writes it.
#[tool(scope = shared, tier = auto, group = "tasks")]
pub fn set_title(
    #[ctx] store: State<TaskStore>,
    /// The task to rename.
    id: u32,
    /// Its new title.
    title: String,
) -> Result<Task, ToolError> {
    let mut all = store.lock();
    let Some(task) = all.get(&id) else {
        return Err(ToolError::failed(format!("no task with id {id}")));
    };
    let mut renamed = task.clone();
    renamed.title = title;
    assert!(renamed.title != "boom", "the title exploded");
    all.insert(id, renamed.clone());
    Ok(renamed)
}

/// When a reminder fires.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Recurrence {
    /// Once, then never again.
    Once {
        /// When, as an RFC 3339 date-time.
        at: String,
    },
    /// Every day.
    Daily {
        /// The hour of the day, 0 to 23.
        hour: u8,
    },
    /// Every weekday at nine.
    Weekdays,
}

/// How a reminder reaches the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// A push notification on the phone.
    Push,
    /// An email.
    Email,
}

/// A reminder as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reminder {
    /// What to remind the user of.
    pub text: String,
    /// When it fires.
    pub recurrence: Recurrence,
    /// How it is delivered.
    #[serde(rename = "type")]
    pub delivery: Delivery,
    /// Who else is told, with how many minutes of notice each.
    pub notify: BTreeMap<String, u32>,
}

/// Create a reminder.
#[tool(scope = agent, tier = auto, group = "reminders", tags = ["voice"])]
pub async fn create_reminders(
    /// What to remind the user of.
    text: String,
    /// When it fires.
    recurrence: Recurrence,
    /// How it is delivered.
    #[tool(default = Delivery::Push)]
    r#type: Delivery,
    /// Who else to tell, with how many minutes of notice each.
    #[tool(default = BTreeMap::new())]
    notify: BTreeMap<String, u32>,
) -> Reminder {
    Reminder {
        text,
        recurrence,
        delivery: r#type,
        notify,
    }
}

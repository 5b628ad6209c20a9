//! The org's to-do list. Shared.

use toolkit::{State, ToolError, tool};

use super::{empty_list, not_found, require_text};
use crate::store::{Org, Task};

/// Get the org's tasks: the open ones, or all with `include_done`.
#[tool(scope = shared, tier = auto, group = "tasks", aliases = ["get_task"])]
pub fn get_tasks(
    #[ctx] org: State<Org>,
    /// Also return tasks that are done.
    #[tool(default = false)]
    include_done: bool,
) -> Vec<Task> {
    org.lock()
        .tasks
        .iter()
        .filter(|task| include_done || !task.done)
        .cloned()
        .collect()
}

/// Create a task for the org.
#[tool(scope = shared, tier = auto, group = "tasks", aliases = ["create_task"])]
pub fn create_tasks(
    #[ctx] org: State<Org>,
    /// What to do.
    title: String,
    /// The contact it is about.
    contact_id: Option<u32>,
) -> Result<Task, ToolError> {
    require_text(&title, "title")?;
    let mut data = org.lock();
    if let Some(id) = contact_id
        && data.contact(id).is_none()
    {
        return Err(not_found("contact", id));
    }
    let task = Task {
        id: data.next_id(),
        title,
        done: false,
        contact_id,
    };
    data.tasks.push(task.clone());
    Ok(task)
}

/// Mark tasks done.
#[tool(scope = shared, tier = auto, group = "tasks")]
pub fn update_tasks(
    #[ctx] org: State<Org>,
    /// The tasks that are done.
    done: Vec<u32>,
) -> Result<Vec<Task>, ToolError> {
    if done.is_empty() {
        return Err(empty_list("done"));
    }
    let mut data = org.lock();
    if let Some(&missing) = done
        .iter()
        .find(|&&id| !data.tasks.iter().any(|task| task.id == id))
    {
        return Err(not_found("task", missing));
    }
    Ok(data
        .tasks
        .iter_mut()
        .filter(|task| done.contains(&task.id))
        .map(|task| {
            task.done = true;
            task.clone()
        })
        .collect())
}

/// Delete tasks for good.
#[tool(scope = shared, tier = confirm, group = "tasks")]
pub fn delete_tasks(
    #[ctx] org: State<Org>,
    /// The ids of the tasks to delete.
    ids: Vec<u32>,
) -> Result<Vec<u32>, ToolError> {
    if ids.is_empty() {
        return Err(empty_list("ids"));
    }
    let mut data = org.lock();
    if let Some(&missing) = ids
        .iter()
        .find(|&&id| !data.tasks.iter().any(|task| task.id == id))
    {
        return Err(not_found("task", missing));
    }
    data.tasks.retain(|task| !ids.contains(&task.id));
    Ok(ids)
}

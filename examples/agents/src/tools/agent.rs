//! The agent acting as itself over time: its memory, its escalations to the
//! owners, its schedules and plans. Every tool here takes the [`CallerThread`], so
//! none of them can be shared: without an agent's thread they mean nothing.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{State, ToolError, tool};

use super::{empty_list, not_found, require_text};
use crate::context::CallerThread;
use crate::schedule::{Recurrence, Schedule, ScheduleRecord};
use crate::store::{Escalation, MAX_OPEN_ESCALATIONS, MAX_PENDING_SCHEDULES, Memory, Org};

/// Remember things for later runs.
#[tool(scope = agent, tier = auto, group = "memory", aliases = ["remember"])]
pub fn create_memories(
    #[ctx] org: State<Org>,
    #[ctx] thread: CallerThread,
    /// One fact per item, written so a later run understands it.
    memories: Vec<String>,
) -> Result<Vec<Memory>, ToolError> {
    if memories.is_empty() {
        return Err(empty_list("memories"));
    }
    for (index, text) in memories.iter().enumerate() {
        require_text(text, &format!("memories[{index}]"))?;
    }
    let mut data = org.lock();
    let created: Vec<Memory> = memories
        .into_iter()
        .map(|text| Memory {
            id: data.next_id(),
            text,
        })
        .collect();
    data.memories
        .entry(thread.0)
        .or_default()
        .extend(created.iter().cloned());
    Ok(created)
}

/// Search what this agent remembers.
#[tool(scope = agent, tier = auto, group = "memory", aliases = ["recall"])]
pub fn search_memories(
    #[ctx] org: State<Org>,
    #[ctx] thread: CallerThread,
    /// Words to look for; every word must occur. Empty: everything.
    query: String,
) -> Vec<Memory> {
    let terms: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    org.lock()
        .memories
        .get(&thread.0)
        .into_iter()
        .flatten()
        .filter(|memory| {
            let text = memory.text.to_lowercase();
            terms.iter().all(|term| text.contains(term))
        })
        .cloned()
        .collect()
}

/// Hand a question to the org's owners when it needs a human. At most five may
/// be open at once.
#[tool(scope = agent, tier = auto, group = "escalations", aliases = ["escalate"],
       guidance = "Escalate only what you cannot answer from memory or the knowledge base; at most five may be open.")]
pub fn create_escalations(
    #[ctx] org: State<Org>,
    #[ctx] thread: CallerThread,
    /// What the owners should look at, in one or two sentences.
    reason: String,
    /// The contact it is about.
    contact_id: Option<u32>,
) -> Result<Escalation, ToolError> {
    require_text(&reason, "reason")?;
    let mut data = org.lock();
    if let Some(id) = contact_id
        && data.contact(id).is_none()
    {
        return Err(not_found("contact", id));
    }
    let open = data.escalations.get(&thread.0).map_or(0, |all| {
        all.iter().filter(|escalation| escalation.open).count()
    });
    if open >= MAX_OPEN_ESCALATIONS {
        return Err(ToolError::failed(format!(
            "{open} escalations are already open, the most an agent may have; wait until an owner resolves one"
        )));
    }
    let escalation = Escalation {
        id: data.next_id(),
        reason,
        contact_id,
        open: true,
    };
    data.escalations
        .entry(thread.0)
        .or_default()
        .push(escalation.clone());
    Ok(escalation)
}

/// A schedule to create.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSchedule {
    /// What to do when woken, as an instruction to yourself.
    pub prompt: String,
    /// When to wake.
    pub recurrence: Recurrence,
    /// The contact the wake is about; the run gets it.
    pub contact_id: Option<u32>,
}

/// Schedule wake-ups for yourself: a one-shot or a recurrence. At most three may
/// be pending at once. An owner approves each call.
///
/// Each agent may run it six times an hour (`quota`), counted when a call runs
/// (an approval that waits counts nothing) by the agent's view's quotas
/// ([`crate::consumers::quotas`]).
#[tool(scope = agent, tier = approve, group = "schedules", aliases = ["create_schedule"], quota = "6/h",
       guidance = "Schedule only work you were asked to do later; an owner approves each schedule.")]
pub fn create_schedules(
    #[ctx] org: State<Org>,
    #[ctx] thread: CallerThread,
    /// The schedules to create.
    schedules: Vec<NewSchedule>,
) -> Result<Vec<Schedule>, ToolError> {
    if schedules.is_empty() {
        return Err(empty_list("schedules"));
    }
    let mut data = org.lock();
    let now = data.now;
    let pending = data
        .schedules
        .iter()
        .filter(|schedule| schedule.thread == thread.0 && schedule.is_pending())
        .count();
    if pending + schedules.len() > MAX_PENDING_SCHEDULES {
        return Err(ToolError::failed(format!(
            "{pending} schedules are pending and {} more would pass the limit of {MAX_PENDING_SCHEDULES}; delete one first",
            schedules.len()
        )));
    }
    for (index, schedule) in schedules.iter().enumerate() {
        require_text(&schedule.prompt, &format!("schedules[{index}].prompt"))?;
        if let Some(id) = schedule.contact_id
            && data.contact(id).is_none()
        {
            return Err(not_found("contact", id));
        }
        if schedule.recurrence.next_after(now).is_none() {
            return Err(ToolError::failed(format!(
                "`schedules[{index}].recurrence.at` is not after now ({now})"
            )));
        }
    }
    Ok(schedules
        .into_iter()
        .map(|new| {
            let record = ScheduleRecord {
                id: data.next_id(),
                thread: thread.0,
                next_run: new.recurrence.next_after(now),
                prompt: new.prompt,
                recurrence: new.recurrence,
                contact_id: new.contact_id,
                fired: 0,
                deleted: false,
            };
            let view = record.view();
            data.schedules.push(record);
            view
        })
        .collect())
}

/// Get your schedules: one by `id`, or all, oldest first.
#[tool(scope = agent, tier = auto, group = "schedules", aliases = ["list_schedules"])]
pub fn get_schedules(
    #[ctx] org: State<Org>,
    #[ctx] thread: CallerThread,
    /// Return only this schedule.
    id: Option<u32>,
) -> Result<Vec<Schedule>, ToolError> {
    let data = org.lock();
    let own = data
        .schedules
        .iter()
        .filter(|schedule| schedule.thread == thread.0 && !schedule.deleted);
    match id {
        Some(id) => own
            .filter(|schedule| schedule.id == id)
            .map(ScheduleRecord::view)
            .next()
            .map(|schedule| vec![schedule])
            .ok_or_else(|| not_found("schedule", id)),
        None => Ok(own.map(ScheduleRecord::view).collect()),
    }
}

/// Cancel your schedules; they never fire again.
#[tool(scope = agent, tier = auto, group = "schedules", aliases = ["delete_schedule"])]
pub fn delete_schedules(
    #[ctx] org: State<Org>,
    #[ctx] thread: CallerThread,
    /// The ids of the schedules to cancel.
    ids: Vec<u32>,
) -> Result<Vec<u32>, ToolError> {
    if ids.is_empty() {
        return Err(empty_list("ids"));
    }
    let mut data = org.lock();
    // Another agent's schedule is reported exactly like one that doesn't exist.
    let own = |schedule: &ScheduleRecord| schedule.thread == thread.0 && !schedule.deleted;
    if let Some(&missing) = ids.iter().find(|&&id| {
        !data
            .schedules
            .iter()
            .any(|schedule| schedule.id == id && own(schedule))
    }) {
        return Err(not_found("schedule", missing));
    }
    for schedule in &mut data.schedules {
        if ids.contains(&schedule.id) {
            schedule.deleted = true;
        }
    }
    Ok(ids)
}

/// Write down a multi-step plan to work through on later runs.
#[tool(scope = agent, tier = auto, group = "plans", gate = "autonomous_plans_enabled")]
pub fn create_plans(
    #[ctx] org: State<Org>,
    #[ctx] thread: CallerThread,
    /// The steps, in order.
    steps: Vec<String>,
) -> Result<usize, ToolError> {
    if steps.is_empty() {
        return Err(empty_list("steps"));
    }
    let mut data = org.lock();
    let plan = data.plans.entry(thread.0).or_default();
    plan.extend(steps);
    Ok(plan.len())
}

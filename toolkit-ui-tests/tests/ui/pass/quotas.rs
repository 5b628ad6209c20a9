//! Every unit spelling of `quota` compiles, and the tool carries what was written.

use std::time::Duration;

use toolkit::quota::{Period, Quota};
use toolkit::tool;

/// Get the tasks.
#[tool(scope = shared, tier = auto, quota = "30/min")]
fn get_tasks() {}

/// Get the notes.
#[tool(scope = agent, tier = approve, quota = "1/day")]
fn get_notes() {}

/// Get the memories.
#[tool(scope = channel, tier = confirm, quota = "4294967295/s")]
fn get_memories() {}

/// Get the reminders.
#[tool(scope = shared, tier = auto)]
fn get_reminders() {}

fn main() {
    assert_eq!(get_tasks::definition().quota, Quota::new(30, Period::Minute).ok());
    assert_eq!(get_tasks::definition().quota.map(Quota::per), Some(Duration::from_secs(60)));
    assert_eq!(get_notes::definition().quota.map(|q| q.to_string()).as_deref(), Some("1/d"));
    assert_eq!(get_memories::definition().quota.map(Quota::count), Some(u32::MAX));
    assert_eq!(get_reminders::definition().quota, None);
}

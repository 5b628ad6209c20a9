//! `quota = "<count>/<unit>"`: a whole number of calls from 1 to 4294967295, `/`,
//! and one of the units s, sec, second, min, minute, h, hour, d, day.

use toolkit::tool;

/// A unit that is not one.
#[tool(scope = shared, tier = auto, quota = "30/mins")]
fn get_tasks() {}

/// A count of zero.
#[tool(scope = shared, tier = auto, quota = "0/min")]
fn get_notes() {}

/// A count past u32.
#[tool(scope = shared, tier = auto, quota = "4294967296/day")]
fn get_memories() {}

/// Words, not the grammar.
#[tool(scope = shared, tier = auto, quota = "30 per minute")]
fn get_reminders() {}

/// No count.
#[tool(scope = shared, tier = auto, quota = "/min")]
fn get_schedules() {}

/// A number, not a string.
#[tool(scope = shared, tier = auto, quota = 30)]
fn get_entities() {}

/// A unit no spelling is close to.
#[tool(scope = shared, tier = auto, quota = "5/fortnight")]
fn get_contacts() {}

fn main() {}

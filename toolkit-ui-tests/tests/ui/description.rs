//! Every tool needs a description for the model: a doc comment or `description`,
//! not empty and at most 1024 characters.

use toolkit::tool;

#[tool(scope = shared, tier = auto)]
fn get_tasks() {}

/// The doc comment is overridden by an empty description.
#[tool(scope = shared, tier = auto, description = "")]
fn get_notes() {}

#[tool(scope = shared, tier = auto, description = "   ")]
fn get_memories() {}

/// Get tasks. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept.
#[tool(scope = shared, tier = auto)]
fn get_reminders() {}

#[tool(scope = shared, tier = auto, description = "Get tasks. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. This sentence pads the description far past what providers accept. ")]
fn get_schedules() {}

/// A doc attribute the macro cannot read.
#[doc = concat!("Get ", "entries.")]
#[tool(scope = shared, tier = auto)]
fn get_entries() {}

///
#[tool(scope = shared, tier = auto)]
fn get_lists() {}

/// Accepted: `description` replaces docs the macro cannot read.
#[doc = concat!("Get ", "pages.")]
#[tool(scope = shared, tier = auto, description = "Get pages.")]
fn get_pages() {}

fn main() {}

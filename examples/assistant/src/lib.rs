//! USE-CASES A, rebuilt on toolkit: a personal assistant with 23 tools named by a
//! strict verb vocabulary (`get`, `create`, `update`, `delete`, `search`, `set`,
//! `link`), in-memory stores and a templated system prompt.
//!
//! - [`tools`]: the tools, one module per group; retired names are `aliases`.
//! - [`AssistantState`]: the stores every tool takes from the context. Deletes
//!   are soft: the flag stays inside the store, never in what the model sees,
//!   and a deleted record never shows through another tool (a reminder stops
//!   naming its deleted task; a deleted memory's links and the entities only it
//!   mentioned disappear; `tests/cascades.rs` says what each delete reaches).
//!   A tool that panics can't leave the stores half-written, so later calls
//!   keep working (guide, `examples`, "Shared state in tools").
//! - [`prompt`]: the system prompt template, with per-tool guidance from the
//!   registry and sections only interactive channels get.
//!
//! ```
//! use example_assistant::AssistantState;
//! use serde_json::json;
//! use toolkit::Context;
//!
//! let ctx = Context::new().with(AssistantState::new());
//! let registry = toolkit::registry();
//! # futures_executor::block_on(async {
//! registry.call("create_tasks", r#"{"tasks": [{"title": "Water the plants"}]}"#, &ctx).await;
//! let response = registry.call("get_task", r#"{"id": 1}"#, &ctx).await;
//! assert_eq!(
//!     response.to_json(),
//!     json!({"result": [{"id": 1, "title": "Water the plants", "priority": "normal", "done": false}]})
//! );
//! # });
//! ```

pub mod prompt;
mod state;
pub mod tools;

pub use state::{AssistantState, DEMO_NOW};

//! Turn plain async Rust functions into registered, checked LLM tools.
//!
//! One annotated function is the single source of truth for a tool: its doc comment
//! is the description, its parameters are the JSON schema, and its attribute
//! declares who may use it (`scope`), whether a human must approve it (`tier`), and
//! whether it is always sent to the model or routed.
//!
//! ```
//! use toolkit::{Context, State, tool};
//!
//! #[derive(Clone)]
//! struct Greeting(&'static str);
//!
//! /// Get a greeting for one person.
//! #[tool(scope = shared, tier = auto, always)]
//! async fn get_greeting(
//!     #[ctx] greeting: State<Greeting>,
//!     /// Who to greet.
//!     name: String,
//!     /// How many exclamation marks.
//!     #[tool(default = 1)]
//!     excitement: u8,
//! ) -> String {
//!     format!("{}, {name}{}", greeting.0.0, "!".repeat(excitement.into()))
//! }
//!
//! # futures_executor::block_on(async {
//! let ctx = Context::new().with(Greeting("Hello"));
//! let response = toolkit::registry()
//!     .call("get_greeting", r#"{"name": "Ada"}"#, &ctx)
//!     .await;
//! assert_eq!(response.result(), Some(&serde_json::json!("Hello, Ada!")));
//! # });
//! ```
//!
//! See the README for the attribute reference, the compile-time checks, and how
//! tools from several crates end up in one registry.

#![forbid(unsafe_code)]

pub mod approval;
// PLACEHOLDER (branch `views`): the `macros` branch owns `binding`; keep theirs at merge.
pub mod binding;
mod context;
mod error;
#[cfg(feature = "mcp")]
pub mod mcp;
mod registry;
mod render;
#[cfg(feature = "rig")]
pub mod rig;
pub mod schema;
mod suggest;
pub mod testing;
mod tool;
mod view;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use approval::CallId;
pub use binding::Binding;
pub use context::{Context, FromContext, State};
pub use error::{NameKind, RegistryError, Response, ToolError};
pub use registry::{RegisteredTool, Registry, registry, try_registry};
pub use render::{Dialect, RenderError, render, render_tool};
pub use tool::{CallFuture, Location, Param, Scope, Tier, Tool, ToolHandle};
pub use toolkit_macros::tool;
pub use view::{
    EntryProblem, GROUP_PREFIX, PRESET_PREFIX, Preset, UnknownEntry, View, ViewBuilder, ViewError,
    ViewIter, ViewProblem,
};

/// Keeps the tools of crates this binary depends on but never otherwise names.
///
/// The linker drops a dependency's `#[tool]`s when nothing in the final binary
/// refers to that crate, so they would silently be missing from
/// [`registry()`]. Name such crates once, anywhere in the binary:
///
/// ```ignore
/// toolkit::link_tools!(billing_tools, calendar_tools);
/// ```
///
/// This expands to `extern crate billing_tools as _;` per crate, which makes rustc
/// link the crate and keep its registry entries.
#[macro_export]
macro_rules! link_tools {
    ($($krate:ident),+ $(,)?) => {
        $( extern crate $krate as _; )+
    };
}

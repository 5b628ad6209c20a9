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
//! Per request, narrow the registry to what one consumer may use with
//! [`Registry::view`]: a [`View`] is the security boundary for listing, rendering
//! and calling, and applies each tool's tier (`approve` calls wait for a signed
//! human decision: see [`approval`]).
//!
//! See [`macro@tool`] for the attribute reference, scopes and bindings, the
//! `confirm` tier and the compile-time checks, and the README for how tools from
//! several crates end up in one registry.

#![forbid(unsafe_code)]

pub mod approval;
pub mod binding;
pub mod catalog;
mod context;
pub mod diagnostics;
mod dispatch;
mod error;
#[cfg(feature = "inbox")]
pub mod inbox;
#[cfg(feature = "mcp")]
pub mod mcp;
mod observe;
mod preview;
pub mod prompt;
mod registry;
mod render;
#[cfg(feature = "rig")]
pub mod rig;
pub mod route;
pub mod runtime;
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
pub use dispatch::{Limits, PANIC_MESSAGE, PanicReport, expose_panic_messages, on_panic};
pub use error::{EMPTY_FAILURE, NameKind, Problem, RegistryError, Response, ToolError};
pub use preview::{IntoPreview, Preview};
pub use registry::{RegisteredTool, Registry, registry, try_registry};
pub use render::{Dialect, RenderError, Rendered, render, render_set, render_tool};
pub use tool::{CallFuture, Dispatch, Location, Param, Scope, Tier, Tool, ToolHandle};
#[doc(inline)]
#[doc = include_str!("tool_attribute.md")]
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

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
//! `confirm` tier and the compile-time checks, and the [`guide`] for the rest, one
//! chapter at a time: the registry and tools from several crates, schemas,
//! views, approvals, MCP, routing and testing.
//!
//! # The vocabulary
//!
//! The crate root holds the words every user writes; each module holds the rest
//! of its idea, one level down.
//!
//! - **Tool**: [`macro@tool`] defines one; [`Scope`] says who may use it, [`Tier`]
//!   whether a human confirms or approves it; `#[ctx]` parameters read the
//!   [`Context`] ([`State`], the rest in [`binding`]); a `confirm` tool shows a
//!   [`Preview`]. A [`Tool`] is the static definition `#[tool]` generates (its parts
//!   in [`definition`]).
//! - **Registry**: every tool of the program, [`registry()`] ([`Registry`]; the
//!   rest in [`mod@registry`]); [`runtime`] tools join it at run time.
//! - **View**: what one consumer may list and call, [`Registry::view`] ([`View`];
//!   the builder, presets and errors in [`view`]).
//! - **Call**: [`View::call`] answers a [`Response`]: a result, a [`ToolError`] the
//!   model can act on, a preview or a pending approval; bounds, call ids and
//!   progress are in [`call`], panic reports in [`panics`].
//! - **Render**: the tools in each provider's format, [`Dialect`] (sets, single
//!   tools and results in [`render`]); [`docs`], [`prompt`] and [`route`] choose and
//!   describe what the model sees.
//! - **Approval**: signed human decisions on `approve` tools, [`approval`].

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod approval;
pub mod binding;
mod confirm;
pub mod content;
mod context;
mod declaration;
pub mod diagnostics;
mod dispatch;
pub mod docs;
mod echo;
mod error;
// The guide's chapters: documentation and doctests only, never compiled in a build.
#[cfg(any(doc, doctest))]
pub mod guide;
#[cfg(feature = "inbox")]
pub mod inbox;
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod mcp;
mod observe;
#[cfg(feature = "otel")]
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
pub mod otel;
mod preview;
mod principal;
mod progress;
pub mod prompt;
pub mod quota;
pub mod registry;
pub mod render;
mod response;
#[cfg(feature = "rig")]
#[cfg_attr(docsrs, doc(cfg(feature = "rig")))]
pub mod rig;
pub mod route;
pub mod runtime;
pub mod schema;
#[cfg(any(feature = "mcp", feature = "inbox"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "mcp", feature = "inbox"))))]
pub mod serving;
mod suggest;
pub mod testing;
mod tool;
pub mod view;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

// The crate page is the user's vocabulary, one group per word of it; what only
// generated code, diagnostics or advanced uses name lives one module down.

// Tool: defining one.
pub use context::{Context, State};
pub use declaration::{Scope, TaskSupport, Tier};
pub use preview::Preview;
pub use tool::Tool;
#[doc(inline)]
#[doc = include_str!("tool_attribute.md")]
pub use toolkit_macros::tool;

// Registry: every tool of the program.
pub use registry::{Registry, registry};

// Who: one typed identity, from the token to every door.
pub use principal::{ClaimsMapping, DisplayName, Principal, PrincipalError, PrincipalPart};

// View: what one consumer may list and call.
pub use view::View;

// Call: what a call answers.
pub use error::ToolError;
pub use response::Response;

// Render: the tools in each provider's format.
pub use render::Dialect;

/// What `#[tool]` generates and names: a tool's static definition and its parts,
/// the traits behind `#[ctx]` parameters and previews. Applications rarely name
/// these; a crate that builds [`Tool`]s by hand, or a custom `#[ctx]` type, does.
pub mod definition {
    pub use crate::context::FromContext;
    pub use crate::declaration::{Location, Param};
    pub use crate::error::NameKind;
    pub use crate::preview::IntoPreview;
    pub use crate::tool::{CallFuture, Dispatch, ToolHandle};
}

/// A call's surroundings: the [`Limits`](call::Limits) that bound its work, the
/// [`Problem`](call::Problem)s of an invalid one, the [`CallId`](call::CallId) that
/// names it, and the [`Progress`](call::Progress) a long one reports.
pub mod call {
    pub use crate::context::CallId;
    pub use crate::dispatch::Limits;
    pub use crate::error::Problem;
    pub use crate::progress::{Progress, ProgressUpdate};
}

/// Panics inside tools: the application's full report, and what the model reads.
pub mod panics {
    pub use crate::dispatch::{PANIC_MESSAGE, PanicReport, expose_panic_messages, on_panic};
    pub use crate::error::EMPTY_FAILURE;
}

// Names that moved. Each old path still works, with a deprecation warning that
// names the new one: `#[deprecated]` on a `use` has no effect in rustc, so each is
// an item of its own (an alias, a forwarding function). A trait cannot be aliased,
// and a stand-in trait with a blanket impl adds its own line to every "cannot be
// taken from the tool context" error, so `FromContext` is re-exported, hidden and
// without a warning: the old path keeps working (rustc offers no path for
// `use toolkit::FromContext` otherwise).

/// Moved to [`toolkit::definition::FromContext`](definition::FromContext).
#[doc(hidden)]
pub use context::FromContext;

/// Moved to [`toolkit::call::Limits`](call::Limits).
#[doc(hidden)]
#[deprecated(note = "moved to `toolkit::call::Limits`")]
pub type Limits = call::Limits;

/// Moved to [`toolkit::registry::try_registry`](registry::try_registry).
#[doc(hidden)]
#[deprecated(note = "moved to `toolkit::registry::try_registry`")]
#[allow(clippy::result_large_err)] // as `registry::try_registry`
pub fn try_registry() -> Result<&'static Registry, &'static registry::RegistryError> {
    registry::try_registry()
}

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
    ($krate:ident $(,)?) => {
        extern crate $krate as _;
    };
    ($krate:ident, $($rest:tt)+) => {
        extern crate $krate as _;
        $crate::link_tools!($($rest)+);
    };
    // A package name with `-` (`billing-tools`): Rust names the crate with `_`.
    ($first:ident $(- $rest:ident)+ $(, $($after:tt)*)?) => {
        ::core::compile_error!(::core::concat!(
            "`link_tools!` takes crate names as Rust code writes them, with `_` for the `-` of a package's name: write `",
            ::core::stringify!($first), $("_", ::core::stringify!($rest)),+,
            "`"
        ));
    };
    ($($other:tt)*) => {
        ::core::compile_error!(
            "`link_tools!` takes the names of crates, separated by commas, like `toolkit::link_tools!(billing_tools, calendar_tools);`"
        );
    };
}

//! The `#[tool]` attribute. Use it through the `toolkit` crate, which re-exports it
//! and documents it.

use proc_macro::TokenStream;

mod ast;
mod attr;
mod config;
mod docs;
mod docs_section;
mod expand;
mod fallback;
mod valid;

/// Turns a function into a registered LLM tool.
///
/// Use it as `toolkit::tool`: the attribute reference, scopes and bindings, the
/// `confirm` tier and the list of compile-time checks are documented there, with
/// examples that compile against toolkit.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
}

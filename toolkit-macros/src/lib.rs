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

/// Turns a function into a registered LLM tool. See the `toolkit` crate.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
}

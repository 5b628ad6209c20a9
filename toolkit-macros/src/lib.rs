//! The `#[tool]` attribute. Use it through the `toolkit` crate, which re-exports it
//! and documents it.
//!
//! Parse (`ast`, `attr`), validate (`valid`, into a `ctxt::Ctxt`), then expand
//! (`expand`), or on any mistake emit the errors with a stub (`fallback`).

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use syn::ItemFn;

mod ast;
mod attr;
mod config;
mod ctxt;
mod docs;
mod docs_section;
mod expand;
mod fallback;
mod krate;
mod place;
mod suggest;
mod valid;

use crate::ast::{Place, ToolFn};
use crate::attr::ToolAttr;
use crate::config::Config;
use crate::ctxt::Ctxt;

/// Turns a function into a registered LLM tool.
///
/// Use it as `toolkit::tool`: the attribute reference, scopes and bindings, the
/// `confirm` tier and the list of compile-time checks are documented there, with
/// examples that compile against toolkit.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let file = proc_macro::Span::call_site().local_file();
    attr::set_source_file(file.clone());
    let place_of = |item: &ItemFn| {
        // A method is known to be one from its tokens.
        if item.sig.receiver().is_some() {
            Place::Free
        } else {
            place::of(file.as_deref(), &item.sig.ident.to_string())
        }
    };
    run(args.into(), input.into(), place_of).into()
}

/// Parse, check, expand (or fall back).
pub(crate) fn run(
    args: TokenStream2,
    input: TokenStream2,
    place_of: impl FnOnce(&ItemFn) -> Place,
) -> TokenStream2 {
    let item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => return fallback::not_a_function(input),
    };
    let place = place_of(&item);
    let mut errors = Ctxt::new();
    let attr = ToolAttr::parse(args, &mut errors);
    let func = ToolFn::parse(item, place, &mut errors);
    let config = match Config::load() {
        Ok(config) => Some(config),
        Err(message) => {
            errors.at(Span::call_site(), message);
            None
        }
    };
    let checked = valid::check(&attr, &func, config.as_ref(), &mut errors);
    match (errors.check(), checked) {
        (Ok(()), Some(checked)) => expand::expand(&checked),
        (result, _) => fallback::expand(&func, result.err()),
    }
}

//! What `#[tool]` emits when the input has mistakes: the errors, plus the user's
//! function and an empty handle, so callers, IDEs and other items keep compiling
//! and the only errors are the ones that matter.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::ToolFn;

pub(crate) fn expand(func: &ToolFn, error: Option<syn::Error>) -> TokenStream {
    let errors = error.map(|error| error.to_compile_error());
    let item = &func.item;
    let ident = &item.sig.ident;
    let vis = &item.vis;
    // A method sits in an `impl` or a `trait`, where a struct is itself an error.
    let handle = (!func.is_method).then(|| {
        quote! {
            #[allow(non_camel_case_types, dead_code)]
            #vis struct #ident {}
        }
    });
    quote! {
        #errors
        #item
        #handle
    }
}

//! What `#[tool]` emits when the input has mistakes: the errors, plus the user's
//! function and an empty handle, so callers, IDEs and other items keep compiling
//! and the only errors are the ones that matter.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::{Expr, ExprClosure, Item};

use crate::ast::ToolFn;

pub(crate) fn expand(func: &ToolFn, error: Option<syn::Error>) -> TokenStream {
    let errors = error.map(|error| error.to_compile_error());
    let item = &func.item;
    let ident = &item.sig.ident;
    let vis = &item.vis;
    // In an `impl` or a `trait`, a struct is itself an error.
    let handle = (!func.is_associated()).then(|| {
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

/// `#[tool]` on something other than a function: one error on the item's keyword
/// and name, and the item itself unchanged.
pub(crate) fn not_a_function(input: TokenStream) -> TokenStream {
    fn named(keyword: impl ToTokens, ident: &syn::Ident) -> TokenStream {
        quote!(#keyword #ident)
    }
    if let Ok(expr) = syn::parse2::<Expr>(input.clone())
        && syn::parse2::<Item>(input.clone()).is_err()
    {
        return not_an_item(&expr);
    }
    let (tokens, kind) = match syn::parse2::<Item>(input.clone()) {
        Ok(Item::Struct(item)) => (named(item.struct_token, &item.ident), "a struct"),
        Ok(Item::Enum(item)) => (named(item.enum_token, &item.ident), "an enum"),
        Ok(Item::Union(item)) => (named(item.union_token, &item.ident), "a union"),
        Ok(Item::Trait(item)) => (named(item.trait_token, &item.ident), "a trait"),
        Ok(Item::Impl(item)) => (item.impl_token.to_token_stream(), "an impl block"),
        Ok(Item::Mod(item)) => (named(item.mod_token, &item.ident), "a module"),
        Ok(Item::Const(item)) => (named(item.const_token, &item.ident), "a constant"),
        Ok(Item::Static(item)) => (named(item.static_token, &item.ident), "a static"),
        Ok(Item::Type(item)) => (named(item.type_token, &item.ident), "a type alias"),
        _ => (TokenStream::new(), "this item"),
    };
    let message = format!(
        "`#[tool]` applies to a function, not {kind}; write the tool as a free `fn`, like `async fn get_tasks(..)`"
    );
    let error = if tokens.is_empty() {
        syn::Error::new(Span::call_site(), message)
    } else {
        syn::Error::new_spanned(tokens, message)
    };
    let mut output = error.to_compile_error();
    output.extend(input);
    output
}

/// `#[tool]` on an expression, most likely a closure: one error on the closure's
/// head, and the expression itself unchanged (in a block, so the error and the
/// expression are one expression).
fn not_an_item(expr: &Expr) -> TokenStream {
    let error = if let Expr::Closure(closure) = expr {
        let ExprClosure {
            asyncness,
            or1_token,
            inputs,
            or2_token,
            ..
        } = closure;
        syn::Error::new_spanned(
            quote!(#asyncness #or1_token #inputs #or2_token),
            "`#[tool]` goes on an `async fn`, not on a closure; write the tool as a free function, like `async fn search_tasks(query: String) -> usize`",
        )
    } else {
        syn::Error::new_spanned(
            expr,
            "`#[tool]` goes on an `async fn`, not on an expression; write the tool as a free function, like `async fn get_tasks(..)`",
        )
    };
    let error = error.to_compile_error();
    quote!({ #error #expr })
}

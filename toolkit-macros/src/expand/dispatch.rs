//! The dispatcher: parse the arguments, take the `#[ctx]` values, show the
//! preview of a `confirm` tool, call the function and turn its result into the
//! response.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::{GenericArgument, PathArguments, Type};

use crate::ast::{CONFIRMED, Output, ParamKind};
use crate::expand::{respan, span_of};
use crate::valid::Checked;

/// The dispatcher and whether it is `Dispatch::Async` or `Dispatch::Sync`.
pub(super) struct Dispatcher {
    pub(super) kind: syn::Ident,
    pub(super) function: TokenStream,
}

pub(super) fn expand(
    checked: &Checked<'_>,
    private: &TokenStream,
    patterns: &[TokenStream],
) -> Dispatcher {
    let Checked {
        name, attr, func, ..
    } = checked;
    let fn_ident = &func.item.sig.ident;
    let is_confirm = checked.tier.word == "confirm";
    let context_params: Vec<_> = func
        .params
        .iter()
        .filter(|param| matches!(param.kind, ParamKind::Context { .. }))
        .collect();
    let extractions = context_params.iter().map(|param| {
        let ident = &param.ident;
        let span = span_of(&param.ty);
        // A trait call, not a generic helper: "not `FromContext`" then names the
        // user's type alone, with no note about a toolkit function.
        // Every mention of `T: FromContext` carries the same span, so a type that
        // is not one is reported once, not once per mention.
        let ty = respan(param.ty.to_token_stream(), span);
        let private = respan(private.clone(), span);
        let extract =
            quote_spanned!(span=> <#ty as #private::FromContext>::from_context(__toolkit_ctx));
        quote! {
            let #ident = match #extract {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(error) => return #private::Response::Error(error),
            };
        }
    });
    let all_idents: Vec<_> = func.params.iter().map(|param| &param.ident).collect();
    let preview_call = is_confirm.then(|| {
        let confirmed = format_ident!("{}", CONFIRMED);
        let preview = match &attr.preview {
            Some(path) => {
                let span = syn::spanned::Spanned::span(path);
                let private = respan(private.clone(), span);
                // The preview function is called through a trait that names the
                // tool's parameter types, so a preview that takes other ones is one
                // error on `preview = ..` listing what it must take, not rustc's
                // suggestions about a call the user never wrote. A wrong return
                // type is reported on `preview = ..` too: the attribute never sees
                // the preview's tokens, and rustc puts an unmet bound (E0271,
                // E0277) or a coercion (E0308) on the expression that needs it;
                // only an argument mismatch (E0593, E0631) also labels the
                // preview's own signature.
                let types = func
                    .params
                    .iter()
                    .map(|param| respan(param.ty.to_token_stream(), span));
                quote_spanned! {span=>
                    #[allow(unused_imports)]
                    use #private::{PreviewIsFuture as _, PreviewIsValue as _};
                    #[allow(unused_imports)]
                    use #private::diagnostics::{
                        ImplementDisplayOn as _, ReturnAPreviewNot as _, ViaNotAPreview as _,
                        ViaPreviewShape as _,
                    };
                    let __toolkit_preview = <_ as #private::diagnostics::TakeTheToolsParameters<(#(#types,)*)>>::call_preview(
                        #path,
                        (#(#all_idents,)*),
                    );
                    let __toolkit_preview =
                        (&__toolkit_preview).preview_kind().resolve(__toolkit_preview).await;
                    (&#private::diagnostics::probe_of(&__toolkit_preview))
                        .returned()
                        .into_preview(__toolkit_preview)
                }
            }
            None => quote! {
                ::core::result::Result::<_, #private::ToolError>::Ok(
                    #private::default_preview(#name, __toolkit_arguments)
                )
            },
        };
        quote! {
            if !#confirmed {
                return match { #preview } {
                    ::core::result::Result::Ok(preview) => #private::Response::Preview(preview),
                    ::core::result::Result::Err(error) => #private::Response::Error(error),
                };
            }
        }
    });
    let confirmed_pattern = is_confirm.then(|| {
        let confirmed = format_ident!("{}", CONFIRMED);
        quote!(#confirmed,)
    });
    let await_ = func.is_async.then(|| quote!(.await));
    let returned = output_type(&func.item.sig.output);
    let output = match func.output {
        Output::Result { value, error } => {
            // Two calls, each spanned on its own type argument, so "not
            // Serialize" points at `T` and "not Display" at `E`.
            let error_private = respan(private.clone(), error);
            let output_value = output_value(returned, value, private, &quote!(__toolkit_ok));
            let output_error = quote_spanned!(error=>
                #error_private::Response::Error(
                    <_ as #error_private::diagnostics::ImplementDisplay>::into_tool_error(__toolkit_error)
                )
            );
            quote! {
                match __toolkit_value {
                    ::core::result::Result::Ok(__toolkit_ok) => #output_value,
                    ::core::result::Result::Err(__toolkit_error) => #output_error,
                }
            }
        }
        Output::Value(span) => output_value(returned, span, private, &quote!(__toolkit_value)),
    };
    let body = quote! {
        let __toolkit_Arguments { #(#patterns,)* #confirmed_pattern } =
            match __toolkit_parse(__toolkit_arguments) {
                ::core::result::Result::Ok(arguments) => arguments,
                ::core::result::Result::Err(error) => return #private::Response::Error(error),
            };
        #(#extractions)*
        #preview_call
        let __toolkit_value = #fn_ident(#(#all_idents),*) #await_;
        #output
    };
    // A plain `fn` (and no preview to await) runs to completion in one call: no
    // future, no box (on every call's path).
    let suspends = func.is_async || (is_confirm && attr.preview.is_some());
    let (dispatch_kind, dispatch_fn) = if suspends {
        (
            format_ident!("Async"),
            quote! {
                fn __toolkit_dispatch<'a>(
                    __toolkit_arguments: &'a str,
                    __toolkit_ctx: &'a #private::Context,
                ) -> #private::CallFuture<'a> {
                    ::std::boxed::Box::pin(async move { #body })
                }
            },
        )
    } else {
        (
            format_ident!("Sync"),
            quote! {
                fn __toolkit_dispatch(
                    __toolkit_arguments: &str,
                    __toolkit_ctx: &#private::Context,
                ) -> #private::Response {
                    #body
                }
            },
        )
    };
    Dispatcher {
        kind: dispatch_kind,
        function: dispatch_fn,
    }
}

/// The code that turns the tool's value (`T`, or the `T` of `Result<T, E>`) into
/// the response, spanned on `T`. When `T` is written as standard containers
/// (`Vec<Thing>`, `Option<(Thing, u32)>`), each type inside them is checked on its
/// own token, so "not `Serialize`" names `Thing`, the type to derive it on, and the
/// whole type adds no error of its own (see `toolkit::diagnostics::Serialized`).
fn output_value(
    returned: Option<&Type>,
    span: Span,
    private: &TokenStream,
    value: &TokenStream,
) -> TokenStream {
    let private = respan(private.clone(), span);
    let parts = returned.and_then(|ty| {
        let mut leaves = Vec::new();
        let standard = standard_parts(ty, &mut leaves)?;
        Some((ty, standard, leaves))
    });
    let Some((ty, standard, leaves)) = parts else {
        return quote_spanned!(span=>
            <_ as #private::diagnostics::DeriveSerialize>::to_response(&#value)
        );
    };
    let mut seen: Vec<String> = Vec::new();
    let checks = leaves.into_iter().filter_map(|leaf| {
        let text = leaf.to_token_stream().to_string();
        if seen.contains(&text) {
            return None;
        }
        seen.push(text);
        let span = span_of(leaf);
        let leaf = respan(leaf.to_token_stream(), span);
        let private = respan(private.clone(), span);
        Some(quote_spanned!(span=>
            let _ = <#leaf as #private::diagnostics::DeriveSerialize>::to_response;
        ))
    });
    quote_spanned! {span=>
        {
            #[allow(unused_imports)]
            use #private::diagnostics::{
                ExplainedByItsParts as _, ViaItsParts as _, ViaSerializeOutput as _,
            };
            #(#checks)*
            (&#private::diagnostics::Probe::<#ty>::new())
                .output_kind()
                .to_response(&#value, ::core::marker::PhantomData::<#standard>)
        }
    }
}

/// `ty` with the standard containers it is written with spelled out in full, and
/// the types inside them in `leaves`; `None` when `ty` is not such a container.
/// Only containers whose `Serialize` impl needs exactly its items' are read, so
/// that the whole is `Serialize` exactly when every leaf is.
fn standard_parts<'a>(ty: &'a Type, leaves: &mut Vec<&'a Type>) -> Option<TokenStream> {
    match ty {
        Type::Paren(paren) => standard_parts(&paren.elem, leaves),
        Type::Group(group) => standard_parts(&group.elem, leaves),
        Type::Reference(reference) if reference.mutability.is_none() => {
            let lifetime = &reference.lifetime;
            let inner = part(&reference.elem, leaves);
            Some(quote!(& #lifetime #inner))
        }
        Type::Slice(slice) => {
            let inner = part(&slice.elem, leaves);
            Some(quote!([#inner]))
        }
        // serde implements tuples up to 16 elements.
        Type::Tuple(tuple) if !tuple.elems.is_empty() && tuple.elems.len() <= 16 => {
            let elems: Vec<TokenStream> =
                tuple.elems.iter().map(|elem| part(elem, leaves)).collect();
            Some(quote!((#(#elems,)*)))
        }
        Type::Path(path) if path.qself.is_none() => {
            let segments = &path.path.segments;
            let first = segments.first()?.ident.to_string();
            let last = segments.last()?;
            if segments.len() > 1 && !matches!(first.as_str(), "std" | "alloc" | "core") {
                return None;
            }
            // (full path, items serialized, other parameters allowed after them)
            let (full, items, extra): (TokenStream, usize, usize) =
                match last.ident.to_string().as_str() {
                    "Vec" => (quote!(::std::vec::Vec), 1, 0),
                    "VecDeque" => (quote!(::std::collections::VecDeque), 1, 0),
                    "Option" => (quote!(::core::option::Option), 1, 0),
                    "Box" => (quote!(::std::boxed::Box), 1, 0),
                    "BTreeSet" => (quote!(::std::collections::BTreeSet), 1, 0),
                    "HashSet" => (quote!(::std::collections::HashSet), 1, 1),
                    "BTreeMap" => (quote!(::std::collections::BTreeMap), 2, 0),
                    "HashMap" => (quote!(::std::collections::HashMap), 2, 1),
                    _ => return None,
                };
            let PathArguments::AngleBracketed(arguments) = &last.arguments else {
                return None;
            };
            let types: Vec<&Type> = arguments
                .args
                .iter()
                .filter_map(|argument| match argument {
                    GenericArgument::Type(ty) => Some(ty),
                    _ => None,
                })
                .collect();
            if types.len() != arguments.args.len()
                || types.len() < items
                || types.len() > items + extra
            {
                return None;
            }
            let inner: Vec<TokenStream> = types
                .iter()
                .enumerate()
                .map(|(index, ty)| {
                    if index < items {
                        part(ty, leaves)
                    } else {
                        ty.to_token_stream()
                    }
                })
                .collect();
            Some(quote!(#full<#(#inner),*>))
        }
        _ => None,
    }
}

/// A type inside a standard container: spelled out if it is one itself, else a leaf.
fn part<'a>(ty: &'a Type, leaves: &mut Vec<&'a Type>) -> TokenStream {
    standard_parts(ty, leaves).unwrap_or_else(|| {
        leaves.push(ty);
        ty.to_token_stream()
    })
}

/// The type whose schema is the tool's output: `T` in `Result<T, E>` or `-> T`.
pub(super) fn output_type(output: &syn::ReturnType) -> Option<&Type> {
    let syn::ReturnType::Type(_, ty) = output else {
        return None;
    };
    let Type::Path(path) = &**ty else {
        return Some(ty);
    };
    let last = path.path.segments.last()?;
    if last.ident != "Result" {
        return Some(ty);
    }
    match &last.arguments {
        PathArguments::AngleBracketed(arguments) => {
            arguments.args.iter().find_map(|argument| match argument {
                GenericArgument::Type(ty) => Some(ty),
                _ => None,
            })
        }
        _ => None,
    }
}

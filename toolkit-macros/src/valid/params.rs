//! The parameters: owned types, doc comments, the context, and one JSON name each.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{GenericArgument, PathArguments, Type};

use crate::ast::{ParamKind, ToolFn, unraw};
use crate::ctxt::Ctxt;

/// The rules on each parameter by itself, in the order they are written.
pub(crate) fn check_each(func: &ToolFn, errors: &mut Ctxt) {
    for param in &func.params {
        match &param.kind {
            ParamKind::Context { default } => {
                if is_context(&param.ty) {
                    errors.error(
                        &param.ty,
                        "a tool cannot take the `Context` itself; take what the caller put in it: `#[ctx] name: toolkit::State<T>` for a value added with `Context::with(value)`, or a type that implements `toolkit::definition::FromContext`",
                    );
                } else {
                    check_owned(&param.ty, errors);
                }
                if let Some(default) = default {
                    errors.error(default, "a `#[ctx]` parameter cannot have a default: it is filled from the tool context, not by the model");
                }
            }
            ParamKind::Model {
                description,
                doc_attrs,
                unreadable_doc,
                ..
            } => {
                check_owned(&param.ty, errors);
                let ident = &param.ident;
                if let Some(attr) = unreadable_doc {
                    errors.error(
                        attr,
                        "`#[tool]` reads parameter descriptions from doc comments written as literals; use `///` comments",
                    );
                } else if description.is_none()
                    && let Some(empty) = doc_attrs.first()
                {
                    errors.error(
                        empty,
                        format!(
                            "the doc comment of parameter `{ident}` is empty; say what the model should put here"
                        ),
                    );
                } else if description.is_none() {
                    errors.error(
                        ident,
                        format!(
                            "parameter `{ident}` has no doc comment; the model needs a description: add `/// ...` above it, or mark it `#[ctx]` if the caller provides it"
                        ),
                    );
                }
            }
        }
    }
}

/// `#[schemars(extend("x-currency" = ..))]` says a parameter is an amount in the
/// currency's minor unit (cents), which the inbox shows as `12.34 EUR`: a whole
/// number. On any other type every provider would be sent a schema that says one
/// thing and means another.
pub(crate) fn check_currency(func: &ToolFn, errors: &mut Ctxt) {
    for param in func.model_params() {
        let ParamKind::Model { field_attrs, .. } = &param.kind else {
            continue;
        };
        for attr in field_attrs
            .iter()
            .filter(|attr| attr.path().is_ident("schemars"))
        {
            let Some(keyword) = find_literal(attr.to_token_stream(), "\"x-currency\"") else {
                continue;
            };
            let inner = option_inner(&param.ty).unwrap_or_else(|| param.ty.clone());
            let integer = matches!(
                type_text(&inner).as_str(),
                "u8" | "u16"
                    | "u32"
                    | "u64"
                    | "u128"
                    | "usize"
                    | "i8"
                    | "i16"
                    | "i32"
                    | "i64"
                    | "i128"
                    | "isize"
            );
            if !integer {
                errors.error(
                    keyword,
                    format!(
                        "`x-currency` marks an amount in the currency's minor unit (cents, for EUR or USD), a whole number, and `{}` is `{}`; take the amount as an integer of minor units, like `{}: i64`",
                        unraw(&param.ident),
                        type_text(&param.ty),
                        unraw(&param.ident)
                    ),
                );
            }
        }
    }
}

/// The first literal spelled `text` in `tokens`, groups included.
fn find_literal(tokens: TokenStream, text: &str) -> Option<proc_macro2::Literal> {
    tokens.into_iter().find_map(|token| match token {
        proc_macro2::TokenTree::Literal(literal) if literal.to_string() == text => Some(literal),
        proc_macro2::TokenTree::Group(group) => find_literal(group.stream(), text),
        _ => None,
    })
}

/// Two parameters the model would fill under one JSON name could never both be
/// given: every call would fail.
pub(crate) fn check_json_names(func: &ToolFn, errors: &mut Ctxt) {
    let mut seen: Vec<(String, &syn::Ident)> = Vec::new();
    for param in func.model_params() {
        let name = param.model_name();
        if let Some((_, first)) = seen.iter().find(|(seen, _)| *seen == name) {
            errors.error(
                &param.ident,
                format!(
                    "parameters `{}` and `{}` both take the JSON name `{name}`, so no call could give both; give each its own name (check their `#[serde(rename)]`)",
                    unraw(first),
                    unraw(&param.ident)
                ),
            );
        } else {
            seen.push((name, &param.ident));
        }
    }
}

/// `Context` (or a reference to it), by its spelling.
fn is_context(ty: &Type) -> bool {
    match ty {
        Type::Reference(reference) => is_context(&reference.elem),
        Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|segment| segment.ident == "Context"),
        _ => false,
    }
}

/// Borrowed parameters can't be filled from JSON the tool outlives, at any depth
/// (`&str`, `Vec<&str>`, `Cow<'_, str>`), and unsized ones can't be passed at
/// all; say which owned type to use.
fn check_owned(ty: &Type, errors: &mut Ctxt) {
    match ty {
        Type::Reference(reference) => {
            let owned = match &*reference.elem {
                Type::Path(path) if path.path.is_ident("str") => "String".to_owned(),
                Type::Slice(slice) => format!("Vec<{}>", type_text(&owned(&slice.elem))),
                elem => type_text(&owned(elem)),
            };
            errors.error(ty, use_instead(&owned, ty));
        }
        Type::Slice(slice) => {
            let owned = format!("Vec<{}>", type_text(&owned(&slice.elem)));
            errors.error(ty, use_instead(&owned, ty));
        }
        Type::Path(path) if path.path.is_ident("str") => {
            errors.error(ty, use_instead("String", ty));
        }
        Type::ImplTrait(_) => errors.error(
            ty,
            "a tool parameter cannot be `impl Trait`; use a concrete type",
        ),
        Type::TraitObject(_) => errors.error(
            ty,
            "a tool parameter cannot be `dyn Trait`; use a concrete type",
        ),
        _ => {
            if let Some(borrowed) = first_borrow(ty) {
                let owned = owned(ty);
                let message = if first_borrow(&owned).is_none() {
                    use_instead(&type_text(&owned), ty)
                } else {
                    format!(
                        "tool parameters must be owned values, filled from the JSON arguments; `{}` borrows: take a type that owns its data",
                        type_text(ty)
                    )
                };
                errors.error(borrowed, message);
            }
        }
    }
}

fn use_instead(owned: &str, ty: &Type) -> String {
    format!(
        "tool parameters must be owned values, filled from the JSON arguments; use `{owned}` instead of `{}`",
        type_text(ty)
    )
}

/// The first reference or borrowed lifetime (any but `'static`) written inside
/// `ty`, if any.
fn first_borrow(ty: &Type) -> Option<TokenStream> {
    match ty {
        Type::Reference(_) => Some(ty.to_token_stream()),
        Type::Paren(inner) => first_borrow(&inner.elem),
        Type::Group(inner) => first_borrow(&inner.elem),
        Type::Slice(inner) => first_borrow(&inner.elem),
        Type::Array(inner) => first_borrow(&inner.elem),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(first_borrow),
        Type::Path(path) => path.path.segments.iter().find_map(|segment| {
            let PathArguments::AngleBracketed(arguments) = &segment.arguments else {
                return None;
            };
            arguments.args.iter().find_map(|argument| match argument {
                GenericArgument::Type(ty) => first_borrow(ty),
                GenericArgument::Lifetime(lifetime) if lifetime.ident != "static" => {
                    Some(lifetime.to_token_stream())
                }
                _ => None,
            })
        }),
        _ => None,
    }
}

/// `ty` with every reference replaced by the owned type it borrows: `&str` (and
/// `Cow<'_, str>`) by `String`, `&[T]` by `Vec<T>`, `&T` by `T`.
fn owned(ty: &Type) -> Type {
    let mut ty = ty.clone();
    make_owned(&mut ty);
    ty
}

fn make_owned(ty: &mut Type) {
    if let Some(borrowed) = cow_of(ty) {
        *ty = owned_of_borrowed(&borrowed);
        return;
    }
    match ty {
        Type::Reference(reference) => {
            let borrowed = (*reference.elem).clone();
            *ty = owned_of_borrowed(&borrowed);
        }
        Type::Paren(inner) => make_owned(&mut inner.elem),
        Type::Group(inner) => make_owned(&mut inner.elem),
        Type::Slice(inner) => make_owned(&mut inner.elem),
        Type::Array(inner) => make_owned(&mut inner.elem),
        Type::Tuple(tuple) => tuple.elems.iter_mut().for_each(make_owned),
        Type::Path(path) => {
            for segment in &mut path.path.segments {
                if let PathArguments::AngleBracketed(arguments) = &mut segment.arguments {
                    for argument in &mut arguments.args {
                        if let GenericArgument::Type(ty) = argument {
                            make_owned(ty);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// The owned type of a borrowed `str`, `[T]` or `T`.
fn owned_of_borrowed(borrowed: &Type) -> Type {
    match borrowed {
        Type::Path(path) if path.path.is_ident("str") => syn::parse_quote!(String),
        Type::Slice(slice) => {
            let elem = owned(&slice.elem);
            syn::parse_quote!(Vec<#elem>)
        }
        elem => owned(elem),
    }
}

/// `T` of an `Option<T>`.
fn option_inner(ty: &Type) -> Option<Type> {
    type_argument_of(ty, "Option")
}

/// The first type argument of `ty` when its last path segment is `name`
/// (`T` of `Option<T>`, of `Cow<'_, T>`).
fn type_argument_of(ty: &Type, name: &str) -> Option<Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    let segment = path.path.segments.last()?;
    if segment.ident != name {
        return None;
    }
    let PathArguments::AngleBracketed(arguments) = &segment.arguments else {
        return None;
    };
    arguments.args.iter().find_map(|argument| match argument {
        GenericArgument::Type(ty) => Some(ty.clone()),
        _ => None,
    })
}

/// `T` of a `Cow<'_, T>`.
fn cow_of(ty: &Type) -> Option<Type> {
    type_argument_of(ty, "Cow")
}

/// A type as a user would write it: `Vec<String>`, not quote's `Vec < String >`.
pub(crate) fn type_text(ty: &Type) -> String {
    let mut text = ty.to_token_stream().to_string();
    for (spaced, tight) in [
        (" < ", "<"),
        ("< ", "<"),
        (" <", "<"),
        (" >", ">"),
        (" :: ", "::"),
        (":: ", "::"),
        (" ,", ","),
        ("& ", "&"),
        ("[ ", "["),
        (" ]", "]"),
        ("( ", "("),
        (" )", ")"),
    ] {
        text = text.replace(spaced, tight);
    }
    text
}

//! The annotated function, read into the pieces expansion needs. Original syntax
//! nodes are kept so every error and every generated type points at the user's
//! tokens.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, FnArg, Ident, ItemFn, Pat, ReturnType, Type};

use crate::attr::ParamAttr;
use crate::docs;
use crate::valid::Errors;

/// One parameter of the tool function.
pub(crate) struct Param {
    pub(crate) ident: Ident,
    pub(crate) ty: Type,
    pub(crate) kind: ParamKind,
}

/// Where a parameter's value comes from.
pub(crate) enum ParamKind {
    /// `#[ctx]`: taken from the tool context, not shown to the model.
    Context,
    /// Filled by the model from the JSON arguments.
    Model {
        description: Option<String>,
        /// Boxed: an expression is large and most parameters have none.
        default: Option<Box<Expr>>,
        optional: bool,
        /// `#[serde(..)]` and `#[schemars(..)]` moved onto the argument field.
        field_attrs: Vec<Attribute>,
    },
}

impl Param {
    /// The name the model uses: a `#[serde(rename = "..")]`, or the identifier
    /// without any `r#`.
    pub(crate) fn model_name(&self) -> String {
        if let ParamKind::Model { field_attrs, .. } = &self.kind
            && let Some(rename) = SerdeField::read(field_attrs).rename
        {
            return rename;
        }
        let name = self.ident.to_string();
        name.strip_prefix("r#").map_or(name.clone(), str::to_owned)
    }
}

/// What toolkit needs to know of the `#[serde(..)]` attributes moved onto a field:
/// they change the name the model uses and whether it may leave the field out.
/// Anything malformed is left for serde's own derive to report.
#[derive(Default)]
pub(crate) struct SerdeField {
    pub(crate) rename: Option<String>,
    pub(crate) default: bool,
    /// `with`, `deserialize_with` or `default = "path"`: code of the user's that
    /// works on the parameter's own type, so the field keeps that type.
    pub(crate) custom: bool,
}

impl SerdeField {
    pub(crate) fn read(attrs: &[Attribute]) -> SerdeField {
        let mut field = SerdeField::default();
        for attr in attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    if meta.input.peek(syn::Token![=]) {
                        field.rename = Some(meta.value()?.parse::<syn::LitStr>()?.value());
                    } else {
                        meta.parse_nested_meta(|inner| {
                            let value = inner.value()?.parse::<syn::LitStr>()?.value();
                            if inner.path.is_ident("deserialize") {
                                field.rename = Some(value);
                            }
                            Ok(())
                        })?;
                    }
                } else if meta.path.is_ident("default") {
                    field.default = true;
                    if meta.input.peek(syn::Token![=]) {
                        field.custom = true;
                        meta.value()?.parse::<syn::LitStr>()?;
                    }
                } else if meta.input.peek(syn::Token![=]) {
                    if meta.path.is_ident("with") || meta.path.is_ident("deserialize_with") {
                        field.custom = true;
                    }
                    meta.value()?.parse::<Expr>()?;
                } else if meta.input.peek(syn::token::Paren) {
                    meta.parse_nested_meta(|inner| {
                        if inner.input.peek(syn::Token![=]) {
                            inner.value()?.parse::<Expr>()?;
                        }
                        Ok(())
                    })?;
                }
                Ok(())
            });
        }
        field
    }
}

/// What the function returns, as far as dispatch cares.
pub(crate) enum Output {
    /// `-> Result<T, E>` (any path ending in `Result`), with the spans of `T`
    /// and `E` (the whole type where an alias leaves one out), so a type error
    /// in either points at it.
    Result { value: Span, error: Span },
    /// Any other type, serialized as it is; `()` becomes `null`.
    Value(Span),
}

/// The annotated function and what was read from it.
pub(crate) struct ToolFn {
    /// The function as it will be re-emitted: our parameter attributes removed.
    pub(crate) item: ItemFn,
    pub(crate) description: Option<String>,
    pub(crate) params: Vec<Param>,
    pub(crate) output: Output,
    pub(crate) is_async: bool,
    /// The doc comments the description came from, to point errors at them.
    pub(crate) doc_attrs: Vec<Attribute>,
    /// A doc attribute that is not a literal, so no description could be read.
    pub(crate) unreadable_doc: Option<Attribute>,
    /// The function takes `self`, so it is a method and sits in an `impl` or a
    /// `trait`, where the fallback must not emit a struct beside it.
    pub(crate) is_method: bool,
}

impl ToolFn {
    /// Reads the function, recording unsupported shapes in `errors`.
    pub(crate) fn parse(mut item: ItemFn, errors: &mut Errors) -> ToolFn {
        // A doc attribute the macro cannot read (`#[doc = include_str!(..)]`) is
        // only a mistake when no `description = ".."` replaces it; `expand` knows.
        let (description, unreadable_doc) = match docs::collect(&item.attrs) {
            Ok(text) => (text, None),
            Err(attr) => (None, Some(attr.clone())),
        };
        let signature = &item.sig;
        if let Some(constness) = &signature.constness {
            errors.error(constness, "a tool cannot be a `const fn`; remove `const`");
        }
        if let Some(unsafety) = &signature.unsafety {
            errors.error(unsafety, "a tool cannot be an `unsafe fn`; the model's arguments must never reach unchecked code");
        }
        if let Some(abi) = &signature.abi {
            errors.error(abi, "a tool cannot declare an ABI; remove the `extern`");
        }
        let only_lifetimes = signature
            .generics
            .params
            .iter()
            .all(|param| matches!(param, syn::GenericParam::Lifetime(_)));
        if !signature.generics.params.is_empty()
            && only_lifetimes
            && signature.generics.where_clause.is_none()
        {
            errors.error(
                &signature.generics,
                "a tool cannot have lifetime parameters: its arguments are parsed from JSON into owned values that outlive the call; remove them and take owned types (`String`, not `&'a str`)",
            );
        } else if !signature.generics.params.is_empty() || signature.generics.where_clause.is_some()
        {
            errors.error(
                &signature.generics,
                "a tool cannot be generic: its arguments need one concrete JSON schema; use concrete types",
            );
        }
        if let Some(variadic) = &signature.variadic {
            errors.error(variadic, "a tool cannot be variadic");
        }
        let output = match &signature.output {
            ReturnType::Default => Output::Value(signature.ident.span()),
            ReturnType::Type(_, ty) => {
                if is_result(ty) {
                    let mut arguments = result_arguments(ty).map(Spanned::span);
                    let value = arguments.next().unwrap_or_else(|| ty.span());
                    let error = arguments.next().unwrap_or_else(|| ty.span());
                    Output::Result { value, error }
                } else {
                    Output::Value(ty.span())
                }
            }
        };
        let is_async = signature.asyncness.is_some();
        let is_method = signature.receiver().is_some();
        let doc_attrs = item
            .attrs
            .iter()
            .filter(|attr| attr.path().is_ident("doc"))
            .cloned()
            .collect();
        let mut params = Vec::new();
        for input in &mut item.sig.inputs {
            match input {
                FnArg::Receiver(receiver) => errors.error(
                    receiver,
                    "a tool cannot take `self`; make it a free function and take state with a `#[ctx]` parameter",
                ),
                FnArg::Typed(typed) => {
                    if let Some(param) = read_param(typed, errors) {
                        params.push(param);
                    }
                }
            }
        }
        ToolFn {
            item,
            description,
            params,
            output,
            is_async,
            doc_attrs,
            unreadable_doc,
            is_method,
        }
    }

    /// The parameters the model fills.
    pub(crate) fn model_params(&self) -> impl Iterator<Item = &Param> {
        self.params
            .iter()
            .filter(|param| matches!(param.kind, ParamKind::Model { .. }))
    }
}

/// Reads one parameter and strips the attributes that are ours (`#[ctx]`,
/// `#[tool]`, doc comments, `#[serde]`, `#[schemars]`) from the function.
fn read_param(typed: &mut syn::PatType, errors: &mut Errors) -> Option<Param> {
    let mut attr = ParamAttr::default();
    let mut field_attrs = Vec::new();
    let mut doc_attrs = Vec::new();
    typed.attrs.retain(|a| {
        if attr.read(a, errors) {
            false
        } else if a.path().is_ident("doc") {
            doc_attrs.push(a.clone());
            false
        } else if a.path().is_ident("serde") || a.path().is_ident("schemars") {
            field_attrs.push(a.clone());
            false
        } else {
            true
        }
    });
    let ident = match &*typed.pat {
        Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => pat.ident.clone(),
        Pat::Wild(wild) => {
            errors.error(
                wild,
                "a tool parameter needs a name: the model fills each argument by name; name it (`limit`), or remove it if the tool does not use it",
            );
            return None;
        }
        other => {
            errors.error(
                other,
                "tool parameters must be plain identifiers (the model fills them by name); destructure inside the function",
            );
            return None;
        }
    };
    let ty = (*typed.ty).clone();
    check_owned(&ty, errors);
    if attr.ctx.is_some() {
        if let Some(default) = &attr.default {
            errors.error(default, "a `#[ctx]` parameter cannot have a default: it is filled from the tool context, not by the model");
        }
        // Doc comments on a context parameter are allowed and simply not shown.
        return Some(Param {
            ident,
            ty,
            kind: ParamKind::Context,
        });
    }
    let description = match docs::collect(&doc_attrs) {
        Ok(text) => text,
        Err(attr) => {
            errors.error(
                attr,
                "`#[tool]` reads parameter descriptions from doc comments written as literals; use `///` comments",
            );
            // Reported above: not also "has no doc comment".
            Some(String::new())
        }
    };
    if description.is_none()
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
            &ident,
            format!(
                "parameter `{ident}` has no doc comment; the model needs a description: add `/// ...` above it, or mark it `#[ctx]` if the caller provides it"
            ),
        );
    }
    let optional =
        attr.default.is_some() || is_option(&ty) || SerdeField::read(&field_attrs).default;
    Some(Param {
        ident,
        ty,
        kind: ParamKind::Model {
            description,
            default: attr.default.map(Box::new),
            optional,
            field_attrs,
        },
    })
}

/// Borrowed parameters can't be filled from JSON the tool outlives; say which owned
/// type to use.
fn check_owned(ty: &Type, errors: &mut Errors) {
    match ty {
        Type::Reference(reference) => {
            let owned = match &*reference.elem {
                Type::Path(path) if path.path.is_ident("str") => "String".to_owned(),
                Type::Slice(slice) => format!("Vec<{}>", type_text(&slice.elem)),
                elem => type_text(elem),
            };
            errors.error(
                ty,
                format!(
                    "tool parameters must be owned values, filled from the JSON arguments; use `{owned}` instead of `{}`",
                    type_text(ty)
                ),
            );
        }
        Type::ImplTrait(_) => errors.error(
            ty,
            "a tool parameter cannot be `impl Trait`; use a concrete type",
        ),
        _ => {}
    }
}

/// A type as a user would write it: `Vec<String>`, not quote's `Vec < String >`.
fn type_text(ty: &Type) -> String {
    let mut text = quote::quote!(#ty).to_string();
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

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last(),
        Type::Group(group) => last_segment(&group.elem),
        Type::Paren(paren) => last_segment(&paren.elem),
        _ => None,
    }
}

/// The type arguments of a `Result<..>` path: `T` and, unless an alias fixes it, `E`.
fn result_arguments(ty: &Type) -> impl Iterator<Item = &Type> {
    let arguments = match last_segment(ty).map(|segment| &segment.arguments) {
        Some(syn::PathArguments::AngleBracketed(arguments)) => Some(&arguments.args),
        _ => None,
    };
    arguments
        .into_iter()
        .flatten()
        .filter_map(|argument| match argument {
            syn::GenericArgument::Type(ty) => Some(ty),
            _ => None,
        })
}

fn is_result(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|segment| segment.ident == "Result")
}

pub(crate) fn is_option(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|segment| segment.ident == "Option")
}

/// Whether `ty` is, by its spelling, a standard type the model can always fill
/// and be shown (`String`, `bool`, the number types, and `Option<_>` or `Vec<_>`
/// of one): such a parameter needs no diagnostic wrapper, whose `Deserialize` and
/// `JsonSchema` impls would be compiled once per parameter, a build-time cost for
/// nothing. A crate that names its own type `String` only loses the nicer error if
/// that type lacks the traits; the build still fails.
pub(crate) fn is_plain_std(ty: &Type) -> bool {
    let Type::Path(path) = ty else {
        return false;
    };
    if path.qself.is_some() || path.path.leading_colon.is_some() || path.path.segments.len() != 1 {
        return false;
    }
    let segment = &path.path.segments[0];
    let name = segment.ident.to_string();
    match &segment.arguments {
        syn::PathArguments::None => matches!(
            name.as_str(),
            "String"
                | "bool"
                | "u8"
                | "u16"
                | "u32"
                | "u64"
                | "usize"
                | "i8"
                | "i16"
                | "i32"
                | "i64"
                | "isize"
                | "f32"
                | "f64"
        ),
        syn::PathArguments::AngleBracketed(arguments)
            if matches!(name.as_str(), "Option" | "Vec") && arguments.args.len() == 1 =>
        {
            matches!(&arguments.args[0], syn::GenericArgument::Type(inner) if is_plain_std(inner))
        }
        _ => false,
    }
}

#[cfg(test)]
mod plain_std_tests {
    use super::is_plain_std;

    fn plain(ty: &str) -> bool {
        is_plain_std(&syn::parse_str(ty).expect("a type"))
    }

    #[test]
    fn only_standard_spellings_skip_the_wrapper() {
        for ty in [
            "String",
            "bool",
            "u32",
            "f64",
            "Option<u32>",
            "Vec<String>",
            "Option<Vec<i64>>",
        ] {
            assert!(plain(ty), "{ty}");
        }
        for ty in [
            "Item",
            "State<Db>",
            "Option<State<Db>>",
            "Vec<Item>",
            "std::string::String",
            "::std::string::String",
            "Option<u32, u8>",
            "Vec<'a>",
            "&str",
            "(u32, u32)",
            "char",
        ] {
            assert!(!plain(ty), "{ty}");
        }
    }
}

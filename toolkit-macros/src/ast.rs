//! The annotated function, read into the pieces expansion needs. Original syntax
//! nodes are kept so every error and every generated type points at the user's
//! tokens.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, FnArg, Ident, ItemFn, Pat, ReturnType, Type};

use crate::attr::ParamAttr;
use crate::ctxt::Ctxt;
use crate::docs;

/// The argument toolkit adds to every `confirm` tool.
pub(crate) const CONFIRMED: &str = "confirmed";

/// What the model reads about `confirmed`.
pub(crate) const CONFIRMED_DOC: &str = "Set to true only after the user has seen this tool's preview and agreed to it. Without it (or with false) the tool does not act: it returns that preview.";

/// One parameter of the tool function.
pub(crate) struct Param {
    pub(crate) ident: Ident,
    pub(crate) ty: Type,
    pub(crate) kind: ParamKind,
}

/// Where a parameter's value comes from.
// A tool has a handful of parameters, each read once per expansion: boxing the
// larger variant would buy nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum ParamKind {
    /// `#[ctx]`: taken from the tool context, not shown to the model.
    Context {
        /// A `#[tool(default = ..)]` written on it anyway.
        default: Option<Box<Expr>>,
    },
    /// Filled by the model from the JSON arguments.
    Model {
        description: Option<String>,
        /// Boxed: an expression is large and most parameters have none.
        default: Option<Box<Expr>>,
        optional: bool,
        /// `#[serde(..)]` and `#[schemars(..)]` moved onto the argument field.
        field_attrs: Vec<Attribute>,
        /// The doc comments the description came from, to point errors at them.
        doc_attrs: Vec<Attribute>,
        /// A doc attribute that is not a literal, so no description could be read.
        unreadable_doc: Option<Attribute>,
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
    /// Where the function sits: in an `impl` or a `trait`, the fallback must not
    /// emit a struct beside it.
    pub(crate) place: Place,
    /// A second `#[tool]` on the same function, removed from `item`.
    pub(crate) repeated: Option<Attribute>,
}

/// Where the annotated function sits. An associated function without `self` reads
/// like a free one, so the entry point looks it up in the source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Free,
    Impl,
    Trait,
}

impl ToolFn {
    /// Reads the function, recording unsupported shapes in `errors`.
    pub(crate) fn parse(mut item: ItemFn, place: Place, errors: &mut Ctxt) -> ToolFn {
        // Attribute macros expand outermost first, so a second `#[tool]` is still
        // on the item; removed, it does not expand again beside the error.
        let mut repeated = None;
        item.attrs.retain(|attr| {
            let is_tool = attr
                .path()
                .segments
                .last()
                .is_some_and(|segment| segment.ident == "tool");
            if is_tool && repeated.is_none() {
                repeated = Some(attr.clone());
            }
            !is_tool
        });
        // A doc attribute the macro cannot read (`#[doc = include_str!(..)]`) is
        // only a mistake when no `description = ".."` replaces it; `expand` knows.
        let (description, unreadable_doc) = match docs::collect(&item.attrs) {
            Ok(text) => (text, None),
            Err(attr) => (None, Some(attr.clone())),
        };
        let signature = &item.sig;
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
        let doc_attrs = item
            .attrs
            .iter()
            .filter(|attr| attr.path().is_ident("doc"))
            .cloned()
            .collect();
        let mut params = Vec::new();
        for input in &mut item.sig.inputs {
            match input {
                // `valid` reports it.
                FnArg::Receiver(_) => {}
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
            place,
            repeated,
        }
    }

    /// Whether the function is associated with a type (a method, or a function
    /// in an `impl` or a `trait`), where a struct cannot sit beside it.
    pub(crate) fn is_associated(&self) -> bool {
        self.place != Place::Free || self.item.sig.receiver().is_some()
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
fn read_param(typed: &mut syn::PatType, errors: &mut Ctxt) -> Option<Param> {
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
    if attr.ctx.is_some() {
        // Doc comments on a context parameter are allowed and simply not shown.
        return Some(Param {
            ident,
            ty,
            kind: ParamKind::Context {
                default: attr.default.map(Box::new),
            },
        });
    }
    let (description, unreadable_doc) = match docs::collect(&doc_attrs) {
        Ok(text) => (text, None),
        Err(attr) => (None, Some(attr.clone())),
    };
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
            doc_attrs,
            unreadable_doc,
        },
    })
}

/// An identifier as the model sees it: without `r#`.
pub(crate) fn unraw(ident: &Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").map_or(text.clone(), str::to_owned)
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

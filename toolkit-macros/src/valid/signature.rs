//! The function itself: where `#[tool]` sits, and the signature shapes a tool
//! cannot have.

use quote::quote;
use syn::{FnArg, GenericArgument, PathArguments, ReturnType, Type};

use crate::ast::{Place, ToolFn};
use crate::ctxt::Ctxt;
use crate::valid::params::type_text;

/// `#[tool]` once, on a free function.
pub(crate) fn check_place(func: &ToolFn, errors: &mut Ctxt) {
    let signature = &func.item.sig;
    let ident = &signature.ident;
    if let Some(repeated) = &func.repeated {
        errors.error(
            repeated,
            format!("`#[tool]` is written twice on `{ident}`; remove one"),
        );
    }
    // A method is told about `self` instead, on the receiver.
    if signature.receiver().is_some() {
        return;
    }
    let fn_token = &signature.fn_token;
    let (kind, block) = match func.place {
        Place::Free => return,
        Place::Impl => ("an associated function", "`impl` block"),
        Place::Trait => ("a trait's function", "`trait`"),
    };
    errors.error(
        quote!(#fn_token #ident),
        format!(
            "`#[tool]` goes on a free function, not on {kind}: the registry calls a tool by its own path; move `{ident}` out of the {block}, and take what it needs with `#[ctx]` parameters"
        ),
    );
}

/// Qualifiers, generics and receivers a tool cannot have.
pub(crate) fn check_signature(func: &ToolFn, errors: &mut Ctxt) {
    let signature = &func.item.sig;
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
    } else if !signature.generics.params.is_empty() || signature.generics.where_clause.is_some() {
        errors.error(
            &signature.generics,
            "a tool cannot be generic: its arguments need one concrete JSON schema; use concrete types",
        );
    }
    if let Some(variadic) = &signature.variadic {
        errors.error(variadic, "a tool cannot be variadic");
    }
    for input in &signature.inputs {
        if let FnArg::Receiver(receiver) = input {
            errors.error(
                receiver,
                "a tool cannot take `self`; make it a free function and take state with a `#[ctx]` parameter",
            );
        }
    }
}

/// The result has a type the registry can name.
pub(crate) fn check_output(func: &ToolFn, errors: &mut Ctxt) {
    let ReturnType::Type(_, ty) = &func.item.sig.output else {
        return;
    };
    if let Some(opaque) = impl_trait(ty) {
        errors.error(
            opaque,
            format!(
                "a tool cannot return `{}`: the registry serializes and describes the result through its type; return the concrete type, like `-> Vec<Task>` with `Task` deriving `Serialize`",
                type_text(opaque)
            ),
        );
    }
}

/// The first `impl Trait` written in `ty`, if any.
fn impl_trait(ty: &Type) -> Option<&Type> {
    match ty {
        Type::ImplTrait(_) => Some(ty),
        Type::Paren(inner) => impl_trait(&inner.elem),
        Type::Group(inner) => impl_trait(&inner.elem),
        Type::Reference(inner) => impl_trait(&inner.elem),
        Type::Slice(inner) => impl_trait(&inner.elem),
        Type::Array(inner) => impl_trait(&inner.elem),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(impl_trait),
        Type::Path(path) => path.path.segments.iter().find_map(|segment| {
            let PathArguments::AngleBracketed(arguments) = &segment.arguments else {
                return None;
            };
            arguments.args.iter().find_map(|argument| match argument {
                GenericArgument::Type(ty) => impl_trait(ty),
                _ => None,
            })
        }),
        _ => None,
    }
}

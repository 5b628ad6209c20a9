//! Code generation: the user's function, its handle, and its registry entry.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::{GenericArgument, Item, ItemFn, LitStr, PathArguments, Type, parse_quote};

use crate::ast::{Output, ParamKind, ToolFn};
use crate::attr::{Keyword, ToolAttr};
use crate::config::Config;
use crate::valid::{self, Errors, MAX_DESCRIPTION};
use crate::{docs_section, fallback};

/// Everything checked, ready to expand.
struct Checked<'a> {
    name: String,
    description: String,
    scope: Keyword,
    tier: Keyword,
    attr: &'a ToolAttr,
    func: &'a ToolFn,
    manifest: Option<String>,
}

/// The entry point: parse, check, expand (or fall back).
pub(crate) fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => return not_a_function(input),
    };
    let mut errors = Errors::default();
    let attr = ToolAttr::parse(args, &mut errors);
    let func = ToolFn::parse(item, &mut errors);
    let config = match Config::load() {
        Ok(config) => Some(config),
        Err(message) => {
            errors.at(Span::call_site(), message);
            None
        }
    };
    let checked = check(&attr, &func, config.as_ref(), &mut errors);
    match (errors.into_error(), checked) {
        (None, Some(checked)) => expand(&checked),
        (error, _) => fallback::expand(&func, error),
    }
}

/// `#[tool]` on something other than a function: one error on the item's keyword
/// and name, and the item itself unchanged.
fn not_a_function(input: TokenStream) -> TokenStream {
    fn named(keyword: impl ToTokens, ident: &syn::Ident) -> TokenStream {
        quote!(#keyword #ident)
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

fn check<'a>(
    attr: &'a ToolAttr,
    func: &'a ToolFn,
    config: Option<&Config>,
    errors: &mut Errors,
) -> Option<Checked<'a>> {
    let ident = &func.item.sig.ident;
    let (name, name_span) = match &attr.name {
        Some(name) => (name.value(), name.span()),
        None => (unraw(ident), ident.span()),
    };
    // A `name` that is written but unreadable has its own error; the function's
    // identifier is not the name the user meant.
    let name_meant = attr.name.is_some() || attr.is_missing("name");
    if let (Some(config), true) = (config, name_meant) {
        valid::check_name(&name, name_span, config, errors);
    }
    let mut seen_aliases: Vec<String> = Vec::new();
    for alias in &attr.aliases {
        let value = alias.value();
        if valid::check_format(&value, "alias", alias.span(), errors) {
            if value == name {
                errors.error(
                    alias,
                    format!("alias `{value}` is the tool's own name; remove it"),
                );
            } else if seen_aliases.contains(&value) {
                errors.error(
                    alias,
                    format!("alias `{value}` is listed twice; remove one"),
                );
            }
        }
        seen_aliases.push(value);
    }
    for (key, value) in [
        ("group", &attr.group),
        ("guidance", &attr.guidance),
        ("title", &attr.title),
        ("gate", &attr.gate),
    ] {
        if let Some(value) = value
            && value.value().trim().is_empty()
        {
            errors.error(
                value,
                format!("`{key}` is empty; give it a value or remove it"),
            );
        }
    }
    if let Some(group) = &attr.group
        && let Some(name) = group.value().strip_prefix('@')
    {
        let name = name.trim_start_matches('@');
        errors.error(
            group,
            format!(
                "a group name cannot start with `@`: a view's allowlist names a group as `@{name}`, so this one would have to be written `@@{name}`; write `group = \"{name}\"`"
            ),
        );
    }
    for tag in &attr.tags {
        if tag.value().trim().is_empty() {
            errors.error(tag, "empty tag; remove it");
        }
    }
    let description = match &attr.description {
        Some(text) => {
            let value = text.value().trim().to_owned();
            if value.is_empty() {
                errors.error(
                    text,
                    "`description` is empty; say what the tool does, for the model",
                );
            }
            check_length(&value, text, errors);
            Some(value)
        }
        None => {
            if let Some(doc) = &func.unreadable_doc {
                errors.error(
                    doc,
                    "`#[tool]` reads descriptions from doc comments written as literals; use `///` comments, or `description = \"...\"` in `#[tool]`",
                );
            } else if let Some(text) = &func.description {
                let docs = &func.doc_attrs;
                check_length(text, quote!(#(#docs)*), errors);
            } else if attr.is_missing("description")
                && let Some(empty) = func.doc_attrs.first()
            {
                errors.error(
                    empty,
                    format!("the doc comment of tool `{name}` is empty; say what the tool does, for the model"),
                );
            } else if attr.is_missing("description") {
                errors.error(
                    ident,
                    format!("tool `{name}` has no description; add a doc comment (`/// ...`) saying what it does, or `description = \"...\"` in `#[tool]`"),
                );
            }
            func.description.clone()
        }
    };
    let scope = attr.scope;
    let tier = attr.tier;
    check_confirm(attr, func, errors);
    check_json_names(func, errors);
    let missing_scope = scope.is_none() && attr.is_missing("scope");
    let missing_tier = tier.is_none() && attr.is_missing("tier");
    // Nothing in the input can be named for a key that is not there, so these point
    // at the attribute.
    match (missing_scope, missing_tier) {
        (true, true) => errors.at(
            Span::call_site(),
            "missing `scope` and `tier` in `#[tool]`; declare who may use the tool (`scope = shared`, `agent`, `assistant` or `channel`) and whether a human must approve calls (`tier = auto`, `confirm` or `approve`)",
        ),
        (true, false) => errors.at(
            Span::call_site(),
            "missing `scope` in `#[tool]`; declare who may use the tool: `scope = shared`, `agent`, `assistant` or `channel`",
        ),
        (false, true) => errors.at(
            Span::call_site(),
            "missing `tier` in `#[tool]`; declare whether a human must approve calls: `tier = auto`, `confirm` or `approve`",
        ),
        (false, false) => {}
    }
    Some(Checked {
        name,
        description: description?,
        scope: scope?,
        tier: tier?,
        attr,
        func,
        manifest: config
            .and_then(|config| config.manifest.as_ref())
            .map(|path| path.display().to_string()),
    })
}

/// `preview` belongs to `confirm` tools, and their `confirmed` argument to toolkit.
fn check_confirm(attr: &ToolAttr, func: &ToolFn, errors: &mut Errors) {
    let Some(tier) = attr.tier else {
        return;
    };
    if tier.word == "confirm" {
        for param in func.model_params() {
            if param.model_name() == CONFIRMED {
                errors.error(
                    &param.ident,
                    "a `confirm` tool cannot have a parameter named `confirmed`: toolkit adds that argument itself (the model sets it to `true` once the user agreed to the preview); rename the parameter",
                );
            }
        }
    } else if let Some(preview) = &attr.preview {
        errors.error(
            preview,
            format!(
                "`preview` applies only to `tier = confirm` tools, and this one is `tier = {}`; remove `preview`, or declare `tier = confirm` if the tool should show what it would do first",
                tier.word
            ),
        );
    }
}

/// Two parameters the model would fill under one JSON name could never both be
/// given: every call would fail.
fn check_json_names(func: &ToolFn, errors: &mut Errors) {
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

/// The argument toolkit adds to every `confirm` tool.
const CONFIRMED: &str = "confirmed";

/// What the model reads about `confirmed`.
const CONFIRMED_DOC: &str = "Set to true only after the user has seen this tool's preview and agreed to it. Without it (or with false) the tool does not act: it returns that preview.";

fn check_length(text: &str, source: impl ToTokens, errors: &mut Errors) {
    let length = text.chars().count();
    if length > MAX_DESCRIPTION {
        errors.error(
            source,
            format!("the description is {length} characters long, over the {MAX_DESCRIPTION} providers accept; move details into parameter docs or `guidance = \"...\"`"),
        );
    }
}

pub(crate) fn unraw(ident: &syn::Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").map_or(text.clone(), str::to_owned)
}

fn expand(checked: &Checked<'_>) -> TokenStream {
    let Checked {
        name,
        description,
        scope,
        tier,
        attr,
        func,
        manifest,
    } = checked;
    let krate: syn::Path = attr
        .krate
        .clone()
        .unwrap_or_else(|| parse_quote!(::toolkit));
    let private = quote!(#krate::__private);
    let serde_path = quote!(#private::serde).to_string();
    let schemars_path = quote!(#private::schemars).to_string();
    let fn_ident = &func.item.sig.ident;
    let vis = &func.item.vis;

    let mut fields = Vec::new();
    let mut argument_types = Vec::new();
    let mut patterns = Vec::new();
    let mut defaults = Vec::new();
    let mut params = Vec::new();
    for param in func.model_params() {
        let ParamKind::Model {
            description,
            default,
            optional,
            field_attrs,
        } = &param.kind
        else {
            continue;
        };
        let ident = &param.ident;
        let ty = &param.ty;
        let span = span_of(ty);
        let doc = description.as_deref().unwrap_or_default();
        let serde_field = crate::ast::SerdeField::read(field_attrs);
        // The field's type: the parameter's own, or a local newtype whose serde and
        // schemars impls always exist, so the derives never report a missing trait;
        // the newtype's impls check the parameter's type once, on the user's token.
        let plain = serde_field.custom || crate::ast::is_plain_std(ty);
        let (field_ty, pattern) = if plain {
            (ty.to_token_stream(), quote!(#ident))
        } else {
            let wrapper = format_ident!("__toolkit_arg_{}", unraw(ident), span = span);
            argument_types.push(argument_type(
                &wrapper,
                ty,
                &private,
                serde_field.default && default.is_none(),
            ));
            (wrapper.to_token_stream(), quote!(#ident: #wrapper(#ident)))
        };
        patterns.push(pattern);
        let default_attr = default.as_ref().map(|expr| {
            let function = format_ident!("__toolkit_default_{}", unraw(ident));
            let function_name = function.to_string();
            // The default is checked against the parameter's own type, so a wrong
            // one reads "expected `u32`" with the parameter's type underlined.
            let value = if plain {
                quote_spanned!(span_of_expr(expr)=> #ident)
            } else {
                quote_spanned!(span_of_expr(expr)=> #field_ty(#ident))
            };
            defaults.push(quote_spanned! {span_of_expr(expr)=>
                #[allow(clippy::unnecessary_wraps)]
                fn #function() -> #field_ty {
                    let #ident: #ty = #expr;
                    #value
                }
            });
            quote!(#[serde(default = #function_name)])
        });
        let field_doc = LitStr::new(doc, span);
        fields.push(quote_spanned! {span=>
            #[doc = #field_doc]
            #default_attr
            #(#field_attrs)*
            #ident: #field_ty
        });
        let model_name = param.model_name();
        let required = !optional;
        params.push(quote! {
            #private::Param { name: #model_name, description: #doc, required: #required }
        });
    }
    let is_confirm = checked.tier.word == "confirm";
    if is_confirm {
        let confirmed = format_ident!("{}", CONFIRMED);
        fields.push(quote! {
            #[doc = #CONFIRMED_DOC]
            #[serde(default)]
            #confirmed: bool
        });
        params.push(quote! {
            #private::Param { name: #CONFIRMED, description: #CONFIRMED_DOC, required: false }
        });
    }
    let context_params: Vec<_> = func
        .params
        .iter()
        .filter(|param| matches!(param.kind, ParamKind::Context))
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
    let binding_rules = context_params.iter().map(|param| {
        let span = span_of(&param.ty);
        let ty = respan(param.ty.to_token_stream(), span);
        let private = respan(private.clone(), span);
        let rule = format_ident!("{}", scope_rule(checked.scope), span = span);
        quote_spanned! {span=>
            const _: () = <<#ty as #private::FromContext>::Binding
                as #private::diagnostics::#rule<#ty>>::OK;
        }
    });
    let required_bindings = context_params
        .iter()
        .filter(|param| !crate::ast::is_option(&param.ty))
        .map(|param| {
            let span = span_of(&param.ty);
            let ty = respan(param.ty.to_token_stream(), span);
            let private = respan(private.clone(), span);
            quote_spanned! {span=>
                <<#ty as #private::FromContext>::Binding as #private::BindingKind>::BINDING
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
                        PreviewErrorReported as _, ReturnsAPreview as _, ViaNotAPreview as _,
                        ViaPreviewShape as _,
                    };
                    let __toolkit_preview = <_ as #private::diagnostics::TakesTheToolsParameters<(#(#types,)*)>>::call_preview(
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
            let output_value = output_value(returned, value, &private, &quote!(__toolkit_ok));
            let output_error = quote_spanned!(error=>
                #error_private::Response::Error(
                    <_ as #error_private::diagnostics::ReportedToTheModel>::into_tool_error(__toolkit_error)
                )
            );
            quote! {
                match __toolkit_value {
                    ::core::result::Result::Ok(__toolkit_ok) => #output_value,
                    ::core::result::Result::Err(__toolkit_error) => #output_error,
                }
            }
        }
        Output::Value(span) => output_value(returned, span, &private, &quote!(__toolkit_value)),
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
    let output_type = output_type(&func.item.sig.output);
    let output_schema = match output_type {
        Some(ty) => quote! {
            #[allow(unused_imports)]
            use #private::{HasOutputSchema as _, NoOutputSchema as _};
            (&#private::OutputSchema::<#ty>::new()).output_schema()
        },
        None => quote!(::core::option::Option::None),
    };

    let scope = format_ident!("{}", scope.variant);
    let tier = format_ident!("{}", tier.variant);
    let always = attr.always;
    let optional = |value: &Option<LitStr>| match value {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    };
    let group = optional(&attr.group);
    let guidance = optional(&attr.guidance);
    let title = optional(&attr.title);
    let gate = optional(&attr.gate);
    let aliases = &attr.aliases;
    let tags = &attr.tags;
    let track_manifest = manifest.as_ref().map(|path| {
        quote!(
            const _: &[u8] = ::core::include_bytes!(#path);
        )
    });

    let mut item = func.item.clone();
    let section = docs_section::render(
        name,
        checked.scope,
        checked.tier,
        attr,
        func,
        is_confirm.then_some(CONFIRMED_DOC),
    );
    item.attrs.push(parse_quote!(#[doc = #section]));
    // The dispatcher passes every argument by value, so a tool that only reads a
    // parameter is not a mistake the user can fix; and a tool's result is used by
    // the registry whether or not direct callers use it.
    item.attrs
        .push(parse_quote!(#[allow(clippy::needless_pass_by_value, clippy::must_use_candidate)]));
    let handle_doc = format!(
        "Handle of the `{name}` tool: its name, scope, tier and definition, without a string.\n\nSee [`fn@{fn_ident}`] for what the model sees."
    );

    quote! {
        #item

        // Everything beside the function goes through one macro of the crate
        // path: a wrong `crate = path` is then one error, on the path.
        #private::items! {
        #[doc = #handle_doc]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #fn_ident {}

        const _: () = {
            #track_manifest

            #[derive(#private::serde::Deserialize, #private::schemars::JsonSchema)]
            #[serde(crate = #serde_path, deny_unknown_fields)]
            #[schemars(crate = #schemars_path)]
            #[allow(non_camel_case_types)]
            struct __toolkit_Arguments {
                #(#fields,)*
            }

            #(#argument_types)*

            #(#defaults)*

            fn __toolkit_schema() -> #private::schemars::Schema {
                #private::raw_schema_for::<__toolkit_Arguments>()
            }

            fn __toolkit_output_schema() -> ::core::option::Option<#private::schemars::Schema> {
                #output_schema
            }

            #(#binding_rules)*

            /// The one place that parses the arguments, for dispatch and for
            /// `validate` alike.
            fn __toolkit_parse(
                __toolkit_arguments: &str,
            ) -> ::core::result::Result<__toolkit_Arguments, #private::ToolError> {
                #private::parse_arguments::<__toolkit_Arguments>(__toolkit_arguments)
            }

            fn __toolkit_validate(
                __toolkit_arguments: &str,
            ) -> ::core::result::Result<(), #private::ToolError> {
                __toolkit_parse(__toolkit_arguments).map(|_| ())
            }

            #dispatch_fn

            #[#private::linkme::distributed_slice(#private::TOOLS)]
            #[linkme(crate = #private::linkme)]
            static __TOOLKIT_TOOL: #private::Tool = #private::Tool {
                name: #name,
                description: #description,
                scope: #private::Scope::#scope,
                tier: #private::Tier::#tier,
                always: #always,
                group: #group,
                aliases: &[#(#aliases),*],
                guidance: #guidance,
                title: #title,
                gate: #gate,
                tags: &[#(#tags),*],
                params: &[#(#params),*],
                location: #private::Location {
                    file: ::core::file!(),
                    line: ::core::line!(),
                    module_path: ::core::module_path!(),
                },
                schema: __toolkit_schema,
                output_schema: __toolkit_output_schema,
                dispatch: #private::Dispatch::#dispatch_kind(__toolkit_dispatch),
                bindings: #private::required_bindings(&[#(#required_bindings),*]),
                validate: __toolkit_validate,
            };

            // A block of its own, so the plain names rustdoc shows (`Scope::Shared`,
            // not the full path) never shadow a user's types in the argument struct.
            const _: () = {
            use #private::{Scope, Tier};

            impl #fn_ident {
                /// The name the model calls.
                #vis const NAME: &'static str = #name;
                /// Who may use the tool.
                #vis const SCOPE: Scope = Scope::#scope;
                /// Whether a call needs confirmation or approval.
                #vis const TIER: Tier = Tier::#tier;

                /// The tool's static definition.
                #[must_use]
                #vis fn definition() -> &'static #private::Tool {
                    &__TOOLKIT_TOOL
                }
            }

            #[automatically_derived]
            impl #private::ToolHandle for #fn_ident {
                const NAME: &'static str = #name;
                const SCOPE: Scope = Scope::#scope;
                const TIER: Tier = Tier::#tier;

                fn definition() -> &'static #private::Tool {
                    &__TOOLKIT_TOOL
                }
            }
            };
        };
        }
    }
}

/// The newtype a model parameter's field has in the argument struct: serde and
/// schemars impls that always exist and forward to the parameter's type through
/// `toolkit::diagnostics`, which reports a missing `Deserialize` or `JsonSchema` (or
/// a `FromContext` type without `#[ctx]`) once, on the parameter's type.
fn argument_type(
    wrapper: &syn::Ident,
    ty: &Type,
    private: &TokenStream,
    serde_default: bool,
) -> TokenStream {
    let span = span_of(ty);
    let private = respan(private.clone(), span);
    let probe = quote_spanned!(span=> (&#private::diagnostics::Probe::<#ty>::new()));
    let schema = format_ident!("{}_schema", wrapper);
    let default = serde_default.then(|| {
        quote_spanned! {span=>
            #[automatically_derived]
            #[allow(clippy::derivable_impls)]
            impl ::core::default::Default for #wrapper {
                fn default() -> Self {
                    #wrapper(<#ty as ::core::default::Default>::default())
                }
            }
        }
    });
    quote_spanned! {span=>
        #[allow(non_camel_case_types)]
        struct #wrapper(#ty);

        #default

        #[automatically_derived]
        impl<'de> #private::serde::Deserialize<'de> for #wrapper {
            fn deserialize<D: #private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                #[allow(unused_imports)]
                use #private::diagnostics::{
                    CanFill as _, CanFillWithoutCtx as _, ViaContext as _, ViaModel as _,
                };
                let value: ::core::result::Result<#ty, D::Error> =
                    #probe.filler().fill(deserializer);
                value.map(#wrapper)
            }
        }

        #[automatically_derived]
        impl #private::serde::Serialize for #wrapper {
            fn serialize<S: #private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                #[allow(unused_imports)]
                use #private::diagnostics::{ViaNoSerialize as _, ViaSerialize as _};
                #probe.serialize_kind().serialize(&self.0, serializer)
            }
        }

        #[automatically_derived]
        impl #private::schemars::JsonSchema for #wrapper {
            fn inline_schema() -> bool {
                (#schema().inline_schema)()
            }
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                (#schema().schema_name)()
            }
            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                (#schema().schema_id)()
            }
            fn json_schema(generator: &mut #private::schemars::SchemaGenerator) -> #private::schemars::Schema {
                (#schema().json_schema)(generator)
            }
            fn _schemars_private_non_optional_json_schema(
                generator: &mut #private::schemars::SchemaGenerator,
            ) -> #private::schemars::Schema {
                (#schema().non_optional_json_schema)(generator)
            }
            fn _schemars_private_is_option() -> bool {
                (#schema().is_option)()
            }
        }

        #[allow(non_snake_case)]
        fn #schema() -> #private::diagnostics::SchemaFns {
            #[allow(unused_imports)]
            use #private::diagnostics::{CanSee as _, ViaDeserialize as _, ViaNoDeserialize as _};
            #probe.schema_kind().schema(::core::marker::PhantomData::<#ty>)
        }
    }
}

/// The rule in `toolkit::diagnostics` a `#[ctx]` type's binding must pass in a
/// tool of `scope`.
fn scope_rule(scope: Keyword) -> &'static str {
    match scope.word {
        "shared" => "SharedToolCanTake",
        "agent" => "AgentToolCanTake",
        "assistant" => "AssistantToolCanTake",
        _ => "ChannelToolCanTake",
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
            <_ as #private::diagnostics::ReturnedToTheModel>::to_response(&#value)
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
            let _ = <#leaf as #private::diagnostics::ReturnedToTheModel>::to_response;
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
fn output_type(output: &syn::ReturnType) -> Option<&Type> {
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

/// `tokens` with every span set to `span`, so a type error in a call to a
/// `__private` helper points only at the user's token, not also at the attribute.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let proc_macro2::TokenTree::Group(group) = &token {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                token = proc_macro2::TokenTree::Group(inner);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}

fn span_of(ty: &Type) -> Span {
    syn::spanned::Spanned::span(ty)
}

fn span_of_expr(expr: &syn::Expr) -> Span {
    syn::spanned::Spanned::span(expr)
}

#[cfg(test)]
mod tests {
    use quote::quote;

    /// The rustdoc section: a table with a header, each parameter's JSON type,
    /// defaults as JSON, `confirmed` on a confirm tool, and the preview linked.
    #[test]
    fn the_rustdoc_section_shows_the_tool_as_the_model_sees_it() {
        let expanded = super::tool(
            quote!(
                scope = shared,
                tier = confirm,
                preview = preview_tasks,
                group = "tasks"
            ),
            quote! {
                #[doc = " Delete tasks."]
                fn delete_tasks(
                    #[doc = " The tasks."]
                    ids: Vec<u32>,
                    #[doc = " How urgent."]
                    #[tool(default = Priority::High)]
                    priority: Priority,
                    #[doc = " At most | this many."]
                    #[tool(default = 20)]
                    limit: Option<u32>,
                ) {}
            },
        );
        let section = expanded
            .into_iter()
            .find_map(|token| {
                let text = token.to_string();
                text.contains("# Tool `delete_tasks`").then_some(text)
            })
            .expect("the doc attribute");
        let section: String = syn::parse_str::<syn::LitStr>(
            section.trim_start_matches("[doc = ").trim_end_matches(']'),
        )
        .expect("a string literal")
        .value();
        assert_eq!(
            section,
            "\n\n# Tool `delete_tasks`\n\n\
             | property | value |\n|---|---|\n\
             | scope | `shared` |\n\
             | tier | `confirm` (preview: [`preview_tasks`]) |\n\
             | sent | routed |\n\
             | group | `tasks` |\n\
             \n**Parameters the model fills**\n\n\
             | parameter | JSON type | | description |\n|---|---|---|---|\n\
             | `ids` | array of integer | required | The tasks. |\n\
             | `priority` | [`Priority`](Priority) | optional, default `Priority::High` (Rust) | How urgent. |\n\
             | `limit` | integer | optional, default `20` | At most \\| this many. |\n\
             | `confirmed` | boolean | optional, default `false` | Added by toolkit to every `confirm` tool. Set to true only after the user has seen this tool's preview and agreed to it. Without it (or with false) the tool does not act: it returns that preview. |\n"
        );
    }

    /// Editing `[package.metadata.toolkit]` must recompile the crate: the expansion
    /// names the manifest in `include_bytes!`, which makes rustc track the file.
    #[test]
    fn the_expansion_tracks_the_crate_manifest() {
        let expanded = super::tool(
            quote!(scope = shared, tier = auto),
            quote! {
                #[doc = " Get things."]
                fn get_things() {}
            },
        )
        .to_string();
        let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let tracked = format!(
            "const _ : & [u8] = :: core :: include_bytes ! ({:?}) ;",
            manifest.display().to_string()
        );
        assert!(expanded.contains(&tracked), "{tracked} not in {expanded}");
        assert!(!expanded.contains("compile_error"), "{expanded}");
    }
}

//! The registry entry and the handle: the `static` `Tool` the distributed slice
//! holds, the checks on `#[ctx]` bindings, and the struct named after the function
//! with its `NAME`, `SCOPE`, `TIER` and `definition()`.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::{LitStr, parse_quote};

use crate::ast::{CONFIRMED_DOC, ParamKind, is_option};
use crate::attr::Keyword;
use crate::docs_section;
use crate::expand::arguments::Arguments;
use crate::expand::dispatch::{Dispatcher, output_type};
use crate::expand::{respan, span_of};
use crate::valid::Checked;

pub(super) fn expand(
    checked: &Checked<'_>,
    private: &TokenStream,
    arguments: &Arguments,
    dispatcher: &Dispatcher,
) -> TokenStream {
    let Checked {
        name,
        description,
        scope,
        tier,
        attr,
        func,
        manifest,
    } = checked;
    let Arguments {
        fields,
        argument_types,
        defaults,
        params,
        ..
    } = arguments;
    let Dispatcher {
        kind: dispatch_kind,
        function: dispatch_fn,
    } = dispatcher;
    let serde_path = quote!(#private::serde).to_string();
    let schemars_path = quote!(#private::schemars).to_string();
    let fn_ident = &func.item.sig.ident;
    let vis = &func.item.vis;
    let is_confirm = checked.tier.word == "confirm";
    let context_params: Vec<_> = func
        .params
        .iter()
        .filter(|param| matches!(param.kind, ParamKind::Context { .. }))
        .collect();
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
        .filter(|param| !is_option(&param.ty))
        .map(|param| {
            let span = span_of(&param.ty);
            let ty = respan(param.ty.to_token_stream(), span);
            let private = respan(private.clone(), span);
            quote_spanned! {span=>
                <<#ty as #private::FromContext>::Binding as #private::BindingKind>::BINDING
            }
        });
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
    let tier_variant = format_ident!("{}", tier.variant);
    let task = match attr.task {
        Some((task, _)) => {
            let variant = format_ident!("{}", task.variant);
            quote!(#private::TaskSupport::#variant)
        }
        None => quote!(#private::TaskSupport::default_for(#private::Tier::#tier_variant)),
    };
    let tier = format_ident!("{}", tier.variant);
    let always = attr.always;
    let asks_first = attr.asks_first.is_some();
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
    let examples = &attr.examples;
    let asked_as = &attr.asked_as;
    let quota = match attr.quota {
        Some(quota) => {
            let count = quota.count;
            let period = format_ident!("{}", quota.period);
            quote!(::core::option::Option::Some(#private::Quota::declared(#count, #private::Period::#period)))
        }
        None => quote!(::core::option::Option::None),
    };
    let track_manifest = manifest.as_ref().map(|path| {
        quote!(
            const _: &[u8] = ::core::include_bytes!(#path);
        )
    });
    // The file of `examples = "path.json"`, tracked like the manifest.
    let track_examples = attr.examples_file.as_ref().map(|path| {
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
            #track_examples

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
                match __toolkit_parse(__toolkit_arguments) {
                    ::core::result::Result::Ok(_) => ::core::result::Result::Ok(()),
                    ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
                }
            }

            #dispatch_fn

            #[#private::linkme::distributed_slice(#private::TOOLS)]
            #[linkme(crate = #private::linkme)]
            static __TOOLKIT_TOOL: #private::Tool = #private::Tool {
                name: #name,
                description: #description,
                scope: #private::Scope::#scope,
                tier: #private::Tier::#tier,
                task: #task,
                always: #always,
                asks_first: #asks_first,
                group: #group,
                aliases: &[#(#aliases),*],
                guidance: #guidance,
                title: #title,
                gate: #gate,
                tags: &[#(#tags),*],
                examples: &[#(#examples),*],
                asked_as: &[#(#asked_as),*],
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
                quota: #quota,
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

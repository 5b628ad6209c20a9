//! The argument struct the model's JSON is parsed into: one field per parameter
//! the model fills (and `confirmed` on a `confirm` tool), the newtypes that check
//! a parameter's type on the user's token, and the functions behind `default =`.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::{LitStr, Type};

use crate::ast::{CONFIRMED, CONFIRMED_DOC, ParamKind, SerdeField, is_plain_std, unraw};
use crate::expand::{respan, span_of, span_of_expr};
use crate::valid::Checked;

/// The pieces of the argument struct, and what the registry lists of each field.
pub(super) struct Arguments {
    /// The struct's fields.
    pub(super) fields: Vec<TokenStream>,
    /// The newtypes some fields have.
    pub(super) argument_types: Vec<TokenStream>,
    /// The patterns that take the struct apart into the function's arguments.
    pub(super) patterns: Vec<TokenStream>,
    /// The functions `#[serde(default = "..")]` names.
    pub(super) defaults: Vec<TokenStream>,
    /// `toolkit::definition::Param` metadata, one per field.
    pub(super) params: Vec<TokenStream>,
}

pub(super) fn expand(checked: &Checked<'_>, private: &TokenStream) -> Arguments {
    let func = checked.func;
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
            ..
        } = &param.kind
        else {
            continue;
        };
        let ident = &param.ident;
        let ty = &param.ty;
        let span = span_of(ty);
        let doc = description.as_deref().unwrap_or_default();
        let serde_field = SerdeField::read(field_attrs);
        // The field's type: the parameter's own, or a local newtype whose serde and
        // schemars impls always exist, so the derives never report a missing trait;
        // the newtype's impls check the parameter's type once, on the user's token.
        let plain = serde_field.custom || is_plain_std(ty);
        let (field_ty, pattern) = if plain {
            (ty.to_token_stream(), quote!(#ident))
        } else {
            let wrapper = format_ident!("__toolkit_arg_{}", unraw(ident), span = span);
            argument_types.push(argument_type(
                &wrapper,
                ty,
                private,
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
    Arguments {
        fields,
        argument_types,
        patterns,
        defaults,
        params,
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
                    DeriveDeserializeOn as _, MarkTheParameterCtx as _, ViaContext as _, ViaModel as _,
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
            use #private::diagnostics::{DeriveJsonSchemaOn as _, ViaDeserialize as _, ViaNoDeserialize as _};
            #probe.schema_kind().schema(::core::marker::PhantomData::<#ty>)
        }
    }
}

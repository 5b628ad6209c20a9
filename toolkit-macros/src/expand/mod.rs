//! Code generation for a tool that passed every rule: the user's function, its
//! argument struct (`arguments`), its dispatcher (`dispatch`), and its registry
//! entry and handle (`registry`).

mod arguments;
mod dispatch;
mod registry;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Type;

use crate::valid::Checked;

pub(crate) fn expand(checked: &Checked<'_>) -> TokenStream {
    let krate: syn::Path = checked
        .attr
        .krate
        .clone()
        .unwrap_or_else(crate::krate::default_path);
    let private = quote!(#krate::__private);
    let arguments = arguments::expand(checked, &private);
    let dispatcher = dispatch::expand(checked, &private, &arguments.patterns);
    registry::expand(checked, &private, &arguments, &dispatcher)
}

/// `tokens` with every span set to `span`, so a type error in a call to a
/// `__private` helper points only at the user's token, not also at the attribute.
pub(crate) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
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

pub(crate) fn span_of(ty: &Type) -> Span {
    syn::spanned::Spanned::span(ty)
}

pub(crate) fn span_of_expr(expr: &syn::Expr) -> Span {
    syn::spanned::Spanned::span(expr)
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use crate::ast::Place;

    /// The rustdoc section: a table with a header, each parameter's JSON type,
    /// defaults as JSON, `confirmed` on a confirm tool, and the preview linked.
    #[test]
    fn the_rustdoc_section_shows_the_tool_as_the_model_sees_it() {
        let expanded = crate::run(
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
            |_| Place::Free,
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
        let expanded = crate::run(
            quote!(scope = shared, tier = auto),
            quote! {
                #[doc = " Get things."]
                fn get_things() {}
            },
            |_| Place::Free,
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

//! The rustdoc section `#[tool]` appends to the function: the tool as the model and
//! the access checks see it.

use std::fmt::Write as _;

use crate::ast::{ParamKind, ToolFn};
use crate::attr::{Keyword, ToolAttr};

pub(crate) fn render(
    name: &str,
    scope: Keyword,
    tier: Keyword,
    attr: &ToolAttr,
    func: &ToolFn,
) -> String {
    let mut out = String::from("\n\n# Tool `");
    out.push_str(name);
    out.push_str("`\n\n| | |\n|---|---|\n");
    let _ = writeln!(out, "| scope | `{}` |", scope.word);
    let _ = writeln!(out, "| tier | `{}` |", tier.word);
    let _ = writeln!(
        out,
        "| sent | {} |",
        if attr.always { "always" } else { "routed" }
    );
    if let Some(group) = &attr.group {
        let _ = writeln!(out, "| group | `{}` |", group.value());
    }
    if !attr.aliases.is_empty() {
        let aliases: Vec<String> = attr
            .aliases
            .iter()
            .map(|alias| format!("`{}`", alias.value()))
            .collect();
        let _ = writeln!(out, "| aliases | {} |", aliases.join(", "));
    }
    if let Some(gate) = &attr.gate {
        let _ = writeln!(out, "| gate | `{}` |", gate.value());
    }
    if !attr.tags.is_empty() {
        let tags: Vec<String> = attr
            .tags
            .iter()
            .map(|tag| format!("`{}`", tag.value()))
            .collect();
        let _ = writeln!(out, "| tags | {} |", tags.join(", "));
    }
    if let Some(guidance) = &attr.guidance {
        let _ = writeln!(
            out,
            "| guidance | {} |",
            guidance.value().replace('|', "\\|")
        );
    }
    out.push_str("\n**Parameters the model fills**\n\n");
    let mut any = false;
    for param in func.model_params() {
        let ParamKind::Model {
            description,
            default,
            optional,
            ..
        } = &param.kind
        else {
            continue;
        };
        any = true;
        let requirement = match default {
            Some(expr) => format!("optional, default `{}`", quote::quote!(#expr)),
            None if *optional => "optional".to_owned(),
            None => "required".to_owned(),
        };
        let text = description
            .as_deref()
            .unwrap_or_default()
            .replace('\n', " ");
        let _ = writeln!(out, "- `{}` ({requirement}): {text}", param.model_name());
    }
    if !any {
        out.push_str("None.\n");
    }
    out
}

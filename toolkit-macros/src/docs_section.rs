//! The rustdoc section `#[tool]` appends to the function: the tool as the model and
//! the access checks see it.
//!
//! Rustdoc is static, so everything here is read from the syntax: a parameter's
//! JSON type comes from its Rust type (a type of your own is linked, and its page
//! lists its values), and a default is shown as JSON when it is a literal (or an
//! empty collection, `None`, ..) and as the Rust expression otherwise.

use std::fmt::Write as _;

use quote::ToTokens;
use syn::{Expr, GenericArgument, Lit, PathArguments, Type, UnOp};

use crate::ast::{ParamKind, ToolFn};
use crate::attr::{Keyword, ToolAttr};

pub(crate) fn render(
    name: &str,
    scope: Keyword,
    tier: Keyword,
    attr: &ToolAttr,
    func: &ToolFn,
    confirmed_doc: Option<&str>,
) -> String {
    let mut out = String::from("\n\n# Tool `");
    out.push_str(name);
    out.push_str("`\n\n| property | value |\n|---|---|\n");
    let _ = writeln!(out, "| scope | `{}` |", scope.word);
    let preview = attr
        .preview
        .as_ref()
        .map(|path| {
            format!(
                " (preview: [`{}`])",
                tidy(&path.to_token_stream().to_string())
            )
        })
        .unwrap_or_default();
    let _ = writeln!(out, "| tier | `{}`{preview} |", tier.word);
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
        let _ = writeln!(out, "| guidance | {} |", cell(&guidance.value()));
    }
    let mut rows = Vec::new();
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
        let requirement = match default {
            Some(expr) => format!("optional, default {}", default_text(expr)),
            None if *optional => "optional".to_owned(),
            None => "required".to_owned(),
        };
        rows.push(format!(
            "| `{}` | {} | {requirement} | {} |",
            param.model_name(),
            json_type(&param.ty),
            cell(description.as_deref().unwrap_or_default())
        ));
    }
    if let Some(doc) = confirmed_doc {
        rows.push(format!(
            "| `confirmed` | boolean | optional, default `false` | Added by toolkit to every `confirm` tool. {} |",
            cell(doc)
        ));
    }
    if rows.is_empty() {
        out.push_str("\nThe model fills no parameters.\n");
    } else {
        out.push_str("\n**Parameters the model fills**\n\n| parameter | JSON type | | description |\n|---|---|---|---|\n");
        for row in rows {
            out.push_str(&row);
            out.push('\n');
        }
    }
    if !attr.examples.is_empty() {
        out.push_str("\n**Example arguments** (sent to Anthropic as `input_examples`)\n\n");
        for example in &attr.examples {
            let _ = writeln!(out, "- `{}`", example.value().trim());
        }
    }
    if !attr.asked_as.is_empty() {
        out.push_str("\n**Asked as** (read by the router, never sent to the model)\n\n");
        for message in &attr.asked_as {
            let _ = writeln!(out, "- \"{}\"", message.value().trim());
        }
    }
    out
}

/// Text for one table cell: on one line, `|` escaped.
fn cell(text: &str) -> String {
    text.replace('\n', " ").replace('|', "\\|")
}

/// Token text as a user writes it: `Priority::Normal`, not `Priority :: Normal`.
fn tidy(text: &str) -> String {
    let mut text = text.to_owned();
    for (spaced, tight) in [
        (" :: ", "::"),
        (":: ", "::"),
        (" < ", "<"),
        ("< ", "<"),
        (" >", ">"),
        (" ,", ","),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" !", "!"),
        ("[ ", "["),
        (" ]", "]"),
        ("& ", "&"),
    ] {
        text = text.replace(spaced, tight);
    }
    text
}

/// The default as the model receives it, where the syntax says it: JSON for
/// literals, `None` and empty collections; the Rust expression otherwise (the
/// schema's `default` carries its JSON).
fn default_text(expr: &Expr) -> String {
    match json_literal(expr) {
        Some(json) => format!("`{json}`"),
        None => format!("`{}` (Rust)", tidy(&expr.to_token_stream().to_string())),
    }
}

fn json_literal(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Str(text) => Some(json_string(&text.value())),
            Lit::Char(c) => Some(json_string(&c.value().to_string())),
            Lit::Bool(value) => Some(value.value.to_string()),
            Lit::Int(int) => Some(int.base10_digits().to_owned()),
            Lit::Float(float) => Some(float.base10_digits().to_owned()),
            _ => None,
        },
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => {
            json_literal(&unary.expr).map(|digits| format!("-{digits}"))
        }
        Expr::Paren(paren) => json_literal(&paren.expr),
        Expr::Group(group) => json_literal(&group.expr),
        Expr::Path(path) if path.path.is_ident("None") => Some("null".to_owned()),
        Expr::Macro(mac) if mac.mac.path.is_ident("vec") && mac.mac.tokens.is_empty() => {
            Some("[]".to_owned())
        }
        Expr::MethodCall(call) if call.method == "to_owned" || call.method == "to_string" => {
            match &*call.receiver {
                Expr::Lit(_) => json_literal(&call.receiver),
                _ => None,
            }
        }
        Expr::Call(call) if call.args.is_empty() => {
            let Expr::Path(function) = &*call.func else {
                return None;
            };
            let segments: Vec<String> = function
                .path
                .segments
                .iter()
                .map(|segment| segment.ident.to_string())
                .collect();
            match segments.as_slice() {
                [.., owner, new] if new == "new" => match owner.as_str() {
                    "String" => Some("\"\"".to_owned()),
                    "Vec" | "VecDeque" | "HashSet" | "BTreeSet" => Some("[]".to_owned()),
                    "HashMap" | "BTreeMap" => Some("{}".to_owned()),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The JSON type a Rust type stands for, as far as the syntax says: primitives,
/// collections and wrappers by name; a type of your own is linked.
fn json_type(ty: &Type) -> String {
    match ty {
        Type::Paren(paren) => json_type(&paren.elem),
        Type::Group(group) => json_type(&group.elem),
        Type::Array(array) => format!("array of {}", json_type(&array.elem)),
        Type::Slice(slice) => format!("array of {}", json_type(&slice.elem)),
        Type::Tuple(tuple) if tuple.elems.is_empty() => "null".to_owned(),
        Type::Tuple(_) => "array".to_owned(),
        Type::Path(path) if path.qself.is_none() => {
            let Some(last) = path.path.segments.last() else {
                return "any".to_owned();
            };
            let arguments: Vec<&Type> = match &last.arguments {
                PathArguments::AngleBracketed(arguments) => arguments
                    .args
                    .iter()
                    .filter_map(|argument| match argument {
                        GenericArgument::Type(ty) => Some(ty),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let name = last.ident.to_string();
            match (name.as_str(), arguments.as_slice()) {
                ("String" | "str" | "char" | "PathBuf", _) => "string".to_owned(),
                ("bool", _) => "boolean".to_owned(),
                (
                    "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64"
                    | "i128" | "isize",
                    _,
                ) => "integer".to_owned(),
                (name, _) if name.starts_with("NonZero") => "integer".to_owned(),
                ("f32" | "f64", _) => "number".to_owned(),
                ("Value", []) => "any JSON".to_owned(),
                ("Option" | "Box" | "Arc" | "Rc", [inner]) => json_type(inner),
                ("Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "IndexSet", [inner]) => {
                    format!("array of {}", json_type(inner))
                }
                ("HashMap" | "BTreeMap" | "IndexMap", [_, value]) => {
                    format!("object of {}", json_type(value))
                }
                _ => {
                    let path = tidy(&path.path.to_token_stream().to_string());
                    let plain = path.split('<').next().unwrap_or(&path).to_owned();
                    format!("[`{path}`]({plain})")
                }
            }
        }
        _ => "any".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_types_from_rust_types() {
        let cases = [
            ("Option<u32>", "integer"),
            ("Vec<String>", "array of string"),
            ("BTreeMap<String, u32>", "object of integer"),
            ("Vec<Priority>", "array of [`Priority`](Priority)"),
            ("crate::Delivery", "[`crate::Delivery`](crate::Delivery)"),
            ("serde_json::Value", "any JSON"),
            ("(u32, u32)", "array"),
        ];
        for (ty, expected) in cases {
            let ty: Type = syn::parse_str(ty).expect("a type");
            assert_eq!(json_type(&ty), expected);
        }
    }

    #[test]
    fn examples_and_asked_as_close_the_section() {
        let mut errors = crate::ctxt::Ctxt::new();
        let attr = ToolAttr::parse(
            quote::quote!(
                scope = shared,
                tier = auto,
                examples = [r#"{"id": 3}"#],
                asked_as = ["where is task 3?"]
            ),
            &mut errors,
        );
        let item: syn::ItemFn = syn::parse_quote! {
            /// Get tasks.
            fn get_tasks(
                /// The task.
                id: u32,
            ) -> u32 { id }
        };
        let func = ToolFn::parse(item, crate::ast::Place::Free, &mut errors);
        errors.check().expect("a valid tool");
        let section = render(
            "get_tasks",
            attr.scope.expect("scope"),
            attr.tier.expect("tier"),
            &attr,
            &func,
            None,
        );
        assert!(
            section.ends_with(
                "| `id` | integer | required | The task. |\n\
                 \n**Example arguments** (sent to Anthropic as `input_examples`)\n\n\
                 - `{\"id\": 3}`\n\
                 \n**Asked as** (read by the router, never sent to the model)\n\n\
                 - \"where is task 3?\"\n"
            ),
            "{section}"
        );
    }

    #[test]
    fn defaults_as_json_where_the_syntax_says() {
        let cases = [
            ("20", "`20`"),
            ("-1.5", "`-1.5`"),
            ("\"a \\\"b\\\"\"", "`\"a \\\"b\\\"\"`"),
            ("false", "`false`"),
            ("None", "`null`"),
            ("Vec::new()", "`[]`"),
            ("BTreeMap::new()", "`{}`"),
            ("\"x\".to_owned()", "`\"x\"`"),
            ("Priority::Normal", "`Priority::Normal` (Rust)"),
        ];
        for (expr, expected) in cases {
            let expr: Expr = syn::parse_str(expr).expect("an expression");
            assert_eq!(default_text(&expr), expected);
        }
    }
}

//! The values written in `#[tool(...)]`, against each other and the function:
//! aliases, optional texts, the description, the tier's `preview`, and the keys
//! every tool must declare.

use std::fmt::Write as _;

use proc_macro2::Span;
use quote::{ToTokens, quote};

use crate::ast::{CONFIRMED, Param, ParamKind, SerdeField, ToolFn};
use crate::attr::ToolAttr;
use crate::ctxt::Ctxt;
use crate::suggest::closest;
use crate::valid::name::check_format;
use crate::valid::params::type_text;

/// The longest description providers accept without complaint.
pub(crate) const MAX_DESCRIPTION: usize = 1024;

/// Aliases, the optional texts (`group`, `guidance`, `title`, `gate`) and tags.
pub(crate) fn check_values(attr: &ToolAttr, name: &str, errors: &mut Ctxt) {
    let mut seen_aliases: Vec<String> = Vec::new();
    for alias in &attr.aliases {
        let value = alias.value();
        if check_format(&value, "alias", alias.span(), errors) {
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
}

/// The tool's description: `description = ".."`, or its doc comments.
pub(crate) fn check_description(
    attr: &ToolAttr,
    func: &ToolFn,
    name: &str,
    errors: &mut Ctxt,
) -> Option<String> {
    let ident = &func.item.sig.ident;
    match &attr.description {
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
    }
}

fn check_length(text: &str, source: impl ToTokens, errors: &mut Ctxt) {
    let length = text.chars().count();
    if length > MAX_DESCRIPTION {
        errors.error(
            source,
            format!("the description is {length} characters long, over the {MAX_DESCRIPTION} providers accept; move details into parameter docs or `guidance = \"...\"`"),
        );
    }
}

/// `preview` belongs to `confirm` tools, their `confirmed` argument to toolkit,
/// and `asks_first` to tools that may be tasks.
pub(crate) fn check_confirm(attr: &ToolAttr, func: &ToolFn, errors: &mut Ctxt) {
    let Some(tier) = attr.tier else {
        return;
    };
    // `asks_first` says when a task begins: a tool that is never a task, or an
    // `approve` tool (a task once a person is asked), has none to begin.
    if let Some(span) = attr.asks_first {
        let task = attr.task.map(|(task, _)| task.word);
        if tier.word == "approve" {
            errors.at(
                span,
                "an `approve` tool cannot ask first: its call becomes a task when a person is asked to approve it; remove `asks_first`, or make the tool `tier = auto`",
            );
        } else if !matches!(task, Some("optional" | "required")) {
            errors.at(
                span,
                "`asks_first` says when a call becomes a task, and this tool is never one; add `task = required` (or `task = optional`), or remove `asks_first`",
            );
        }
    }
    if tier.word == "confirm" {
        for param in func.model_params() {
            if param.model_name() == CONFIRMED {
                errors.error(
                    &param.ident,
                    "a `confirm` tool cannot have a parameter named `confirmed`: toolkit adds that argument itself (the model sets it to `true` once the user agreed to the preview); rename the parameter",
                );
            }
        }
        // The preview is the first call's answer, given in the request: a call
        // that returned a task handle instead would show the model nothing to
        // confirm, and the confirmed call is a second call of its own.
        if let Some((task, span)) = attr.task
            && task.word != "forbidden"
        {
            errors.at(
                span,
                format!(
                    "a `confirm` tool cannot be a task: its first call answers with the preview, in the same request, and only the confirmed call runs; remove `task = {}`, or make the tool `tier = auto` (or `approve`, where a person approves a task)",
                    task.word
                ),
            );
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

/// `scope` and `tier`, which every tool declares.
pub(crate) fn check_required(attr: &ToolAttr, errors: &mut Ctxt) {
    let scope = attr.scope;
    let tier = attr.tier;
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
}

/// `examples = [..]`: each a JSON object whose keys are the tool's arguments,
/// whose values fit the parameters the macro can read the types of (`String`,
/// `bool`, the number types, `Option` and `Vec` of them), and which never set a
/// `confirm` tool's `confirmed`; and `asked_as = [..]`: each a message someone
/// could send, on a routed tool. Values of other types are checked by the
/// registry when it is built (`toolkit::registry::try_registry`'s
/// `InvalidExample`, naming the tool and the example), with serde's own messages.
pub(crate) fn check_examples(attr: &ToolAttr, func: &ToolFn, errors: &mut Ctxt) {
    let confirm = attr.tier.is_some_and(|tier| tier.word == "confirm");
    let names: Vec<String> = func.model_params().map(Param::model_name).collect();
    // A flattened field brings keys the macro cannot see.
    let flattened = func.model_params().any(|param| match &param.kind {
        ParamKind::Model { field_attrs, .. } => field_attrs
            .iter()
            .any(|attr| attr.to_token_stream().to_string().contains("flatten")),
        ParamKind::Context { .. } => false,
    });
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    for (position, example) in attr.examples.iter().enumerate() {
        // From a file every example points at the path, so the message says which.
        let this = match &attr.examples_written {
            Some(file) => format!("example {} of `{file}`", position + 1),
            None => "this example".to_owned(),
        };
        let text = example.value();
        let value: serde_json::Value = match serde_json::from_str(&text) {
            Ok(value) => value,
            Err(error) => {
                let trimmed = text.trim();
                let message = if !trimmed.starts_with(['{', '['])
                    && std::path::Path::new(trimmed)
                        .extension()
                        .is_some_and(|extension| extension.eq_ignore_ascii_case("json"))
                {
                    format!(
                        "`{trimmed}` is a file's path, not an example; for a file of examples write `examples = \"{trimmed}\"`, without `[..]`"
                    )
                } else {
                    format!(
                        "{this} is not JSON ({error}); write the arguments as a JSON object in a raw string, like `r#\"{{\"id\": 3}}\"#`"
                    )
                };
                errors.error(example, message);
                continue;
            }
        };
        let Some(object) = value.as_object() else {
            let message = if attr.examples_written.is_some() {
                format!(
                    "{this} is {}, and an example is the tool's arguments, a JSON object; write it like `{{\"id\": 3}}`",
                    json_kind(&value)
                )
            } else {
                format!(
                    "an example is the tool's arguments, a JSON object, not {}; write it like `r#\"{{\"id\": 3}}\"#`",
                    json_kind(&value)
                )
            };
            errors.error(example, message);
            continue;
        };
        for (key, value) in object {
            if confirm && key == CONFIRMED {
                errors.error(
                    example,
                    format!(
                        "{this} sets `{CONFIRMED}`, which a `confirm` tool's examples leave out: the model would learn to set it and skip the preview the user must see first; remove `\"{CONFIRMED}\": {value}`"
                    ),
                );
                continue;
            }
            if let Some(param) = func.model_params().find(|param| param.model_name() == *key) {
                if let Some(problem) = misfit(param, value) {
                    errors.error(example, format!("`{key}` in {this} {problem}"));
                }
                continue;
            }
            if flattened {
                continue;
            }
            let mut message = if names.is_empty() {
                format!(
                    "unknown argument `{key}` in {this}; the tool takes no arguments, so its example is `\"{{}}\"`"
                )
            } else {
                format!(
                    "unknown argument `{key}` in {this}; expected one of {}",
                    names.join(", ")
                )
            };
            if let Some(guess) = closest(key, &names) {
                let _ = write!(message, " (did you mean `{guess}`?)");
            }
            errors.error(example, message);
        }
    }
    for message in &attr.asked_as {
        if message.value().trim().is_empty() {
            errors.error(
                message,
                "empty message in `asked_as`; write what a user would say, or remove it",
            );
        }
    }
    if attr.always
        && let (Some(first), Some(last)) = (attr.asked_as.first(), attr.asked_as.last())
    {
        errors.error(
            quote!(#first #last),
            "`asked_as` teaches the router when to pick a tool, and an `always` tool is sent with every request without being routed, so these messages would never be used; remove `asked_as`, or remove `always` to let the router pick this tool",
        );
    }
}

/// Why `value` cannot fill `param`, for the types whose JSON the macro knows by
/// their spelling; `None` when it fits or the type is not one of those.
fn misfit(param: &Param, value: &serde_json::Value) -> Option<String> {
    if let ParamKind::Model { field_attrs, .. } = &param.kind
        && SerdeField::read(field_attrs).custom
    {
        return None;
    }
    let problem = fits(&param.ty, value)?;
    let mut message = format!("{problem}, but the parameter is `{}`", type_text(&param.ty));
    if let Some(expected) = expected(&param.ty) {
        let _ = write!(message, ": write {expected}");
    }
    Some(message)
}

/// What JSON fills `ty` (spelled as a standard type), in words.
fn expected(ty: &syn::Type) -> Option<String> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let segment = path.path.segments.last()?;
    let inner = match &segment.arguments {
        syn::PathArguments::AngleBracketed(arguments) => match arguments.args.first()? {
            syn::GenericArgument::Type(inner) => Some(inner),
            _ => None,
        },
        _ => None,
    };
    Some(match (segment.ident.to_string().as_str(), inner) {
        ("Option", Some(inner)) => format!("{}, or `null`", expected(inner)?),
        ("Vec", Some(inner)) => format!("a list of which each item is {}", expected(inner)?),
        ("String", None) => "a string, like `\"text\"`".to_owned(),
        ("bool", None) => "`true` or `false`".to_owned(),
        ("f32" | "f64", None) => "a number, like `2.5`".to_owned(),
        ("u8" | "u16" | "u32" | "u64" | "usize", None) => {
            "a whole number from 0, like `3`".to_owned()
        }
        ("i8" | "i16" | "i32" | "i64" | "isize", None) => "a whole number, like `3`".to_owned(),
        _ => return None,
    })
}

/// Why `value` is not JSON of type `ty` (spelled as a standard type), like "is a
/// string"; `None` when it is, or `ty` is not spelled as a standard type.
fn fits(ty: &syn::Type, value: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    let syn::Type::Path(path) = ty else {
        return None;
    };
    if path.qself.is_some() || path.path.leading_colon.is_some() || path.path.segments.len() != 1 {
        return None;
    }
    let segment = &path.path.segments[0];
    let name = segment.ident.to_string();
    let inner = match &segment.arguments {
        syn::PathArguments::None => None,
        syn::PathArguments::AngleBracketed(arguments) if arguments.args.len() == 1 => {
            match &arguments.args[0] {
                syn::GenericArgument::Type(inner) => Some(inner),
                _ => return None,
            }
        }
        _ => return None,
    };
    let is = |value: &Value| format!("is {}", json_kind(value));
    match (name.as_str(), inner) {
        ("Option", Some(inner)) => match value {
            Value::Null => None,
            _ => fits(inner, value),
        },
        ("Vec", Some(inner)) => match value {
            Value::Array(items) => items.iter().enumerate().find_map(|(index, item)| {
                fits(inner, item).map(|problem| format!("has an item {} that {problem}", index + 1))
            }),
            _ => Some(is(value)),
        },
        ("String", None) => (!value.is_string()).then(|| is(value)),
        ("bool", None) => (!value.is_boolean()).then(|| is(value)),
        ("f32" | "f64", None) => (!value.is_number()).then(|| is(value)),
        (integer, None) => {
            let (low, high): (i128, i128) = match integer {
                "u8" => (0, u8::MAX.into()),
                "u16" => (0, u16::MAX.into()),
                "u32" => (0, u32::MAX.into()),
                "u64" | "usize" => (0, u64::MAX.into()),
                "i8" => (i8::MIN.into(), i8::MAX.into()),
                "i16" => (i16::MIN.into(), i16::MAX.into()),
                "i32" => (i32::MIN.into(), i32::MAX.into()),
                "i64" | "isize" => (i64::MIN.into(), i64::MAX.into()),
                _ => return None,
            };
            let whole = value
                .as_i64()
                .map(i128::from)
                .or_else(|| value.as_u64().map(i128::from));
            match whole {
                Some(number) if (low..=high).contains(&number) => None,
                Some(number) => Some(format!("is {number}, out of the type's range")),
                None if value.is_number() => Some(format!("is {value}, not a whole number")),
                None => Some(is(value)),
            }
        }
        _ => None,
    }
}

fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

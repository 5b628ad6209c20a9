//! The values written in `#[tool(...)]`, against each other and the function:
//! aliases, optional texts, the description, the tier's `preview`, and the keys
//! every tool must declare.

use std::fmt::Write as _;

use proc_macro2::Span;
use quote::{ToTokens, quote};

use crate::ast::{CONFIRMED, Param, ParamKind, ToolFn};
use crate::attr::ToolAttr;
use crate::ctxt::Ctxt;
use crate::suggest::closest;
use crate::valid::name::check_format;

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

/// `preview` belongs to `confirm` tools, and their `confirmed` argument to toolkit.
pub(crate) fn check_confirm(attr: &ToolAttr, func: &ToolFn, errors: &mut Ctxt) {
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

/// `examples = [..]`: each a JSON object whose keys are the tool's arguments, and
/// `asked_as = [..]`: each a message someone could send. Whether an example's
/// values fit the argument types is checked by the registry, with serde's own
/// messages: the macro sees the types only as tokens.
pub(crate) fn check_examples(attr: &ToolAttr, func: &ToolFn, errors: &mut Ctxt) {
    let mut names: Vec<String> = func.model_params().map(Param::model_name).collect();
    if attr.tier.is_some_and(|tier| tier.word == "confirm") {
        names.push(CONFIRMED.to_owned());
    }
    // A flattened field brings keys the macro cannot see.
    let flattened = func.model_params().any(|param| match &param.kind {
        ParamKind::Model { field_attrs, .. } => field_attrs
            .iter()
            .any(|attr| attr.to_token_stream().to_string().contains("flatten")),
        ParamKind::Context { .. } => false,
    });
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    for example in &attr.examples {
        let value: serde_json::Value = match serde_json::from_str(&example.value()) {
            Ok(value) => value,
            Err(error) => {
                errors.error(
                    example,
                    format!(
                        "this example is not JSON ({error}); write the arguments as a JSON object in a raw string, like `r#\"{{\"id\": 3}}\"#`"
                    ),
                );
                continue;
            }
        };
        let Some(object) = value.as_object() else {
            errors.error(
                example,
                format!(
                    "an example is the tool's arguments, a JSON object, not {}; write it like `r#\"{{\"id\": 3}}\"#`",
                    json_kind(&value)
                ),
            );
            continue;
        };
        if flattened {
            continue;
        }
        for key in object.keys() {
            if !names.contains(&key.as_str()) {
                let mut message = if names.is_empty() {
                    format!(
                        "unknown argument `{key}` in this example; the tool takes no arguments, so its example is `\"{{}}\"`"
                    )
                } else {
                    format!(
                        "unknown argument `{key}` in this example; expected one of {}",
                        names.join(", ")
                    )
                };
                if let Some(guess) = closest(key, &names) {
                    let _ = write!(message, " (did you mean `{guess}`?)");
                }
                errors.error(example, message);
            }
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

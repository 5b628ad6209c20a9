//! The tool's own name: its characters, length, naming style and verb.

use std::fmt::Write as _;

use proc_macro2::Span;

use crate::config::{Config, Naming};
use crate::ctxt::Ctxt;
use crate::suggest::closest;

/// The longest name OpenAI and Anthropic accept.
const MAX_NAME: usize = 64;

/// Characters and length every name and alias must have: `[a-zA-Z0-9_-]{1,64}`.
pub(crate) fn check_format(name: &str, what: &str, span: Span, errors: &mut Ctxt) -> bool {
    if name.is_empty() {
        let fix = if what == "alias" {
            "remove it"
        } else {
            "name the tool `verb_resource`, like `get_tasks`"
        };
        errors.at(span, format!("{what} is empty; {fix}"));
        return false;
    }
    if let Some(bad) = name
        .chars()
        .find(|&c| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
    {
        let shown = match bad {
            ' ' => "a space".to_owned(),
            '\t' | '\n' | '\r' => "whitespace".to_owned(),
            other => format!("`{other}`"),
        };
        let mut message = format!(
            "{what} `{name}` contains {shown}; providers accept only ASCII letters, digits, `_` and `-`"
        );
        // Separators like `.`, `/` or spaces most likely meant `_`; other letters
        // have no safe replacement to suggest.
        if name.chars().all(|c| c.is_ascii_graphic() || c == ' ') {
            let fixed: String = name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let _ = write!(message, " (did you mean `{fixed}`?)");
        }
        errors.at(span, message);
        return false;
    }
    if name.len() > MAX_NAME {
        errors.at(
            span,
            format!(
                "{what} `{name}` is {} characters long; providers accept at most {MAX_NAME}",
                name.len()
            ),
        );
        return false;
    }
    true
}

/// The naming style and verb of a tool's own name.
pub(crate) fn check_name(name: &str, span: Span, config: &Config, errors: &mut Ctxt) {
    if !check_format(name, "tool name", span, errors) {
        return;
    }
    let verbs = config.verbs.join(", ");
    let (verb, resource) = match config.naming {
        Naming::Snake => {
            if name.chars().any(|c| c.is_ascii_uppercase() || c == '-') {
                let suggestion = to_snake(name);
                errors.at(
                    span,
                    format!("tool name `{name}` is not snake_case; write `{suggestion}`, or set `naming = \"camelCase\"` under [package.metadata.toolkit] in Cargo.toml"),
                );
                return;
            }
            match name.split_once('_') {
                Some((verb, resource)) => (verb, resource),
                None => (name, ""),
            }
        }
        Naming::Camel => {
            if name.contains(['_', '-']) || name.starts_with(|c: char| c.is_ascii_uppercase()) {
                let suggestion = to_camel(name);
                errors.at(
                    span,
                    format!("tool name `{name}` is not camelCase; write `{suggestion}`, or remove `naming = \"camelCase\"` from [package.metadata.toolkit] in Cargo.toml"),
                );
                return;
            }
            let split = name
                .find(|c: char| c.is_ascii_uppercase())
                .unwrap_or(name.len());
            name.split_at(split)
        }
    };
    let separator = if config.naming == Naming::Snake {
        "_"
    } else {
        ""
    };
    if !config.verbs.iter().any(|known| known == verb) {
        let mut message = if resource.is_empty() {
            format!(
                "tool name `{name}` does not start with a verb; expected `verb{separator}resource` with a verb from {verbs}"
            )
        } else {
            format!("unknown verb `{verb}` in tool name `{name}`; expected one of {verbs}")
        };
        if let Some(swapped) = verb_last(name, config) {
            let _ = write!(
                message,
                "; the verb comes first (did you mean `{swapped}`?)"
            );
        } else if let Some(better) = suggest_verb(verb, &config.verbs) {
            let renamed = if resource.is_empty() {
                format!(
                    "{better}{separator}{}",
                    if config.naming == Naming::Snake {
                        verb.to_owned()
                    } else {
                        capitalize(verb)
                    }
                )
            } else {
                format!("{better}{separator}{resource}")
            };
            let _ = write!(message, " (did you mean `{renamed}`?)");
        } else if !resource.is_empty() {
            message.push_str(
                "; to allow it, add it to `extra-verbs` under [package.metadata.toolkit] in Cargo.toml",
            );
        }
        errors.at(span, message);
        return;
    }
    if resource.is_empty() {
        let example = if config.naming == Naming::Snake {
            format!("{verb}_tasks")
        } else {
            format!("{verb}Tasks")
        };
        errors.at(
            span,
            format!("tool name `{name}` has no resource after the verb `{verb}`; name what it acts on, like `{example}`"),
        );
    }
}

/// A `resource_verb` name (`gmail_search`) turned around (`search_gmail`), when its
/// last word is a verb of the vocabulary.
fn verb_last(name: &str, config: &Config) -> Option<String> {
    match config.naming {
        Naming::Snake => {
            let (resource, verb) = name.rsplit_once('_')?;
            let known = !resource.is_empty() && config.verbs.iter().any(|known| known == verb);
            known.then(|| format!("{verb}_{resource}"))
        }
        Naming::Camel => {
            let split = name.rfind(|c: char| c.is_ascii_uppercase())?;
            let (resource, verb) = name.split_at(split);
            let verb = verb.to_ascii_lowercase();
            let known = split > 0 && config.verbs.contains(&verb);
            known.then(|| format!("{verb}{}", capitalize(resource)))
        }
    }
}

/// The vocabulary verb a stray verb most likely means.
fn suggest_verb<'a>(stray: &str, verbs: &'a [String]) -> Option<&'a str> {
    const STRAYS: &[(&str, &[&str])] = &[
        ("list", &["get", "search"]),
        ("fetch", &["get"]),
        ("read", &["get"]),
        ("show", &["get"]),
        ("load", &["get"]),
        ("retrieve", &["get"]),
        ("view", &["get"]),
        ("lookup", &["search", "get"]),
        ("find", &["search", "get"]),
        ("query", &["search", "get"]),
        ("filter", &["search", "get"]),
        ("add", &["create"]),
        ("store", &["create"]),
        ("new", &["create"]),
        ("insert", &["create"]),
        ("make", &["create"]),
        ("save", &["create"]),
        ("register", &["create"]),
        ("remove", &["delete"]),
        ("erase", &["delete"]),
        ("drop", &["delete"]),
        ("destroy", &["delete"]),
        ("trash", &["delete"]),
        ("edit", &["update"]),
        ("modify", &["update"]),
        ("change", &["update"]),
        ("patch", &["update"]),
        ("rename", &["update"]),
        ("configure", &["set"]),
        ("toggle", &["set"]),
        ("enable", &["set"]),
        ("connect", &["link"]),
        ("relate", &["link"]),
        ("attach", &["link"]),
        ("associate", &["link"]),
    ];
    let known = |verb: &str| {
        verbs
            .iter()
            .find(|known| known.as_str() == verb)
            .map(String::as_str)
    };
    if let Some((_, meant)) = STRAYS.iter().find(|(word, _)| *word == stray)
        && let Some(verb) = meant.iter().find_map(|&verb| known(verb))
    {
        return Some(verb);
    }
    let candidates: Vec<&str> = verbs.iter().map(String::as_str).collect();
    closest(stray, &candidates)
}

fn to_snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c == '-' {
            out.push('_');
        } else {
            out.push(c);
        }
    }
    out
}

fn to_camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper_next = false;
    for (i, c) in name.chars().enumerate() {
        if c == '_' || c == '-' {
            upper_next = !out.is_empty();
        } else if upper_next {
            out.push(c.to_ascii_uppercase());
            upper_next = false;
        } else if i == 0 {
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(name: &str, config: &Config) -> Vec<String> {
        let mut errors = Ctxt::new();
        check_name(name, Span::call_site(), config, &mut errors);
        errors
            .check()
            .err()
            .map(|error| error.into_iter().map(|e| e.to_string()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn accepts_vocabulary_names() {
        let config = Config::default_for_tests();
        for name in [
            "get_tasks",
            "update_instructions",
            "link_memories",
            "search_gmail",
            "get_x2",
        ] {
            assert_eq!(messages(name, &config), Vec::<String>::new(), "{name}");
        }
    }

    #[test]
    fn explains_stray_verbs() {
        let config = Config::default_for_tests();
        assert_eq!(
            messages("list_reminders", &config),
            [
                "unknown verb `list` in tool name `list_reminders`; expected one of get, create, update, delete, search, set, link (did you mean `get_reminders`?)"
            ]
        );
        assert_eq!(
            messages("store_memory", &config),
            [
                "unknown verb `store` in tool name `store_memory`; expected one of get, create, update, delete, search, set, link (did you mean `create_memory`?)"
            ]
        );
        assert_eq!(
            messages("gmail_search", &config),
            [
                "unknown verb `gmail` in tool name `gmail_search`; expected one of get, create, update, delete, search, set, link; the verb comes first (did you mean `search_gmail`?)"
            ]
        );
        assert_eq!(
            messages("memory_item_delete", &config),
            [
                "unknown verb `memory` in tool name `memory_item_delete`; expected one of get, create, update, delete, search, set, link; the verb comes first (did you mean `delete_memory_item`?)"
            ]
        );
        assert_eq!(
            messages("recall", &config),
            [
                "tool name `recall` does not start with a verb; expected `verb_resource` with a verb from get, create, update, delete, search, set, link"
            ]
        );
        assert_eq!(
            messages("get_", &config),
            [
                "tool name `get_` has no resource after the verb `get`; name what it acts on, like `get_tasks`"
            ]
        );
    }

    #[test]
    fn camel_case_crates() {
        let config = Config {
            naming: Naming::Camel,
            verbs: vec!["get".into(), "browse".into()],
            manifest: None,
        };
        assert_eq!(messages("getPage", &config), Vec::<String>::new());
        assert_eq!(messages("browseImages", &config), Vec::<String>::new());
        assert_eq!(
            messages("get_page", &config),
            [
                "tool name `get_page` is not camelCase; write `getPage`, or remove `naming = \"camelCase\"` from [package.metadata.toolkit] in Cargo.toml"
            ]
        );
        assert_eq!(
            messages("pageGet", &config),
            [
                "unknown verb `page` in tool name `pageGet`; expected one of get, browse; the verb comes first (did you mean `getPage`?)"
            ]
        );
        assert_eq!(
            messages("fetchContent", &config),
            [
                "unknown verb `fetch` in tool name `fetchContent`; expected one of get, browse (did you mean `getContent`?)"
            ]
        );
    }

    #[test]
    fn rejects_bad_characters_and_length() {
        let config = Config::default_for_tests();
        assert_eq!(
            messages("get.tasks", &config),
            [
                "tool name `get.tasks` contains `.`; providers accept only ASCII letters, digits, `_` and `-` (did you mean `get_tasks`?)"
            ]
        );
        assert_eq!(
            messages("get tâches", &config),
            [
                "tool name `get tâches` contains a space; providers accept only ASCII letters, digits, `_` and `-`"
            ]
        );
        let long = format!("get_{}", "x".repeat(61));
        assert_eq!(
            messages(&long, &config),
            [format!(
                "tool name `{long}` is 65 characters long; providers accept at most 64"
            )]
        );
    }
}

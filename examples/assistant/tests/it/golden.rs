//! Golden schemas: every assistant tool rendered in every provider dialect, pinned
//! with insta (`tests/it/snapshots/`). Any change to a tool's name, description,
//! parameters or types shows up here as a diff to review; accept an intended one
//! with `INSTA_UPDATE=always cargo test -p example-assistant --test it golden::`.
//!
//! The snapshots are the text a request carries, indented: key order included
//! (parameters in declaration order), which a parsed `Value` would not keep.

use serde_json::Value;
use toolkit::{Dialect, registry};

// Nothing else in this test names the crate, and the linker would drop its tools.
toolkit::link_tools!(example_assistant);

fn rendered(dialect: Dialect) -> Value {
    let rendered = registry().render(dialect);
    let value = rendered.to_value();
    match rendered.all_or_error() {
        Ok(_) => value,
        Err(error) => panic!("{error}"),
    }
}

/// The rendered text, indented two spaces per level, keys in the order written.
fn indented(dialect: Dialect) -> String {
    let json = registry()
        .render(dialect)
        .all_or_error()
        .unwrap_or_else(|error| panic!("{error}"));
    let mut out = String::with_capacity(json.len() * 2);
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    let mut chars = json.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                let close = if c == '{' { '}' } else { ']' };
                if chars.peek() == Some(&close) {
                    out.push(close);
                    chars.next();
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth -= 1;
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            _ => out.push(c),
        }
    }
    out
}

macro_rules! golden {
    ($($test:ident => $dialect:ident,)*) => {
        $(
            #[test]
            fn $test() {
                insta::assert_snapshot!(Dialect::$dialect.name(), indented(Dialect::$dialect));
            }
        )*

        #[test]
        fn every_dialect_is_pinned() {
            let pinned = [$(Dialect::$dialect),*];
            assert_eq!(pinned, Dialect::ALL);
        }
    };
}

golden! {
    openai_chat => OpenAiChat,
    openai_chat_strict => OpenAiChatStrict,
    openai_responses => OpenAiResponses,
    openai_responses_strict => OpenAiResponsesStrict,
    anthropic => Anthropic,
    anthropic_strict => AnthropicStrict,
    gemini_parameters => GeminiParameters,
    gemini_json_schema => GeminiJsonSchema,
    mcp => Mcp,
}

/// Every key/value pair in `value`, with the keys on the way to it.
fn walk<'a>(
    value: &'a Value,
    path: &mut Vec<&'a str>,
    visit: &mut dyn FnMut(&[&str], &str, &Value),
) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                visit(path, key, child);
                path.push(key);
                walk(child, path, visit);
                path.pop();
            }
        }
        Value::Array(items) => {
            for item in items {
                walk(item, path, visit);
            }
        }
        _ => {}
    }
}

/// The ways generated schemas used to confuse models, none of which may reach one.
fn problems(dialect: Dialect) -> Vec<String> {
    let mut found = Vec::new();
    walk(
        &rendered(dialect),
        &mut Vec::new(),
        &mut |path, key, value| {
            let at = || format!("{dialect} at {}.{key}", path.join("."));
            // A property may be *named* `title` (a task's title); the keyword is a string.
            if key == "title" && value.is_string() {
                found.push(format!("{}: schema title", at()));
            }
            if key == "$schema" {
                found.push(format!("{}: $schema", at()));
            }
            if key == "format"
                && matches!(value.as_str(), Some(f) if f.starts_with("uint") || f.starts_with("int") || f == "double" || f == "float")
            {
                found.push(format!("{}: non-standard format {value}", at()));
            }
            if key.contains("deleted") && key != "deleted"
                || value
                    .as_str()
                    .is_some_and(|text| text.contains("is_deleted"))
            {
                found.push(format!("{}: deletion flag", at()));
            }
            let null_branch = |branches: &Value| {
                branches
                    .as_array()
                    .is_some_and(|branches| branches.iter().any(|branch| branch["type"] == "null"))
            };
            // Only inputs leave optional fields out; a result writes `None` as `null`,
            // and its MCP `outputSchema` says so.
            let in_output = path.first() == Some(&"outputSchema");
            if key == "anyOf" && null_branch(value) && !in_output {
                found.push(format!("{}: null branch", at()));
            }
        },
    );
    found
}

#[test]
fn lenient_dialects_carry_none_of_the_old_schema_noise() {
    for dialect in [
        Dialect::OpenAiChat,
        Dialect::OpenAiResponses,
        Dialect::Anthropic,
        Dialect::GeminiParameters,
        Dialect::GeminiJsonSchema,
        Dialect::Mcp,
    ] {
        assert_eq!(problems(dialect), Vec::<String>::new());
    }
}

#[test]
fn every_dialect_renders_all_23_tools() {
    for dialect in Dialect::ALL {
        assert_eq!(
            rendered(dialect).as_array().map(Vec::len),
            Some(23),
            "{dialect}"
        );
    }
}

#[test]
fn strict_dialects_differ_only_by_null_unions_for_optional_fields() {
    // Strict OpenAI requires every property, so an optional one becomes a union
    // with `null` there; anything else from the list above is still a defect.
    for dialect in [
        Dialect::OpenAiChatStrict,
        Dialect::OpenAiResponsesStrict,
        Dialect::AnthropicStrict,
    ] {
        let other: Vec<String> = problems(dialect)
            .into_iter()
            .filter(|problem| !problem.ends_with(": null branch"))
            .collect();
        assert_eq!(other, Vec::<String>::new());
    }
}

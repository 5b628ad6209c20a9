//! How many tokens the assistant's 23 tools cost in each dialect, against the same
//! argument types as plain `schemars::schema_for!` writes them, in the same
//! envelope. Prints the Markdown table recorded in BENCHMARKS.md. toolkit's side
//! is counted on the text a request carries (`render_json`).
//!
//! Run it with `cargo run -p example-assistant --bin tokens`; add a tool's name
//! (`-- create_tasks`) to print that tool's OpenAI rendering beside the plain one.

use serde_json::Value;
use toolkit::{Dialect, registry::RegisteredTool};

// The binary never calls into the library, so the linker would drop its tools.
toolkit::link_tools!(example_assistant);

/// The key of the envelope that holds the arguments schema.
fn schema_key(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Anthropic | Dialect::AnthropicStrict => "input_schema",
        Dialect::GeminiJsonSchema => "parametersJsonSchema",
        Dialect::Mcp => "inputSchema",
        _ => "parameters",
    }
}

/// The schema `schemars::schema_for!` writes for the tool's arguments: the raw
/// schema toolkit generates (same settings, draft 2020-12) with the `$schema` key
/// that `schema_for!` adds and toolkit leaves out.
fn plain_schema(tool: &RegisteredTool) -> Value {
    let raw = (tool.schema)().to_value();
    let mut plain = serde_json::Map::new();
    plain.insert(
        "$schema".to_owned(),
        Value::String("https://json-schema.org/draft/2020-12/schema".to_owned()),
    );
    if let Value::Object(raw) = raw {
        plain.extend(raw);
    }
    Value::Object(plain)
}

/// The tool's rendering with its schema swapped for the plain one.
fn with_plain_schema(mut rendered: Value, dialect: Dialect, plain: Value) -> Value {
    let holder = match dialect {
        Dialect::OpenAiChat | Dialect::OpenAiChatStrict => &mut rendered["function"],
        _ => &mut rendered,
    };
    holder[schema_key(dialect)] = plain;
    rendered
}

/// One `description` of the plain schema.
struct Wanted {
    text: String,
    /// The `const` beside it: a documented enum value's doc.
    value: Option<String>,
    /// It is a definition's own doc (a type's doc).
    definition: bool,
}

/// Every `description` string in `value`.
fn descriptions(value: &Value, definition: bool, out: &mut Vec<Wanted>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(text)) = map.get("description") {
                let value = map.get("const").and_then(Value::as_str).map(str::to_owned);
                out.push(Wanted {
                    text: text.clone(),
                    value,
                    definition,
                });
            }
            for (key, child) in map {
                match (key.as_str(), child) {
                    ("$defs", Value::Object(defs)) => {
                        defs.values().for_each(|def| descriptions(def, true, out));
                    }
                    _ => descriptions(child, false, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| descriptions(item, false, out)),
        _ => {}
    }
}

/// What became of one description of the plain schema in toolkit's rendering.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// Found whole (folded enum docs and merged definitions included).
    Whole,
    /// A type's doc whose summary (first sentence) gave way to the parameter's own
    /// doc where the type is written in place; the rest of it is there.
    SummaryReplaced,
    /// A documented enum value whose doc only repeats the value ("A person." for
    /// `person`); the `enum` has the value.
    RepeatsValue,
    /// Not found: a description lost.
    Lost,
}

fn fate(text: &str, wanted: &Wanted) -> Fate {
    let escaped = Value::String(wanted.text.clone()).to_string();
    let inner = &escaped[1..escaped.len() - 1];
    // Folded enum docs join lines; compare line by line.
    let lines: Vec<&str> = inner.split("\\n").collect();
    if lines.iter().all(|line| text.contains(line)) {
        return Fate::Whole;
    }
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| c.is_whitespace() || c == '_' || c == '-')
            .filter(|word| !word.is_empty())
            .map(|word| word.trim_end_matches('.').to_lowercase())
            .filter(|word| !matches!(word.as_str(), "a" | "an" | "the"))
            .collect()
    };
    if wanted
        .value
        .as_ref()
        .is_some_and(|value| words(value) == words(&wanted.text))
    {
        return Fate::RepeatsValue;
    }
    if wanted.definition {
        let rest = without_summary(&wanted.text);
        let escaped = Value::String(rest.clone()).to_string();
        let inner = &escaped[1..escaped.len() - 1];
        if rest.is_empty() || inner.split("\\n").all(|line| text.contains(line)) {
            return Fate::SummaryReplaced;
        }
    }
    Fate::Lost
}

/// A type's doc without its summary sentence, as toolkit writes it in place under
/// a documented parameter: a detail after a colon or semicolon in the summary
/// stays, capitalised.
fn without_summary(text: &str) -> String {
    let line_end = text.find('\n').unwrap_or(text.len());
    let summary_end = text[..line_end]
        .find(". ")
        .map_or(line_end, |period| period + 1);
    let (summary, rest) = (&text[..summary_end], text[summary_end..].trim_start());
    let detail = [": ", "; "]
        .iter()
        .filter_map(|mark| summary.find(mark))
        .min()
        .map(|at| {
            let mut chars = summary[at + 2..].chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        });
    match detail {
        Some(detail) if rest.is_empty() => detail,
        Some(detail) => format!("{detail} {rest}"),
        None => rest.to_owned(),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bpe = tiktoken_rs::o200k_base()?;
    let tokens = |text: &str| bpe.encode_ordinary(text).len();
    let registry = toolkit::registry();
    if let Some(name) = std::env::args().nth(1) {
        let tool = registry.get(&name).ok_or("no such tool")?;
        let rendered = tool.render_json(Dialect::OpenAiChat)?;
        let plain = with_plain_schema(
            tool.render(Dialect::OpenAiChat)?,
            Dialect::OpenAiChat,
            plain_schema(tool),
        )
        .to_string();
        println!("toolkit ({} tokens):\n{rendered}\n", tokens(rendered));
        println!("plain schemars ({} tokens):\n{plain}", tokens(&plain));
        return Ok(());
    }
    println!(
        "| dialect | plain schemars | toolkit | fewer tokens | descriptions kept | type summary replaced | value repeated | lost |\n|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    for dialect in Dialect::ALL {
        let (mut plain_total, mut toolkit_total) = (0, 0);
        let mut fates = [0; 4];
        for tool in registry {
            // The text a request carries, in the order toolkit writes it.
            let text = tool.render_json(dialect)?;
            let plain = with_plain_schema(tool.render(dialect)?, dialect, plain_schema(tool));
            plain_total += tokens(&plain.to_string());
            toolkit_total += tokens(text);
            // Each description of the plain schema must still be there.
            let mut wanted = Vec::new();
            descriptions(&plain, false, &mut wanted);
            for wanted in &wanted {
                fates[fate(text, wanted) as usize] += 1;
            }
        }
        #[allow(clippy::cast_precision_loss)] // token counts are far below 2^52
        let saved = 100.0 * (1.0 - toolkit_total as f64 / plain_total as f64);
        let [whole, replaced, repeats, lost] = fates;
        let all = whole + replaced + repeats + lost;
        println!(
            "| {dialect} | {plain_total} | {toolkit_total} | {saved:.1}% | {whole}/{all} | {replaced} | {repeats} | {lost} |"
        );
    }
    Ok(())
}

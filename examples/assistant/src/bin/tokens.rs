//! How many tokens the assistant's 23 tools cost in each dialect, against the same
//! argument types as plain `schemars::schema_for!` writes them, in the same
//! envelope. Prints the Markdown table recorded in BENCHMARKS.md.
//!
//! Run it with `cargo run -p example-assistant --bin tokens`; add a tool's name
//! (`-- create_tasks`) to print that tool's OpenAI rendering beside the plain one.

use serde_json::Value;
use toolkit::{Dialect, RegisteredTool};

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

/// Every `description` string in `value`.
fn descriptions(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                if let (true, Value::String(text)) = (key == "description", child) {
                    out.push(text.clone());
                }
                descriptions(child, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| descriptions(item, out)),
        _ => {}
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bpe = tiktoken_rs::o200k_base()?;
    let tokens = |value: &Value| bpe.encode_ordinary(&value.to_string()).len();
    let registry = toolkit::registry();
    if let Some(name) = std::env::args().nth(1) {
        let tool = registry.get(&name).ok_or("no such tool")?;
        let rendered = tool.render(Dialect::OpenAiChat)?;
        let plain = with_plain_schema(rendered.clone(), Dialect::OpenAiChat, plain_schema(tool));
        println!("toolkit ({} tokens):\n{rendered}\n", tokens(&rendered));
        println!("plain schemars ({} tokens):\n{plain}", tokens(&plain));
        return Ok(());
    }
    println!(
        "| dialect | plain schemars | toolkit | fewer tokens | descriptions kept |\n|---|---:|---:|---:|---:|"
    );
    for dialect in Dialect::ALL {
        let (mut plain_total, mut toolkit_total) = (0, 0);
        let (mut kept, mut all) = (0, 0);
        for tool in registry {
            let rendered = tool.render(dialect)?;
            let plain = with_plain_schema(rendered.clone(), dialect, plain_schema(tool));
            plain_total += tokens(&plain);
            toolkit_total += tokens(&rendered);
            // Each description of the plain schema must still be there, whole
            // (folded or merged descriptions contain it).
            let text = rendered.to_string();
            let mut wanted = Vec::new();
            descriptions(&plain, &mut wanted);
            all += wanted.len();
            kept += wanted
                .iter()
                .filter(|wanted| {
                    let escaped = Value::String((*wanted).clone()).to_string();
                    let inner = &escaped[1..escaped.len() - 1];
                    // Folded enum docs join lines; compare line by line.
                    inner.split("\\n").all(|line| text.contains(line))
                })
                .count();
        }
        #[allow(clippy::cast_precision_loss)] // token counts are far below 2^52
        let saved = 100.0 * (1.0 - toolkit_total as f64 / plain_total as f64);
        println!("| {dialect} | {plain_total} | {toolkit_total} | {saved:.1}% | {kept}/{all} |");
    }
    Ok(())
}

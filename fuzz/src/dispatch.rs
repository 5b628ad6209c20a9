//! Fuzz target `dispatch`: arbitrary names and argument text against every tool
//! linked here (the assistant's 23, the conformance corpus, [`crate::tricky`]).
//!
//! One input is a sequence of calls against one fresh [`AssistantState`], so
//! creates, updates, deletes and reads meet each other. Calls are separated by a
//! `0x00` byte; in each call the first byte picks a name (`byte % names`, names
//! and aliases in registry order) when it is below `0xF0`, and the rest is the
//! argument text. From `0xF0` up, the name is the text up to the first `\n` and
//! the arguments follow it, so unknown and hostile names are covered too.
//!
//! Each call must return exactly one well-formed [`Response`] (see
//! [`check_response`]); a tool panic is a finding (libFuzzer's panic hook aborts
//! before `Tool::call` could catch it, and [`check_response`] also rejects a
//! `panicked` error).

use example_assistant::AssistantState;
use serde_json::Value;
use toolkit::{Context, Registry, Response};

/// At most this many calls per input, so one input stays cheap.
const MAX_CALLS: usize = 16;

/// Every name and alias a model may call, in registry order.
fn names(registry: &Registry) -> Vec<&'static str> {
    registry
        .iter()
        .flat_map(|tool| std::iter::once(tool.name).chain(tool.aliases.iter().copied()))
        .collect()
}

/// Runs one fuzz input.
pub fn run(data: &[u8]) {
    let registry = crate::registry();
    let names = names(registry);
    let ctx = Context::new().with(AssistantState::new());
    for call in data.split(|&byte| byte == 0).take(MAX_CALLS) {
        let (name, arguments) = match call.split_first() {
            Some((&selector, rest)) if selector < 0xF0 => (
                names[usize::from(selector) % names.len()].to_owned(),
                String::from_utf8_lossy(rest).into_owned(),
            ),
            Some((_, rest)) => {
                let (name, arguments) = match rest.iter().position(|&byte| byte == b'\n') {
                    Some(end) => (&rest[..end], &rest[end + 1..]),
                    None => (rest, &[][..]),
                };
                (
                    String::from_utf8_lossy(name).into_owned(),
                    String::from_utf8_lossy(arguments).into_owned(),
                )
            }
            None => (String::new(), String::new()),
        };
        let response = futures_executor::block_on(registry.call(&name, &arguments, &ctx));
        if let Err(problem) = check_response(&response) {
            panic!("call `{name}` with {arguments:?}: {problem}\nresponse: {response:?}");
        }
    }
}

/// Whether `response` is well formed: a result is `{"result": ...}` and an error
/// `{"error": {...}}` with a non-empty `snake_case` `kind` equal to
/// [`toolkit::ToolError::kind`] and a non-empty `message`, nothing beside; any
/// other response (a confirmation preview, a pending approval) is a non-empty
/// object; the JSON text reads back as the same value; and no tool panicked.
pub fn check_response(response: &Response) -> Result<(), String> {
    let json = response.to_json();
    let Value::Object(members) = &json else {
        return Err(format!("not an object: {json}"));
    };
    if let Some(value) = response.result() {
        if members.len() != 1 || json.get("result") != Some(value) {
            return Err(format!("not one `result`: {json}"));
        }
    } else if let Some(error) = response.error() {
        let Some(Value::Object(body)) = json.get("error") else {
            return Err(format!("no `error` object: {json}"));
        };
        if members.len() != 1 {
            return Err(format!("members beside `error`: {json}"));
        }
        let kind = body.get("kind").and_then(Value::as_str).unwrap_or("");
        if kind.is_empty() || !kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
            return Err(format!("bad `kind`: {json}"));
        }
        if kind != error.kind() {
            return Err(format!("`kind` {kind} but the error is {}", error.kind()));
        }
        if kind == "panicked" {
            return Err(format!("a tool panicked: {error}"));
        }
        match body.get("message") {
            Some(Value::String(message)) if !message.trim().is_empty() => {}
            _ => return Err(format!("no message: {json}")),
        }
    } else if members.is_empty() {
        return Err(format!("an empty response: {json}"));
    }
    let text = serde_json::to_string(&json).map_err(|error| error.to_string())?;
    let again: Value = serde_json::from_str(&text).map_err(|error| error.to_string())?;
    if again != json {
        return Err(format!("the JSON text does not read back: {text}"));
    }
    Ok(())
}

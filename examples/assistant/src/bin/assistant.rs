//! A scripted conversation with the personal assistant of USE-CASES A: the tool
//! list, then a few calls as a model would make them, each printed with the JSON
//! the model reads back.
//!
//! Run it with `cargo run -p example-assistant --bin assistant`.

use example_assistant::AssistantState;
use example_assistant::prompt::{self, Channel};
use toolkit::Context;

fn main() -> Result<(), toolkit::view::ViewError> {
    // What the web chat may list and call: every shared and assistant tool.
    let view = prompt::active_tools(Channel::Web)?;

    println!("{} tools:", view.len());
    for tool in &view {
        let aliases = if tool.aliases.is_empty() {
            String::new()
        } else {
            format!("  (also: {})", tool.aliases.join(", "))
        };
        println!(
            "  {:<20} {:<8} {:<13}{aliases}",
            tool.name,
            tool.tier.as_str(),
            tool.group.unwrap_or("-"),
        );
    }

    let state = AssistantState::new();
    let ctx = Context::new().with(state.clone()).with(Channel::Web);
    let script: &[(&str, &str)] = &[
        (
            "create_tasks",
            r#"{"tasks": [
                {"title": "Book the dentist", "due": "2025-01-10"},
                {"title": "Send the invoice", "priority": "high"}
            ]}"#,
        ),
        // A retired name that stored conversations still use.
        ("get_task", r#"{"id": 2}"#),
        ("update_tasks", r#"{"tasks": [{"id": 1, "done": true}]}"#),
        // A `confirm` tool: a preview first, then the call the user agreed to.
        ("delete_tasks", r#"{"ids": [2]}"#),
        ("delete_tasks", r#"{"ids": [2], "confirmed": true}"#),
        // The deleted task is gone for the model: not listed, not found.
        ("get_tasks", r#"{"include_done": true}"#),
        ("get_tasks", r#"{"id": 2}"#),
        // The model got the types wrong.
        (
            "create_tasks",
            r#"{"tasks": [{"title": "Call Ada"}, {"title": 42}]}"#,
        ),
        // A tool that was never there.
        ("get_remindrs", "{}"),
        ("search_gmail", r#"{"query": "from:ada"}"#),
    ];
    for (name, arguments) in script {
        let arguments: serde_json::Value =
            serde_json::from_str(arguments).expect("the script's arguments are JSON");
        println!("\n> {name} {arguments}");
        let response = futures_executor::block_on(view.call_value(name, &arguments, &ctx));
        println!("< {}", response.to_json());
    }

    println!("\nSystem prompt on a scheduled run:\n");
    println!("{}", prompt::system_prompt(&state, Channel::Scheduled));
    Ok(())
}

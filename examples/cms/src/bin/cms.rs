//! One conversation of the CMS agent, with the model's calls scripted: what each
//! turn sends (the default tools, the router's picks, what `searchTools` found) and
//! what the tools answer.
//!
//! `cargo run -p example-cms --bin cms`

use example_cms::{Agent, Cms, registry};
use futures_executor::block_on;

fn main() {
    let agent = Agent::new(registry(), Cms::sample());
    let turn = block_on(agent.route("publish the rye post"));
    println!("user: publish the rye post");
    println!("  sent: {}", turn.tools.join(", "));
    println!("  prompt:\n{}\n", turn.prompt);
    // The model knows the post's id from earlier in the conversation.
    for (name, arguments) in [
        ("updatePost", r#"{"id": 10, "status": "published"}"#),
        (
            "finalAnswer",
            r#"{"answer": "The rye post is live at /blog/rye."}"#,
        ),
    ] {
        let response = block_on(agent.call(name, arguments));
        println!("model: {name} {arguments}\n  -> {}", response.to_json());
    }

    // Only the default tools are sent; the model finds what it needs itself.
    println!("\nuser: add an 'Opening hours' link to the menu");
    println!("  sent: {}", agent.search_only().tools.join(", "));
    let response = block_on(agent.call("searchTools", r#"{"query": "menu link", "limit": 2}"#));
    println!("model: searchTools menu link\n  -> {}", response.to_json());
    println!(
        "  next turn sends: {}",
        agent.search_only().tools.join(", ")
    );
    let response = block_on(agent.call(
        "createNavItem",
        r#"{"label": "Opening hours", "href": "/opening-hours"}"#,
    ));
    println!("model: createNavItem\n  -> {}", response.to_json());
}

//! Shows turns of the brain being routed: for each client and message, the always
//! tools, the routed tools the lexical router picks, and what a (scripted) cheap
//! model picks, including a failing model that falls back to every routed tool.
//!
//! `cargo run -p example-brain --bin brain`

use std::convert::Infallible;

use example_brain::{Brain, Client, Home};
use futures_executor::block_on;
use toolkit::route::{LexicalRouter, ModelRouter};

fn main() {
    let brain = Brain::new(Home::sample());
    println!(
        "Routed catalog of the copilot:\n{}\n",
        brain.catalog(Client::Copilot)
    );
    for (client, message) in [
        (Client::Internal, "email Ada that dinner is at 7"),
        (
            Client::Copilot,
            "the hallway sensor is broken again, file a bug",
        ),
        (Client::External, "tick off the oat milk"),
        (Client::Internal, "hello!"),
    ] {
        let router = LexicalRouter::new(brain.view(client).catalog());
        let turn = block_on(brain.route(client, &router, message));
        println!("[{client}] {message}");
        println!("  always:  {}", turn.always.join(", "));
        println!("  lexical: {}", turn.routed.join(", "));
    }
    // A cheap model behind a closure; here it is scripted.
    let view = brain.view(Client::Internal);
    let model = ModelRouter::new(view.catalog(), |_prompt: String| async {
        Ok::<_, Infallible>(r#"["search_contacts", "send_emails"]"#.to_owned())
    });
    let turn = block_on(brain.route(Client::Internal, &model, "email Ada that dinner is at 7"));
    println!("[internal, model] routed: {}", turn.routed.join(", "));
    let down = ModelRouter::new(view.catalog(), |_prompt: String| async {
        Err::<String, _>("timeout after 2s")
    });
    let turn = block_on(brain.route(Client::Internal, &down, "email Ada"));
    println!(
        "[internal, model down] {}; sending all {} routed tools",
        turn.error
            .map(|error| error.to_string())
            .unwrap_or_default(),
        turn.routed.len()
    );
}

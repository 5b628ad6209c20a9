//! What the voice assistant advertises on each channel, with and without its
//! feature flags, and how calls to gated tools are answered.
//!
//! Run it with `cargo run -p example-voice --bin voice`.

use example_voice::{Channel, Home, VoiceSurface};
use toolkit::{Context, Dialect, render::RenderError};

/// Every feature flag the tools are gated by, read from the registry.
fn all_flags() -> Vec<&'static str> {
    let mut flags: Vec<&str> = toolkit::registry()
        .iter()
        .filter_map(|tool| tool.gate)
        .collect();
    flags.sort_unstable();
    flags.dedup();
    flags
}

fn main() -> Result<(), RenderError> {
    let flags = all_flags();
    println!("feature flags: {}\n", flags.join(", "));
    for channel in Channel::ALL {
        let plain = VoiceSurface::new(channel);
        let flagged = flags
            .iter()
            .fold(plain.clone(), |surface, flag| surface.with_flag(*flag));
        println!("{channel}:");
        println!("  flags off: {}", names(&plain));
        println!("  flags on:  {}", names(&flagged));
    }

    let ctx = Context::new().with(Home::sample());
    let phone = VoiceSurface::new(Channel::Phone);
    let phone_with_calls = phone.clone().with_flag("outbound_calls");
    let phone_with_music = phone.clone().with_flag("music");
    let calls = [
        ("phone", &phone, "create_calls", r#"{"contact_id": 2}"#),
        // A `confirm` tool: without `confirmed: true` the call is only previewed.
        (
            "phone + outbound_calls",
            &phone_with_calls,
            "create_calls",
            r#"{"contact_id": 2}"#,
        ),
        (
            "phone + outbound_calls",
            &phone_with_calls,
            "create_calls",
            r#"{"contact_id": 2, "confirmed": true}"#,
        ),
        // Not advertised on the phone, but a handler may still run it: its flag is on.
        (
            "phone + music",
            &phone_with_music,
            "search_music",
            r#"{"query": "blue", "kind": "album"}"#,
        ),
    ];
    for (label, surface, name, arguments) in calls {
        let response = futures_executor::block_on(surface.call(name, arguments, &ctx));
        println!(
            "\n[{label}] {name} {arguments}\n  -> {}",
            response.to_json()
        );
    }

    let voice = VoiceSurface::new(Channel::Voice).with_flag("music");
    let anthropic = voice.render(Dialect::Anthropic)?;
    let count = anthropic.as_array().map_or(0, Vec::len);
    let bytes = anthropic.to_string().len();
    println!("\nvoice + music, Anthropic format: {count} tools, {bytes} bytes of JSON");
    Ok(())
}

fn names(surface: &VoiceSurface) -> String {
    let names: Vec<&str> = surface.advertised().map(|tool| tool.name).collect();
    names.join(", ")
}

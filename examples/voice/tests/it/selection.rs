//! Which tool the smart speaker's assistant would get: the labelled set in
//! `selection.toml` scored against what the `voice` channel advertises with every
//! feature flag on, so a change to a description, a name, a tag or the router
//! that makes selection worse fails here.
//!
//! The assistant sends every advertised tool today; the set asks whether a router
//! could pick among them, which is also whether their own words tell them apart.
//! The thresholds sit a little under the set's first run (see BENCHMARKS.md,
//! "Selection evals of the examples"); raise them when selection gets better,
//! never lower them to make a change pass.

use example_voice::{Channel, VoiceSurface};
use toolkit::route::{Catalog, LexicalRouter};
use toolkit::testing::{
    SelectionSet, Thresholds, assert_selection, compare_selection, confusable_tools,
};

/// The voice channel's tools with every flag the registry knows switched on.
fn catalog() -> Catalog {
    let surface = toolkit::registry()
        .iter()
        .filter_map(|tool| tool.gate)
        .fold(VoiceSurface::new(Channel::Voice), VoiceSurface::with_flag);
    Catalog::from_tools(surface.advertised())
}

fn set() -> SelectionSet {
    SelectionSet::load(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/selection.toml"))
        .expect("tests/selection.toml is a labelled set")
}

#[test]
fn the_catalog_is_the_voice_channel_with_every_flag_on() {
    let catalog = catalog();
    let names: Vec<&str> = catalog.iter().map(|entry| entry.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "create_calls",
            "create_messages",
            "create_reminders",
            "get_calendar",
            "get_reminders",
            "get_weather",
            "search_contacts",
            "search_music",
            "set_lights",
            "set_timer",
            "set_volume"
        ]
    );
}

#[test]
fn selection_stays_at_least_as_good_as_measured() {
    let report = assert_selection(
        &LexicalRouter::new(catalog()),
        &set(),
        5,
        // First run: recall@1 60.9%, recall@5 78.3%, MRR 0.750, abstention 100.0%
        // (3 of 3). Plain BM25 over the same tools ranks better first (71.7%)
        // but abstains on 1 of 3: short spoken commands ("turn it up", "put on
        // some Miles Davis") share no word with the descriptions. The thresholds
        // sit about one point (0.01 of MRR) under the run, the margin for
        // rounding: the router is deterministic, so any lost case is a drop.
        // Abstention stays at 3 of 3 (the next step down is 66.7%).
        Thresholds::new()
            .recall_at_1(0.59)
            .recall_at_k(0.77)
            .mrr(0.74)
            .abstention(1.0),
    );
    // `cargo test -p example-voice --test it selection:: -- --nocapture` shows it,
    // beside sending every tool and a provider's search.
    println!("{report}");
    println!(
        "{}",
        compare_selection(&catalog(), &set(), 5).expect("checked above")
    );
}

#[test]
fn the_tools_are_told_apart_by_their_own_words() {
    let pairs: Vec<String> = confusable_tools(&catalog(), 0.9)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(pairs, Vec::<String>::new());
}

//! Which routed tool the CMS agent gets: the labelled set in `selection.toml`
//! scored against the agent's own router (its view's routed catalog), so a change
//! to a description, a name or the router that makes selection worse fails here.
//!
//! The thresholds sit a little under the figures of the set's first run (see
//! BENCHMARKS.md, "Selection evals of the examples"); raise them when selection
//! gets better, never lower them to make a change pass.

use example_cms::{Agent, Cms, registry};
use toolkit::route::{Catalog, LexicalRouter, Router};
use toolkit::testing::{
    SelectionSet, Thresholds, assert_selection, compare_selection, confusable_tools,
};

fn router() -> LexicalRouter {
    LexicalRouter::new(Agent::new(registry(), Cms::sample()).view().catalog())
}

fn set() -> SelectionSet {
    SelectionSet::load(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/selection.toml"))
        .expect("tests/selection.toml is a labelled set")
}

#[test]
fn selection_stays_at_least_as_good_as_measured() {
    let report = assert_selection(
        &router(),
        &set(),
        5,
        // First run: recall@1 86.0%, recall@5 100.0%, MRR 0.927, abstention 75.0%.
        Thresholds::new()
            .recall_at_1(0.85)
            .recall_at_k(1.0)
            .mrr(0.92)
            .abstention(0.75),
    );
    // `cargo test -p example-cms --test it selection:: -- --nocapture` shows it,
    // beside sending every routed tool and a provider's search.
    println!("{report}");
    println!(
        "{}",
        compare_selection(router().catalog(), &set(), 5).expect("checked above")
    );
}

#[test]
fn the_routed_tools_are_told_apart_by_their_own_words() {
    let catalog: Catalog = router().catalog().clone();
    let pairs: Vec<String> = confusable_tools(&catalog, 0.9)
        .iter()
        .map(ToString::to_string)
        .collect();
    // The one pair the lint finds, kept visible rather than hidden: `browse` is
    // not a verb of the router's vocabulary, so `browseImages`' own summary reads
    // as "images" and `getImage` ties it. Messages that say "stock photo" still
    // reach `browseImages` (the labelled set checks it); an `asked_as` on either
    // tool is the fix, once the routing benchmark's CMS catalog is regenerated.
    assert_eq!(
        pairs,
        [
            "`getImage` scores 100% of `browseImages` on \"Browse stock photo providers for images matching a query; returns previews with their licences.\"; make their descriptions or example messages differ"
        ]
    );
}

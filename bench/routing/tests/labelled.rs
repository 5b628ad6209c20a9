//! The labelled set is what it claims to be, and the lexical router's figures on it
//! are pinned beside plain BM25's.

use routing_bench::{
    Case, Recall, assistant_catalog, cms_catalog, evaluate, fresh_cases, heldout_cases,
    heldout2_cases, labelled_cases,
};
use toolkit::route::{Catalog, LexicalRouter, PlainBm25};

fn catalog_of(case: &Case) -> Catalog {
    match case.catalog.as_str() {
        "assistant" => assistant_catalog(),
        "cms" => cms_catalog(),
        other => panic!("unknown catalog {other}"),
    }
}

/// Words that carry no meaning, left out when checking that a paraphrase shares
/// no word with a description.
const FILLER: &[&str] = &[
    "a", "an", "the", "to", "of", "and", "or", "in", "on", "by", "for", "with", "it", "is", "me",
    "my", "i", "you", "your", "what", "which", "that", "this", "do", "s", "from", "at", "as",
    "them", "they", "are", "if", "any", "one", "all", "be", "its", "their",
];

fn content_words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty() && !FILLER.contains(word))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_set_has_enough_cases_of_each_kind_and_names_real_tools() {
    let cases = labelled_cases();
    assert!(cases.len() >= 60, "{}", cases.len());
    assert_eq!(
        cases
            .iter()
            .filter(|case| case.catalog == "assistant")
            .count(),
        36
    );
    assert_eq!(
        cases.iter().filter(|case| case.catalog == "cms").count(),
        34
    );
    assert_eq!(
        cases.iter().filter(|case| case.expected.len() > 1).count(),
        10
    );
    assert_eq!(cases.iter().filter(|case| case.paraphrase).count(), 34);
    assert_eq!(assistant_catalog().len(), 23);
    assert_eq!(cms_catalog().len(), 34);
    for case in &cases {
        let catalog = catalog_of(case);
        for name in &case.expected {
            assert!(catalog.get(name).is_some(), "{name} in {:?}", case.message);
        }
    }
}

#[test]
fn paraphrases_share_no_word_with_the_descriptions() {
    let mut problems = Vec::new();
    for case in labelled_cases().iter().filter(|case| case.paraphrase) {
        let catalog = catalog_of(case);
        let message = content_words(&case.message);
        for name in &case.expected {
            let entry = catalog.get(name).expect("checked above");
            let description = content_words(&entry.description);
            let shared: Vec<&String> = message
                .iter()
                .filter(|word| description.contains(word))
                .collect();
            if !shared.is_empty() {
                problems.push(format!(
                    "{:?} shares {shared:?} with `{name}`",
                    case.message
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

fn figures(catalog: &str) -> (Recall, Recall) {
    figures_of(labelled_cases(), catalog)
}

fn figures_of(cases: Vec<Case>, catalog: &str) -> (Recall, Recall) {
    let cases: Vec<Case> = cases
        .into_iter()
        .filter(|case| case.catalog == catalog)
        .collect();
    let entries = catalog_of(&cases[0]);
    let lexical = LexicalRouter::new(entries.clone());
    let plain = PlainBm25::new(entries);
    let names = |scored: Vec<toolkit::route::Scored<'_>>| -> Vec<String> {
        scored
            .into_iter()
            .map(|scored| scored.entry.name.clone())
            .collect()
    };
    (
        evaluate(&cases, |request| names(lexical.rank(request))),
        evaluate(&cases, |request| names(plain.rank(request))),
    )
}

fn percents(recall: &Recall) -> [String; 3] {
    recall.at.map(Recall::percent)
}

#[test]
fn the_lexical_router_beats_plain_bm25_on_the_assistant() {
    let (lexical, plain) = figures("assistant");
    assert_eq!(percents(&plain), ["8.3%", "16.7%", "31.9%"]);
    assert_eq!(percents(&lexical), ["76.4%", "93.1%", "98.6%"]);
    assert_eq!((lexical.multi_all_at_5, lexical.multi), (5, 6));
    assert!(lexical.at[2] >= plain.at[2] + 0.05);
}

#[test]
fn the_lexical_router_beats_plain_bm25_on_the_cms() {
    let (lexical, plain) = figures("cms");
    assert_eq!(percents(&plain), ["14.7%", "30.9%", "41.2%"]);
    assert_eq!(percents(&lexical), ["63.2%", "97.1%", "97.1%"]);
    assert_eq!((lexical.multi_all_at_5, lexical.multi), (4, 4));
    assert!(lexical.at[2] >= plain.at[2] + 0.05);
}

#[test]
fn the_held_out_set_names_real_tools_and_each_kind() {
    let cases = heldout_cases();
    assert_eq!(
        cases
            .iter()
            .filter(|case| case.catalog == "assistant")
            .count(),
        47
    );
    assert_eq!(
        cases.iter().filter(|case| case.catalog == "cms").count(),
        46
    );
    for kind in ["seed", "verb", "noun", "two", "paraphrase", "multi"] {
        for catalog in ["assistant", "cms"] {
            assert!(
                cases
                    .iter()
                    .any(|case| case.catalog == catalog && case.kind.as_deref() == Some(kind)),
                "{catalog} has no {kind} case"
            );
        }
    }
    for case in &cases {
        let catalog = catalog_of(case);
        for name in &case.expected {
            assert!(catalog.get(name).is_some(), "{name} in {:?}", case.message);
        }
    }
}

#[test]
fn the_second_held_out_set_names_real_tools_and_each_kind() {
    let cases = heldout2_cases();
    assert_eq!(
        cases
            .iter()
            .filter(|case| case.catalog == "assistant")
            .count(),
        51
    );
    assert_eq!(
        cases.iter().filter(|case| case.catalog == "cms").count(),
        52
    );
    for kind in ["seed", "verb", "noun", "two", "paraphrase", "multi"] {
        for catalog in ["assistant", "cms"] {
            assert!(
                cases
                    .iter()
                    .any(|case| case.catalog == catalog && case.kind.as_deref() == Some(kind)),
                "{catalog} has no {kind} case"
            );
        }
    }
    for case in &cases {
        assert_eq!(
            case.kind.as_deref() == Some("multi"),
            case.expected.len() > 1,
            "only a multi case expects more than one tool: {:?}",
            case.message
        );
        let catalog = catalog_of(case);
        for name in &case.expected {
            assert!(catalog.get(name).is_some(), "{name} in {:?}", case.message);
        }
    }
}

/// The held-out figures (never used to tune the router), pinned so a change that
/// moves them is seen; the goal is recall@1 >= 60% and recall@5 >= 90% per catalog.
#[test]
fn the_lexical_router_on_the_held_out_set() {
    let (assistant, assistant_plain) = figures_of(heldout_cases(), "assistant");
    assert_eq!(percents(&assistant_plain), ["18.1%", "46.8%", "57.4%"]);
    assert_eq!(percents(&assistant), ["71.3%", "87.2%", "89.4%"]);
    let (cms, cms_plain) = figures_of(heldout_cases(), "cms");
    assert_eq!(percents(&cms_plain), ["38.0%", "67.4%", "71.7%"]);
    assert_eq!(percents(&cms), ["73.9%", "95.7%", "97.8%"]);
}

#[test]
fn the_second_tuning_set_names_real_tools() {
    let cases = fresh_cases();
    assert_eq!(
        cases
            .iter()
            .filter(|case| case.catalog == "assistant")
            .count(),
        66
    );
    assert_eq!(
        cases.iter().filter(|case| case.catalog == "cms").count(),
        38
    );
    for case in &cases {
        let catalog = catalog_of(case);
        for name in &case.expected {
            assert!(catalog.get(name).is_some(), "{name} in {:?}", case.message);
        }
    }
}

/// The second tuning set's figures, pinned so a change that moves them is seen.
#[test]
fn the_lexical_router_on_the_second_tuning_set() {
    let (assistant, assistant_plain) = figures_of(fresh_cases(), "assistant");
    assert_eq!(percents(&assistant_plain), ["12.1%", "27.3%", "34.8%"]);
    assert_eq!(percents(&assistant), ["54.5%", "81.1%", "86.4%"]);
    let (cms, cms_plain) = figures_of(fresh_cases(), "cms");
    assert_eq!(percents(&cms_plain), ["39.5%", "57.9%", "63.2%"]);
    assert_eq!(percents(&cms), ["71.1%", "100.0%", "100.0%"]);
}

//! Routing one message against a catalog of 1,000 tools, and scoring a
//! selection eval of 1,000 labelled messages against it
//! (`toolkit::testing::evaluate_blocking`).

use criterion::{Criterion, criterion_group, criterion_main};
use toolkit::route::{Catalog, LexicalRouter, PlainBm25, RouteRequest};
use toolkit::testing::{Expected, SelectionCase, SelectionSet, evaluate_blocking};

fn catalog() -> Catalog {
    routing_bench::synthetic_catalog(1000)
}

fn bench(c: &mut Criterion) {
    let catalog = catalog();
    assert_eq!(catalog.len(), 1000);
    let message =
        "please cancel the hotel booking for next week and tell me about the refund status";
    let lexical = LexicalRouter::new(catalog.clone());
    let plain = PlainBm25::new(catalog.clone());
    let mut group = c.benchmark_group("route 1000 tools");
    group.bench_function("LexicalRouter::rank", |b| {
        b.iter(|| lexical.rank(&RouteRequest::new(std::hint::black_box(message))));
    });
    group.bench_function("PlainBm25::rank", |b| {
        b.iter(|| plain.rank(&RouteRequest::new(std::hint::black_box(message))));
    });
    group.bench_function("LexicalRouter::new (index build)", |b| {
        b.iter(|| LexicalRouter::new(std::hint::black_box(catalog.clone())));
    });
    group.finish();

    // 1,000 labelled messages: each of the catalog's tools asked for in its own
    // words, with the words reordered and a filler, plus every tenth message
    // about nothing in the catalog (expected to be abstained on).
    let set = SelectionSet {
        cases: catalog
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                if i % 10 == 9 {
                    return SelectionCase {
                        message: format!("thanks, that is all for now {i}"),
                        expect: Expected::Nothing,
                        turns: Vec::new(),
                    };
                }
                let words: Vec<&str> = entry.name.split('_').collect();
                SelectionCase {
                    message: format!(
                        "could you {} the {} please",
                        words[0],
                        words[1..3].join(" ")
                    ),
                    expect: Expected::Tools(vec![entry.name.clone()]),
                    turns: Vec::new(),
                }
            })
            .collect(),
    };
    assert_eq!(set.cases.len(), 1000);
    let mut group = c.benchmark_group("selection eval");
    group.sample_size(10);
    group.bench_function("1000 messages x 1000 tools, LexicalRouter, k = 5", |b| {
        b.iter(|| evaluate_blocking(&lexical, std::hint::black_box(&set), 5));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! Hostile input for the lexical router: messages of 1 MiB (words, a base64
//! blob, no words at all, every script and emoji) over 1,000 tools, and a
//! catalog of 10,000 tools (index build and one message). Time grows with the
//! input's size, never its square: BENCHMARKS.md ("Hostile input") has the
//! figures; `toolkit/src/route/tests.rs` checks the sizes that bound the work.

use criterion::{Criterion, criterion_group, criterion_main};
use routing_bench::{hostile_messages, synthetic_catalog};
use toolkit::route::{LexicalRouter, RouteRequest};

fn bench(c: &mut Criterion) {
    let router = LexicalRouter::new(synthetic_catalog(1000));
    let mut group = c.benchmark_group("hostile message, 1000 tools");
    group.sample_size(10);
    for (name, message) in hostile_messages(1 << 20) {
        group.bench_function(name, |b| {
            b.iter(|| router.rank(&RouteRequest::new(std::hint::black_box(&message))));
        });
    }
    group.finish();

    let large = synthetic_catalog(10_000);
    let mut group = c.benchmark_group("10000 tools");
    group.sample_size(10);
    group.bench_function("LexicalRouter::new (index build)", |b| {
        b.iter(|| LexicalRouter::new(std::hint::black_box(large.clone())));
    });
    let router = LexicalRouter::new(large);
    let message =
        "please cancel the hotel booking for next week and tell me about the refund status";
    group.bench_function("LexicalRouter::rank", |b| {
        b.iter(|| router.rank(&RouteRequest::new(std::hint::black_box(message))));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! Prints the routing table of BENCHMARKS.md.
//!
//! ```sh
//! cargo run --release -p routing-bench --bin routing                 # labelled set only
//! cargo run --release -p routing-bench --bin routing -- --bfcl DIR   # and BFCL v4 (DIR = bfcl_eval/data)
//! ```
//! `scripts/bfcl.sh` downloads BFCL and runs the second form.

use std::path::PathBuf;
use std::time::Instant;

use routing_bench::{BFCL_FILES, BFCL_PARALLEL_FILES, Bfcl, Case, HEADER, Recall, evaluate, row};
use toolkit::route::{Catalog, FieldWeights, LexicalRouter, PlainBm25, RouteRequest};
use toolkit::testing::{Expected, SelectionCase, SelectionSet, compare_selection};

/// The lexical router's weights: the defaults, or those of `--weights`.
static WEIGHTS: std::sync::OnceLock<FieldWeights> = std::sync::OnceLock::new();

fn lexical(catalog: &Catalog) -> LexicalRouter {
    LexicalRouter::with_weights(catalog.clone(), WEIGHTS.get().copied().unwrap_or_default())
}

/// `name=value,...` over the default weights (for sweeps; the table uses none).
fn parse_weights(text: &str) -> Result<FieldWeights, String> {
    let mut weights = FieldWeights::default();
    for pair in text.split(',').filter(|pair| !pair.is_empty()) {
        let (name, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("{pair:?} is not name=value"))?;
        let value: f32 = value
            .parse()
            .map_err(|error| format!("{value:?}: {error}"))?;
        let slot = match name {
            "name" => &mut weights.name,
            "aliases" => &mut weights.aliases,
            "summary" => &mut weights.summary,
            "description" => &mut weights.description,
            "group" => &mut weights.group,
            "tags" => &mut weights.tags,
            "params" => &mut weights.params,
            "guidance" => &mut weights.guidance,
            "verbs" => &mut weights.verbs,
            "concepts" => &mut weights.concepts,
            "turns" => &mut weights.turns,
            "phrase" => &mut weights.phrase,
            "secondary_verbs" => &mut weights.secondary_verbs,
            "servers" => &mut weights.servers,
            other => return Err(format!("no weight called {other:?}")),
        };
        *slot = value;
    }
    Ok(weights)
}

fn names(scored: Vec<toolkit::route::Scored<'_>>) -> Vec<String> {
    scored
        .into_iter()
        .map(|scored| scored.entry.name.clone())
        .collect()
}

/// The cases of one catalog (`assistant` or `cms`).
fn in_catalog<'c>(cases: &'c [Case], catalog: &str) -> Vec<&'c Case> {
    cases
        .iter()
        .filter(|case| case.catalog == catalog)
        .collect()
}

/// One row per catalog for a set's cases, labelled `{prefix}assistant (N tools)`
/// and `{prefix}CMS (N tools)`; the two measures, to combine.
fn print_catalogs(
    prefix: &str,
    cases: &[Case],
    assistant: &Catalog,
    cms: &Catalog,
) -> ((Recall, Recall), (Recall, Recall)) {
    let assistant_rows = measure(assistant, &in_catalog(cases, "assistant"));
    let cms_rows = measure(cms, &in_catalog(cases, "cms"));
    print_rows(
        &format!("{prefix}assistant ({} tools)", assistant.len()),
        assistant_rows,
    );
    print_rows(&format!("{prefix}CMS ({} tools)", cms.len()), cms_rows);
    (assistant_rows, cms_rows)
}

/// Both routers over one catalog and its cases: (lexical, plain).
fn measure(catalog: &Catalog, cases: &[&Case]) -> (Recall, Recall) {
    let lexical = lexical(catalog);
    let plain = PlainBm25::new(catalog.clone());
    (
        evaluate(cases.iter().copied(), |request| {
            names(lexical.rank(request))
        }),
        evaluate(cases.iter().copied(), |request| names(plain.rank(request))),
    )
}

/// The cases whose expected tools the lexical router leaves out of its first
/// `within` (5, or 1 with `--misses-at 1`), with the scores of its first 5.
fn print_misses(catalog: &Catalog, cases: &[&Case]) {
    let within = MISSES_AT.get().copied().unwrap_or(5);
    let lexical = lexical(catalog);
    for case in cases {
        let request = RouteRequest::new(&case.message)
            .turns(case.turns.iter().map(String::as_str))
            .limit(5);
        let scored = lexical.rank(&request);
        let first: Vec<&str> = scored
            .iter()
            .take(within.max(case.expected.len()))
            .map(|scored| scored.entry.name.as_str())
            .collect();
        if case
            .expected
            .iter()
            .any(|name| !first.contains(&name.as_str()))
        {
            let got: Vec<String> = scored
                .iter()
                .map(|scored| format!("{} {:.2}", scored.entry.name, scored.score))
                .collect();
            println!(
                "MISS {:?}\n  expected {:?}\n  got {got:?}",
                case.message, case.expected
            );
        }
    }
}

/// Scores `cases` as a labelled set of `toolkit::testing` against `catalog`:
/// sending all, the router and plain BM25 side by side (the table only; the
/// router's misses would run to hundreds of lines).
fn print_eval(label: &str, catalog: &Catalog, cases: &[&Case]) {
    let set = SelectionSet {
        cases: cases
            .iter()
            .map(|case| SelectionCase {
                message: case.message.clone(),
                expect: Expected::Tools(case.expected.clone()),
                turns: case.turns.clone(),
            })
            .collect(),
    };
    match compare_selection(catalog, &set, 5) {
        Ok(comparison) => println!("\n{label}:\n{}", comparison.table()),
        Err(error) => eprintln!("{label}: {error}"),
    }
}

/// How far down `--misses` looks for the expected tools.
static MISSES_AT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

fn print_rows(set: &str, (lexical, plain): (Recall, Recall)) {
    println!("{}", row(set, "plain BM25 (name + description)", &plain));
    println!("{}", row(set, "toolkit `LexicalRouter`", &lexical));
}

/// Both routers' rows for one held-out set: each catalog, both together, and
/// the lexical router on each kind of message.
fn print_held_out(label: &str, cases: &[Case], assistant: &Catalog, cms: &Catalog) {
    let held = |catalog: &str| in_catalog(cases, catalog);
    let (assistant_held, cms_held) = print_catalogs(&format!("{label}: "), cases, assistant, cms);
    print_rows(
        &format!("{label} set, all"),
        (
            combine(assistant_held.0, cms_held.0),
            combine(assistant_held.1, cms_held.1),
        ),
    );
    for kind in ["seed", "verb", "noun", "two", "paraphrase", "multi"] {
        let of_kind = |catalog: &str| -> Vec<&Case> {
            held(catalog)
                .into_iter()
                .filter(|case| case.kind.as_deref() == Some(kind))
                .collect()
        };
        let a = measure(assistant, &of_kind("assistant"));
        let c = measure(cms, &of_kind("cms"));
        println!(
            "{}",
            row(
                &format!("{label}, kind `{kind}`, both catalogs"),
                "toolkit `LexicalRouter`",
                &combine(a.0, c.0)
            )
        );
    }
}

/// Two sets' figures as one, weighted by their sizes.
fn combine(a: Recall, b: Recall) -> Recall {
    #[allow(clippy::cast_precision_loss)]
    let (na, nb) = (a.cases as f64, b.cases as f64);
    Recall {
        cases: a.cases + b.cases,
        at: [0, 1, 2].map(|i| (a.at[i] * na + b.at[i] * nb) / (na + nb)),
        mrr: (a.mrr * na + b.mrr * nb) / (na + nb),
        multi: a.multi + b.multi,
        multi_all_at_5: a.multi_all_at_5 + b.multi_all_at_5,
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut bfcl_dir: Option<PathBuf> = None;
    let mut embeddings_dir: Option<PathBuf> = None;
    let mut encoder_dir: Option<PathBuf> = None;
    let mut misses = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bfcl" => bfcl_dir = args.next().map(PathBuf::from),
            "--embeddings" => embeddings_dir = args.next().map(PathBuf::from),
            "--encoder" => encoder_dir = args.next().map(PathBuf::from),
            "--misses" => misses = true,
            "--misses-at" => {
                misses = true;
                let _ = MISSES_AT.set(args.next().and_then(|k| k.parse().ok()).unwrap_or(5));
            }
            "--weights" => match parse_weights(&args.next().unwrap_or_default()) {
                Ok(weights) => {
                    let _ = WEIGHTS.set(weights);
                }
                Err(error) => {
                    eprintln!("--weights: {error}");
                    std::process::exit(2);
                }
            },
            other => {
                eprintln!(
                    "unknown argument {other:?}; usage: routing [--bfcl bfcl_eval/data] [--embeddings DIR] [--encoder DIR] [--misses] [--misses-at K] [--weights name=value,...]"
                );
                std::process::exit(2);
            }
        }
    }
    let cases = routing_bench::labelled_cases();
    let assistant = routing_bench::assistant_catalog();
    let cms = routing_bench::cms_catalog();
    let of = |catalog: &str, paraphrase_only: bool| -> Vec<&Case> {
        cases
            .iter()
            .filter(|case| case.catalog == catalog && (!paraphrase_only || case.paraphrase))
            .collect()
    };
    let fresh = routing_bench::fresh_cases();
    let tune3 = routing_bench::tune3_cases();
    let mcp = routing_bench::mcp_catalog();
    let mcp_cases = routing_bench::mcp_cases();
    if misses {
        for (catalog, name) in [(&assistant, "assistant"), (&cms, "cms")] {
            print_misses(catalog, &of(name, false));
            print_misses(catalog, &in_catalog(&fresh, name));
            print_misses(catalog, &in_catalog(&tune3, name));
        }
        print_misses(&mcp, &mcp_cases.iter().collect::<Vec<_>>());
    }
    println!("{HEADER}");
    let (assistant_all, cms_all) = print_catalogs("", &cases, &assistant, &cms);
    print_rows(
        "labelled set, all",
        (
            combine(assistant_all.0, cms_all.0),
            combine(assistant_all.1, cms_all.1),
        ),
    );
    let assistant_para = measure(&assistant, &of("assistant", true));
    let cms_para = measure(&cms, &of("cms", true));
    print_rows(
        "labelled set, paraphrases only",
        (
            combine(assistant_para.0, cms_para.0),
            combine(assistant_para.1, cms_para.1),
        ),
    );
    // The second tuning set (fresh paraphrases).
    print_catalogs("second tuning set: ", &fresh, &assistant, &cms);
    // The third tuning set (two writers who had not seen the router).
    print_catalogs("third tuning set: ", &tune3, &assistant, &cms);
    // The held-out sets: never read to tune the router (no `--misses` for them).
    print_held_out(
        "held-out",
        &routing_bench::heldout_cases(),
        &assistant,
        &cms,
    );
    print_held_out(
        "held-out 2",
        &routing_bench::heldout2_cases(),
        &assistant,
        &cms,
    );
    // The MCP servers' catalog and its tasks (a tuning set), by kind.
    let all: Vec<&Case> = mcp_cases.iter().collect();
    print_rows(
        &format!("MCP servers ({} tools from 21 servers), all", mcp.len()),
        measure(&mcp, &all),
    );
    for kind in ["plain", "meaning", "file", "multi"] {
        let of_kind: Vec<&Case> = all
            .iter()
            .copied()
            .filter(|case| case.kind.as_deref() == Some(kind))
            .collect();
        print_rows(
            &format!("MCP servers, kind `{kind}`"),
            measure(&mcp, &of_kind),
        );
    }
    if let Some(dir) = &embeddings_dir {
        embedding_rows(dir, &mcp, &all, bfcl_dir.as_deref());
    }
    if let Some(dir) = &encoder_dir {
        encoder_rows(dir, &mcp, &all, bfcl_dir.as_deref());
    }
    if let Some(dir) = bfcl_dir {
        let bfcl = match Bfcl::load(&dir, &BFCL_FILES) {
            Ok(bfcl) => bfcl,
            Err(error) => {
                eprintln!("could not read BFCL from {}: {error}", dir.display());
                std::process::exit(1);
            }
        };
        let cases: Vec<&Case> = bfcl.cases.iter().collect();
        if misses {
            print_misses(&bfcl.catalog, &cases);
        }
        let set = format!(
            "BFCL v4 multiple + live_multiple ({} tools pooled)",
            bfcl.catalog.len()
        );
        print_rows(&set, measure(&bfcl.catalog, &cases));
        for file in ["multiple", "live_multiple"] {
            let part: Vec<&Case> = cases
                .iter()
                .copied()
                .filter(|case| case.catalog == file)
                .collect();
            print_rows(
                &format!("BFCL v4 {file} only (same pooled catalog)"),
                measure(&bfcl.catalog, &part),
            );
        }
        match Bfcl::load(&dir, &BFCL_PARALLEL_FILES) {
            Ok(parallel) => {
                let cases: Vec<&Case> = parallel.cases.iter().collect();
                if misses {
                    print_misses(&parallel.catalog, &cases);
                }
                let set = format!(
                    "BFCL v4 parallel_multiple + live_parallel_multiple ({} tools pooled)",
                    parallel.catalog.len()
                );
                print_rows(&set, measure(&parallel.catalog, &cases));
            }
            Err(error) => eprintln!("no multi-tool measurement: {error}"),
        }
        // The same questions through toolkit::testing's selection eval, the
        // way an example's eval test scores its set: `select` applies the
        // selection policy (a router may pick fewer than five, or abstain).
        print_eval(
            "BFCL v4 multiple + live_multiple, toolkit::testing::compare_selection (k = 5)",
            &bfcl.catalog,
            &cases,
        );
        if let Ok(parallel) = Bfcl::load(&dir, &BFCL_PARALLEL_FILES) {
            let cases: Vec<&Case> = parallel.cases.iter().collect();
            print_eval(
                "BFCL v4 parallel_multiple + live_parallel_multiple, toolkit::testing::compare_selection (k = 5)",
                &parallel.catalog,
                &cases,
            );
        }
        // Per-message time over the pooled catalog, every question: rounds that
        // alternate the two routers, so both see the same load; medians of rounds.
        let lexical = lexical(&bfcl.catalog);
        let plain = PlainBm25::new(bfcl.catalog.clone());
        let rounds = 21;
        let per_message = |rank: &dyn Fn(&RouteRequest<'_>) -> usize| {
            let start = Instant::now();
            let mut picked = 0;
            for case in &bfcl.cases {
                picked += rank(&RouteRequest::new(&case.message).limit(5));
            }
            std::hint::black_box(picked);
            #[allow(clippy::cast_precision_loss)]
            let count = bfcl.cases.len().max(1) as f64;
            start.elapsed().as_secs_f64() * 1e6 / count
        };
        let mut lexical_times = Vec::with_capacity(rounds);
        let mut plain_times = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            lexical_times.push(per_message(&|request| lexical.rank(request).len()));
            plain_times.push(per_message(&|request| plain.rank(request).len()));
        }
        let median = |times: &mut Vec<f64>| {
            times.sort_by(f64::total_cmp);
            times[times.len() / 2]
        };
        println!(
            "\nPer message over the {} pooled tools (median of {rounds} alternating rounds of {} routings each): LexicalRouter {:.1} µs, plain BM25 {:.1} µs",
            bfcl.catalog.len(),
            bfcl.cases.len(),
            median(&mut lexical_times),
            median(&mut plain_times)
        );
    }
}

/// The embedding and hybrid rows (feature `embeddings`) of the static table.
#[cfg(feature = "embeddings")]
fn embedding_rows(
    dir: &std::path::Path,
    mcp: &Catalog,
    cases: &[&Case],
    bfcl: Option<&std::path::Path>,
) {
    use toolkit::route::embedding::StaticEmbeddings;
    match StaticEmbeddings::load(dir) {
        Ok(model) => meaning_rows(
            &std::sync::Arc::new(model),
            &[1.0, 0.5, 0.3],
            true,
            mcp,
            cases,
            bfcl,
        ),
        Err(error) => {
            eprintln!("--embeddings {}: {error}", dir.display());
            std::process::exit(1);
        }
    }
}

/// The same rows with the sentence encoder in process (feature
/// `embeddings-encoder`); messages are encoded once for all the rows (the
/// routers are measured, not the encoder's speed, which has rows of its own).
#[cfg(feature = "embeddings-encoder")]
fn encoder_rows(
    dir: &std::path::Path,
    mcp: &Catalog,
    cases: &[&Case],
    bfcl: Option<&std::path::Path>,
) {
    use std::sync::Arc;
    use toolkit::route::embedding::{EmbeddingRouter, HybridRouter, SentenceEncoder};
    let load = || match SentenceEncoder::load(dir) {
        Ok(model) => model,
        Err(error) => {
            eprintln!("--encoder {}: {error}", dir.display());
            std::process::exit(1);
        }
    };
    let model = Arc::new(Memo {
        model: load(),
        seen: std::sync::Mutex::default(),
    });
    meaning_rows(&model, &[2.0, 1.0, 0.5, 0.3], false, mcp, cases, bfcl);
    // Cost, uncached: a fresh encoder embeds 500 tools (cold), then a second
    // router over them reads the cache (warm); one message at a time over the
    // MCP tasks, three rounds, p50 and p99.
    let encoder: Arc<SentenceEncoder> = Arc::new(load());
    let five_hundred = routing_bench::synthetic_catalog(500);
    let start = Instant::now();
    let hybrid = HybridRouter::new(five_hundred.clone(), Arc::clone(&encoder));
    let cold = start.elapsed();
    let start = Instant::now();
    let embedding = EmbeddingRouter::new(five_hundred, Arc::clone(&encoder));
    let warm = start.elapsed();
    let times = |rank: &dyn Fn(&RouteRequest<'_>) -> usize| {
        let mut times: Vec<f64> = Vec::new();
        for _ in 0..3 {
            for case in cases {
                let start = Instant::now();
                std::hint::black_box(rank(&RouteRequest::new(&case.message)));
                times.push(start.elapsed().as_secs_f64() * 1e3);
            }
        }
        times.sort_by(f64::total_cmp);
        let at = |share: f64| {
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                clippy::cast_precision_loss
            )]
            let index = ((times.len() - 1) as f64 * share).round() as usize;
            times[index]
        };
        (at(0.5), at(0.99))
    };
    let (embedding_p50, embedding_p99) = times(&|request| embedding.rank(request).len());
    let (hybrid_p50, hybrid_p99) = times(&|request| hybrid.rank(request).len());
    println!(
        "\n500 tools, encoder (RAYON_NUM_THREADS={}): HybridRouter::new {:.0} ms cold, EmbeddingRouter::new {:.1} ms from the cache; per message: EmbeddingRouter p50 {embedding_p50:.1} ms p99 {embedding_p99:.1} ms, HybridRouter p50 {hybrid_p50:.1} ms p99 {hybrid_p99:.1} ms",
        std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "unset".to_owned()),
        cold.as_secs_f64() * 1e3,
        warm.as_secs_f64() * 1e3,
    );
    // Hostile messages of 1 MiB: the encoder reads 16 KiB of each at most.
    for (name, message) in routing_bench::hostile_messages(1 << 20) {
        let start = Instant::now();
        let picked = hybrid.rank(&RouteRequest::new(&message)).len();
        println!(
            "1 MiB {name}: HybridRouter over 500 tools {:.1} ms ({picked} picked)",
            start.elapsed().as_secs_f64() * 1e3
        );
    }
}

/// An embedder that remembers each text's vector (the bench routes the same
/// messages for many rows).
#[cfg(feature = "embeddings-encoder")]
#[derive(Debug)]
struct Memo<M> {
    model: M,
    seen: std::sync::Mutex<std::collections::HashMap<String, Vec<f32>>>,
}

#[cfg(feature = "embeddings-encoder")]
impl<M: toolkit::route::embedding::Embedder> toolkit::route::embedding::Embedder for Memo<M> {
    fn dimensions(&self) -> usize {
        self.model.dimensions()
    }

    fn embed(&self, text: &str) -> Vec<f32> {
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        seen.entry(text.to_owned())
            .or_insert_with(|| self.model.embed(text))
            .clone()
    }

    fn embed_tools(&self, texts: &[String]) -> Vec<f32> {
        self.model.embed_tools(texts)
    }
}

#[cfg(not(feature = "embeddings-encoder"))]
fn encoder_rows(_: &std::path::Path, _: &Catalog, _: &[&Case], _: Option<&std::path::Path>) {
    eprintln!(
        "--encoder needs the `embeddings-encoder` feature: cargo run --release -p routing-bench --features embeddings-encoder --bin routing -- --encoder DIR"
    );
    std::process::exit(2);
}

/// The embedding and hybrid rows over `model`: the MCP servers' set and, with
/// `--bfcl`, BFCL, through `compare_selection_with_embeddings`, the hybrid at
/// each of `weights`, and (with `timing`) the cost per message and of
/// embedding the catalog.
#[cfg(feature = "embeddings")]
fn meaning_rows<M: toolkit::route::embedding::Embedder + 'static>(
    model: &std::sync::Arc<M>,
    weights: &[f32],
    timing: bool,
    mcp: &Catalog,
    cases: &[&Case],
    bfcl: Option<&std::path::Path>,
) {
    use std::sync::Arc;
    use toolkit::route::embedding::{EmbeddingRouter, HybridRouter};
    let as_set = |cases: &[&Case]| SelectionSet {
        cases: cases
            .iter()
            .map(|case| SelectionCase {
                message: case.message.clone(),
                expect: Expected::Tools(case.expected.clone()),
                turns: case.turns.clone(),
            })
            .collect(),
    };
    for k in [5, 10] {
        match toolkit::testing::compare_selection_with_embeddings(mcp, &as_set(cases), k, model) {
            Ok(comparison) => println!(
                "\nMCP servers ({} tools), k = {k}:\n{}",
                mcp.len(),
                comparison.table()
            ),
            Err(error) => eprintln!("MCP servers: {error}"),
        }
    }
    if let Some(dir) = bfcl {
        for files in [&BFCL_FILES, &BFCL_PARALLEL_FILES] {
            let Ok(bfcl) = Bfcl::load(dir, files) else {
                continue;
            };
            let cases: Vec<&Case> = bfcl.cases.iter().collect();
            match toolkit::testing::compare_selection_with_embeddings(
                &bfcl.catalog,
                &as_set(&cases),
                5,
                model,
            ) {
                Ok(comparison) => println!(
                    "\nBFCL v4 {files:?} ({} tools), k = 5:\n{}",
                    bfcl.catalog.len(),
                    comparison.table()
                ),
                Err(error) => eprintln!("BFCL: {error}"),
            }
        }
    }
    // The fusion's weight of meaning beside words (1), on both public sets.
    let fused = |catalog: &Catalog, cases: &[&Case], label: &str| {
        let set = as_set(cases);
        let router = lexical(catalog);
        let words = toolkit::testing::evaluate_blocking(&router, &set, 10);
        let words5 = toolkit::testing::evaluate_blocking(&router, &set, 5);
        println!(
            "{label}: LexicalRouter recall@1 {:.1} recall@5 {:.1} recall@10 {:.1} MRR@10 {:.3}",
            words.recall_at_1 * 100.0,
            words5.recall_at_k * 100.0,
            words.recall_at_k * 100.0,
            words.mrr
        );
        for &weight in weights {
            let hybrid =
                HybridRouter::new(catalog.clone(), Arc::clone(model)).meaning_weight(weight);
            let at10 = toolkit::testing::evaluate_blocking(&hybrid, &set, 10);
            let at5 = toolkit::testing::evaluate_blocking(&hybrid, &set, 5);
            let test = toolkit::testing::paired_test(&words, &at10)
                .map_or_else(|error| error.to_string(), |test| test.to_string());
            println!(
                "{label}: hybrid, meaning weight {weight}: recall@1 {:.1} recall@5 {:.1} recall@10 {:.1} MRR@10 {:.3}; vs LexicalRouter: {test}",
                at10.recall_at_1 * 100.0,
                at5.recall_at_k * 100.0,
                at10.recall_at_k * 100.0,
                at10.mrr
            );
        }
    };
    println!();
    fused(mcp, cases, "MCP servers");
    if let Some(dir) = bfcl {
        for files in [&BFCL_FILES, &BFCL_PARALLEL_FILES] {
            if let Ok(bfcl) = Bfcl::load(dir, files) {
                let cases: Vec<&Case> = bfcl.cases.iter().collect();
                fused(&bfcl.catalog, &cases, &format!("BFCL {files:?}"));
            }
        }
    }
    if !timing {
        return;
    }
    // Cost: embedding a catalog of 500 tools once, and routing one message over
    // it with the embeddings cached (medians of 21 rounds over the MCP tasks).
    let five_hundred = routing_bench::synthetic_catalog(500);
    let start = Instant::now();
    let hybrid = HybridRouter::new(five_hundred.clone(), Arc::clone(model));
    let build = start.elapsed();
    let embedding = EmbeddingRouter::new(five_hundred, Arc::clone(model));
    let per_message = |rank: &dyn Fn(&RouteRequest<'_>) -> usize| {
        let mut rounds: Vec<f64> = (0..21)
            .map(|_| {
                let start = Instant::now();
                let mut picked = 0;
                for case in cases {
                    picked += rank(&RouteRequest::new(&case.message));
                }
                std::hint::black_box(picked);
                #[allow(clippy::cast_precision_loss)]
                let count = cases.len().max(1) as f64;
                start.elapsed().as_secs_f64() * 1e6 / count
            })
            .collect();
        rounds.sort_by(f64::total_cmp);
        rounds[rounds.len() / 2]
    };
    let embedding_time = per_message(&|request| embedding.rank(request).len());
    let hybrid_time = per_message(&|request| hybrid.rank(request).len());
    println!(
        "\n500 tools: HybridRouter::new (index and embeddings) {:.1} ms; per message (median of 21 rounds): EmbeddingRouter {embedding_time:.1} µs, HybridRouter {hybrid_time:.1} µs",
        build.as_secs_f64() * 1e3
    );
}

#[cfg(not(feature = "embeddings"))]
fn embedding_rows(_: &std::path::Path, _: &Catalog, _: &[&Case], _: Option<&std::path::Path>) {
    eprintln!(
        "--embeddings needs the `embeddings` feature: cargo run --release -p routing-bench --features embeddings --bin routing -- --embeddings DIR"
    );
    std::process::exit(2);
}

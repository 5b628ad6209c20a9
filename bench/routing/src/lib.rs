//! Measures toolkit's routers side by side: [`toolkit::route::LexicalRouter`] against
//! [`toolkit::route::PlainBm25`] (BM25 over name and description), on a labelled set
//! for the assistant and CMS catalogs (`data/labelled.json`) and on BFCL v4
//! (`scripts/bfcl.sh` downloads it; nothing of it is committed).

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;
use toolkit::route::{Catalog, CatalogEntry, ParamEntry, RouteRequest};

// The assistant's tools live in the registry only if the crate is linked.
extern crate example_assistant as _;

/// The CMS catalog of USE-CASES C, as JSON entries (the way an external catalog
/// arrives).
pub const CMS_JSON: &str = include_str!("../data/cms.json");

/// The labelled messages, as JSON: the set the router's word tables were tuned on.
pub const LABELLED_JSON: &str = include_str!("../data/labelled.json");

/// The held-out labelled messages, as JSON: written before the router learned to
/// read the verb, and never used to tune it (see BENCHMARKS.md).
pub const HELDOUT_JSON: &str = include_str!("../data/heldout.json");

/// A second held-out set, as JSON: about fifty messages per catalog written from
/// the catalogs and the use cases only, before any router change, and never
/// measured by its writer; like [`HELDOUT_JSON`], never used to tune the router.
pub const HELDOUT2_JSON: &str = include_str!("../data/heldout2.json");

/// A second tuning set, as JSON: fresh paraphrases of the assistant's and the
/// CMS's tasks, written from the catalogs and the use cases (not from the held-out
/// messages) to grow the word tables without reading the held-out set.
pub const FRESH_JSON: &str = include_str!("../data/fresh.json");

/// The tools of 21 published MCP servers (npm and PyPI), listed over stdio by
/// `scripts/mcp_catalog.sh` and named as `ExternalServer` offers them.
pub const MCP_SERVERS_JSON: &str = include_str!("../data/mcp_servers.json");

/// Tasks for [`MCP_SERVERS_JSON`], written for this catalog before any router
/// was run on them (kinds: `plain`, `meaning`: no word shared with the tool,
/// `file`: a file name or path, `multi`: several steps). A tuning set.
pub const MCP_TASKS_JSON: &str = include_str!("../data/mcp_tasks.json");

/// The MCP servers' catalog ([`MCP_SERVERS_JSON`]).
///
/// # Panics
/// If `data/mcp_servers.json` is broken (a test reads it).
#[must_use]
pub fn mcp_catalog() -> Catalog {
    Catalog::from_json(MCP_SERVERS_JSON)
        .expect("data/mcp_servers.json is a JSON array of catalog entries")
}

/// The MCP servers' tasks ([`MCP_TASKS_JSON`]).
///
/// # Panics
/// If `data/mcp_tasks.json` is broken (a test reads it).
#[must_use]
pub fn mcp_cases() -> Vec<Case> {
    serde_json::from_str(MCP_TASKS_JSON).expect("data/mcp_tasks.json is a JSON array of cases")
}

/// A third tuning set, as JSON, in two parts by two writers: messages written
/// from the catalogs and the use cases by people who had not seen the router,
/// after the second held-out set showed the tables tuned on the first two sets
/// to be short (see BENCHMARKS.md).
pub const TUNE3_JSON: [&str; 2] = [
    include_str!("../data/tune3a.json"),
    include_str!("../data/tune3b.json"),
];

/// One message with the tools that should be picked for it.
#[derive(Clone, Debug, Deserialize)]
pub struct Case {
    /// Which catalog: `assistant`, `cms` (labelled set), or the BFCL file
    /// (`multiple`, `live_multiple`).
    pub catalog: String,
    /// The message.
    pub message: String,
    /// Earlier turns, oldest first.
    #[serde(default)]
    pub turns: Vec<String>,
    /// The tools that should be picked (any order).
    pub expected: Vec<String>,
    /// Whether the message shares no content word with the expected tools'
    /// descriptions.
    #[serde(default)]
    pub paraphrase: bool,
    /// What the held-out set's message tests: `seed` (the use case's own words),
    /// `verb` (the verb against a stray description word), `noun` (a noun that is
    /// also a verb), `two` (two entities named), `paraphrase`, `multi`.
    #[serde(default)]
    pub kind: Option<String>,
}

/// The assistant example's 23 tools, always and routed alike.
#[must_use]
pub fn assistant_catalog() -> Catalog {
    Catalog::from_tools(toolkit::registry())
}

/// The CMS's 34 tools.
///
/// # Panics
/// If `data/cms.json` is broken (a test reads it).
#[must_use]
pub fn cms_catalog() -> Catalog {
    Catalog::from_json(CMS_JSON).expect("data/cms.json is a JSON array of catalog entries")
}

/// The labelled cases.
///
/// # Panics
/// If `data/labelled.json` is broken (a test reads it).
#[must_use]
pub fn labelled_cases() -> Vec<Case> {
    serde_json::from_str(LABELLED_JSON).expect("data/labelled.json is a JSON array of cases")
}

/// The held-out cases.
///
/// # Panics
/// If `data/heldout.json` is broken (a test reads it).
#[must_use]
pub fn heldout_cases() -> Vec<Case> {
    serde_json::from_str(HELDOUT_JSON).expect("data/heldout.json is a JSON array of cases")
}

/// The second held-out set's cases ([`HELDOUT2_JSON`]).
///
/// # Panics
/// If `data/heldout2.json` is broken (a test reads it).
#[must_use]
pub fn heldout2_cases() -> Vec<Case> {
    serde_json::from_str(HELDOUT2_JSON).expect("data/heldout2.json is a JSON array of cases")
}

/// The second tuning set's cases ([`FRESH_JSON`]).
///
/// # Panics
/// If `data/fresh.json` is broken (a test reads it).
#[must_use]
pub fn fresh_cases() -> Vec<Case> {
    serde_json::from_str(FRESH_JSON).expect("data/fresh.json is a JSON array of cases")
}

/// The third tuning set's cases ([`TUNE3_JSON`], both parts).
///
/// # Panics
/// If `data/tune3a.json` or `data/tune3b.json` is broken (a test reads them).
#[must_use]
pub fn tune3_cases() -> Vec<Case> {
    TUNE3_JSON
        .iter()
        .flat_map(|json| {
            serde_json::from_str::<Vec<Case>>(json)
                .expect("data/tune3a.json and tune3b.json are JSON arrays of cases")
        })
        .collect()
}

/// Recall figures for one router over one set of cases.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Recall {
    /// How many cases.
    pub cases: usize,
    /// Mean share of expected tools in the first 1, 3, 5 picks.
    pub at: [f64; 3],
    /// Mean reciprocal rank of the first expected tool within the first 5 (0 when
    /// none is there).
    pub mrr: f64,
    /// How many cases expect more than one tool.
    pub multi: usize,
    /// How many of those have every expected tool in the first 5.
    pub multi_all_at_5: usize,
}

impl Recall {
    /// `"85.0%"` style percentage of `value` in 0..=1.
    #[must_use]
    pub fn percent(value: f64) -> String {
        format!("{:.1}%", value * 100.0)
    }

    /// The multi-tool figure as `"3/4 (75.0%)"`, or `"n/a (0)"`.
    #[must_use]
    pub fn multi_cell(&self) -> String {
        if self.multi == 0 {
            "n/a (none)".to_owned()
        } else {
            #[allow(clippy::cast_precision_loss)]
            let share = self.multi_all_at_5 as f64 / self.multi as f64;
            format!(
                "{}/{} ({})",
                self.multi_all_at_5,
                self.multi,
                Recall::percent(share)
            )
        }
    }
}

/// Ranks each case with `rank` (best first, at least five names when it can) and
/// adds the figures up.
pub fn evaluate<'c>(
    cases: impl IntoIterator<Item = &'c Case>,
    mut rank: impl FnMut(&RouteRequest<'_>) -> Vec<String>,
) -> Recall {
    let mut recall = Recall::default();
    let mut sums = [0.0_f64; 3];
    let mut reciprocal = 0.0_f64;
    for case in cases {
        let request = RouteRequest::new(&case.message)
            .turns(case.turns.iter().map(String::as_str))
            .limit(5);
        let ranked = rank(&request);
        #[allow(clippy::cast_precision_loss)]
        let expected = case.expected.len() as f64;
        for (slot, k) in [1, 3, 5].into_iter().enumerate() {
            let top = &ranked[..ranked.len().min(k)];
            #[allow(clippy::cast_precision_loss)]
            let found = case
                .expected
                .iter()
                .filter(|name| top.contains(name))
                .count() as f64;
            sums[slot] += found / expected;
        }
        if let Some(position) = ranked
            .iter()
            .take(5)
            .position(|name| case.expected.contains(name))
        {
            #[allow(clippy::cast_precision_loss)]
            let rank = (position + 1) as f64;
            reciprocal += 1.0 / rank;
        }
        if case.expected.len() > 1 {
            recall.multi += 1;
            let top = &ranked[..ranked.len().min(5)];
            if case.expected.iter().all(|name| top.contains(name)) {
                recall.multi_all_at_5 += 1;
            }
        }
        recall.cases += 1;
    }
    #[allow(clippy::cast_precision_loss)]
    let count = recall.cases.max(1) as f64;
    recall.at = sums.map(|sum| sum / count);
    recall.mrr = reciprocal / count;
    recall
}

/// One markdown table row:
/// `| set | router | cases | r@1 | r@3 | r@5 | MRR | multi |`.
#[must_use]
pub fn row(set: &str, router: &str, recall: &Recall) -> String {
    format!(
        "| {set} | {router} | {} | {} | {} | {} | {:.3} | {} |",
        recall.cases,
        Recall::percent(recall.at[0]),
        Recall::percent(recall.at[1]),
        Recall::percent(recall.at[2]),
        recall.mrr,
        recall.multi_cell()
    )
}

/// The table header matching [`row`].
pub const HEADER: &str = "| set | router | cases | recall@1 | recall@3 | recall@5 | MRR | multi-tool: all in top 5 |\n|---|---|---|---|---|---|---|---|";

/// BFCL v4's `multiple` and `live_multiple` questions, with every function of both
/// files pooled into one catalog (a name seen twice keeps its first definition).
#[derive(Debug)]
pub struct Bfcl {
    /// The pooled functions.
    pub catalog: Catalog,
    /// One case per question: its last user message, earlier user messages as
    /// turns, and the functions of its gold calls.
    pub cases: Vec<Case>,
}

/// A BFCL function definition: only the words matter here.
#[derive(Deserialize)]
struct Function {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    parameters: Option<Parameters>,
}

#[derive(Deserialize)]
struct Parameters {
    #[serde(default)]
    properties: serde_json::Map<String, serde_json::Value>,
}

#[derive(Deserialize)]
struct Question {
    id: String,
    #[serde(rename = "question")]
    turns: Vec<Vec<Message>>,
    function: Vec<Function>,
}

#[derive(Deserialize)]
struct Message {
    role: String,
    content: String,
}

#[derive(Deserialize)]
struct Answer {
    id: String,
    ground_truth: Vec<serde_json::Map<String, serde_json::Value>>,
}

/// The files of the main BFCL measurement: one gold function per question.
pub const BFCL_FILES: [&str; 2] = ["BFCL_v4_multiple.json", "BFCL_v4_live_multiple.json"];

/// The files of the multi-tool measurement: questions whose gold calls name
/// several functions (a separate pool).
pub const BFCL_PARALLEL_FILES: [&str; 2] = [
    "BFCL_v4_parallel_multiple.json",
    "BFCL_v4_live_parallel_multiple.json",
];

impl Bfcl {
    /// Reads `files` and their gold answers (`possible_answer/`) from `data`,
    /// BFCL's `bfcl_eval/data` directory.
    pub fn load(data: &Path, files: &[&str]) -> Result<Bfcl, String> {
        let mut entries = Vec::new();
        let mut cases = Vec::new();
        for &file in files {
            let read = |path: &Path| {
                std::fs::read_to_string(path)
                    .map_err(|error| format!("{}: {error}", path.display()))
            };
            let questions = read(&data.join(file))?;
            let answers = read(&data.join("possible_answer").join(file))?;
            let mut gold: HashMap<String, Vec<String>> = HashMap::new();
            for line in answers.lines().filter(|line| !line.trim().is_empty()) {
                let answer: Answer = serde_json::from_str(line)
                    .map_err(|error| format!("{file} answers: {error}"))?;
                let mut names: Vec<String> = answer
                    .ground_truth
                    .iter()
                    .flat_map(|call| call.keys().cloned())
                    .collect();
                let mut seen = std::collections::HashSet::new();
                names.retain(|name| seen.insert(name.clone()));
                gold.insert(answer.id, names);
            }
            for line in questions.lines().filter(|line| !line.trim().is_empty()) {
                let question: Question =
                    serde_json::from_str(line).map_err(|error| format!("{file}: {error}"))?;
                entries.extend(question.function.into_iter().map(|function| {
                    let mut entry = CatalogEntry::new(function.name, function.description);
                    entry.params = function
                        .parameters
                        .map(|parameters| {
                            parameters
                                .properties
                                .into_iter()
                                .map(|(name, property)| ParamEntry {
                                    description: property
                                        .get("description")
                                        .and_then(serde_json::Value::as_str)
                                        .unwrap_or_default()
                                        .to_owned(),
                                    name,
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    entry
                }));
                let mut user: Vec<String> = question
                    .turns
                    .iter()
                    .flatten()
                    .filter(|message| message.role == "user")
                    .map(|message| message.content.clone())
                    .collect();
                let Some(message) = user.pop() else { continue };
                let expected = gold
                    .remove(&question.id)
                    .ok_or_else(|| format!("{file}: no gold answer for {}", question.id))?;
                cases.push(Case {
                    catalog: file
                        .trim_start_matches("BFCL_v4_")
                        .trim_end_matches(".json")
                        .to_owned(),
                    message,
                    turns: user,
                    expected,
                    paraphrase: false,
                    kind: None,
                });
            }
        }
        Ok(Bfcl {
            catalog: Catalog::new(entries),
            cases,
        })
    }
}

/// `count` made-up tools with realistic words: a verb, one or two nouns, a
/// three-sentence description and three parameters, from a fixed pseudo-random
/// sequence (the same catalog every run). The benches' catalog.
#[must_use]
pub fn synthetic_catalog(count: usize) -> Catalog {
    const VERBS: [&str; 7] = ["get", "create", "update", "delete", "search", "set", "link"];
    const NOUNS: [&str; 40] = [
        "task",
        "reminder",
        "schedule",
        "memory",
        "email",
        "contact",
        "invoice",
        "order",
        "product",
        "customer",
        "ticket",
        "page",
        "post",
        "image",
        "section",
        "entry",
        "campaign",
        "report",
        "payment",
        "refund",
        "shipment",
        "warehouse",
        "employee",
        "meeting",
        "calendar",
        "document",
        "folder",
        "comment",
        "review",
        "subscription",
        "coupon",
        "playlist",
        "song",
        "flight",
        "hotel",
        "booking",
        "weather",
        "stock",
        "portfolio",
        "device",
    ];
    const WORDS: [&str; 24] = [
        "the", "current", "user", "account", "by", "id", "with", "optional", "filters", "returns",
        "a", "list", "of", "matching", "items", "newest", "first", "for", "given", "date", "range",
        "and", "status", "region",
    ];
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        usize::try_from(state % bound as u64).unwrap_or(0)
    };
    let entries = (0..count).map(|i| {
        let verb = VERBS[next(VERBS.len())];
        let (a, b) = (NOUNS[next(NOUNS.len())], NOUNS[next(NOUNS.len())]);
        let sentence = |next: &mut dyn FnMut(usize) -> usize| {
            (0..12)
                .map(|_| WORDS[next(WORDS.len())])
                .collect::<Vec<_>>()
                .join(" ")
        };
        let description = format!(
            "{verb} {a} {b}s. {}. {}.",
            sentence(&mut next),
            sentence(&mut next)
        );
        let mut entry = CatalogEntry::new(format!("{verb}_{a}_{b}s_{i}"), description);
        entry.group = Some(a.to_owned());
        entry.params = (0..3)
            .map(|_| ParamEntry {
                name: format!("{}_{}", NOUNS[next(NOUNS.len())], WORDS[next(WORDS.len())]),
                description: sentence(&mut next),
            })
            .collect();
        entry
    });
    Catalog::new(entries.collect::<Vec<_>>())
}

/// Messages of about `bytes` bytes that no user writes: words (a long paste),
/// a base64 blob, no words at all (punctuation), every script and emoji, and
/// file paths. Named for the bench's rows.
#[must_use]
pub fn hostile_messages(bytes: usize) -> Vec<(&'static str, String)> {
    let fill = |pattern: &str| pattern.repeat(bytes / pattern.len().max(1));
    // Bytes that are not base64's: a fixed pseudo-random sequence, encoded.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let base64: String = (0..bytes)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from(alphabet[usize::try_from(state % 64).unwrap_or(0)])
        })
        .collect();
    vec![
        (
            "words",
            fill("cancel the hotel booking and tell me the refund status "),
        ),
        ("base64 blob", base64),
        ("no words", fill("!?.,;:-=+*/\\|()[]{}<>@#$%^&~`'\" ")),
        (
            "every script and emoji",
            fill("Grüße мир 世界 مرحبا שלום नमस्ते こんにちは 안녕 ΓΕΙΑ ሰላም 🙂🚀👩‍💻🇫🇷 "),
        ),
        (
            "file paths",
            fill("save it to /root/excel/goods.xlsx and ./out/report.pdf "),
        ),
    ]
}

//! One labelled set, three ways of choosing the tools a request carries: sending
//! every routed tool, toolkit's router, and a provider's own tool search modelled
//! locally. [`compare_selection`] scores them side by side, so a team sees what
//! each would put in front of the model before choosing.

use std::fmt::{self, Write as _};

use serde::Serialize;

use super::paired::paired_test;
use super::selection::{SelectionReport, SelectionSet, SelectionSetError, evaluate_blocking};
use crate::route::{Catalog, LexicalRouter, PlainBm25};

/// The figures of [`compare_selection`]: the same set scored for each way of
/// choosing tools.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SelectionComparison {
    /// The k of recall@k and MRR, for the router and the provider's search alike.
    pub k: usize,
    /// How many routed tools the catalog has: what sending all of them puts in
    /// every request (every expected tool is there; the model chooses among all).
    pub send_all: usize,
    /// toolkit's [`LexicalRouter`] over the catalog as given.
    pub router: SelectionReport,
    /// The same router over the catalog with every `asked_as` message removed:
    /// what the tools' example messages add. `None` when no tool has any.
    pub router_without_asked_as: Option<SelectionReport>,
    /// A provider's search modelled locally: [`PlainBm25`] over each tool's name
    /// and description, the user's message as the query, at most k tools found
    /// (Anthropic's `tool_search_tool_bm25` indexes the same two fields of
    /// deferred tools; there the model writes the query).
    pub provider_search: SelectionReport,
    /// The `route::embedding::EmbeddingRouter` over the
    /// catalog: meaning alone. `None` unless embeddings were given
    /// (`compare_selection_with_embeddings`, feature `embeddings`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding: Option<SelectionReport>,
    /// The `route::embedding::HybridRouter`: words and
    /// meaning fused. `None` unless embeddings were given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hybrid: Option<SelectionReport>,
}

/// Scores `set` against `catalog` three ways (see [`SelectionComparison`]),
/// after checking that every tool the set expects is in the catalog.
///
/// ```
/// use toolkit::route::{Catalog, CatalogEntry};
/// use toolkit::testing::{SelectionSet, compare_selection};
///
/// let catalog = Catalog::new([
///     CatalogEntry::new("delete_tasks", "Delete tasks by id."),
///     CatalogEntry::new("get_reminders", "Get reminders, soonest first."),
/// ]);
/// let set = SelectionSet::from_toml(r#"
///     [[case]]
///     message = "get rid of the groceries to-do"
///     expect = "delete_tasks"
/// "#).unwrap();
/// let comparison = compare_selection(&catalog, &set, 5).unwrap();
/// assert_eq!(comparison.send_all, 2);
/// assert_eq!(comparison.router.recall_at_1, 1.0);
/// // Plain BM25 finds no word of the message in either tool.
/// assert_eq!(comparison.provider_search.recall_at_1, 0.0);
/// println!("{comparison}");
/// ```
pub fn compare_selection(
    catalog: &Catalog,
    set: &SelectionSet,
    k: usize,
) -> Result<SelectionComparison, SelectionSetError> {
    set.check_against(catalog)?;
    let router = evaluate_blocking(&LexicalRouter::new(catalog.clone()), set, k);
    let router_without_asked_as =
        catalog
            .iter()
            .any(|entry| !entry.asked_as.is_empty())
            .then(|| {
                let bare = Catalog::new(catalog.iter().cloned().map(|mut entry| {
                    entry.asked_as.clear();
                    entry
                }));
                evaluate_blocking(&LexicalRouter::new(bare), set, k)
            });
    let provider_search = evaluate_blocking(&PlainBm25::new(catalog.clone()), set, k);
    Ok(SelectionComparison {
        k: router.k,
        send_all: catalog.len(),
        router,
        router_without_asked_as,
        provider_search,
        embedding: None,
        hybrid: None,
    })
}

/// [`compare_selection`] with two more rows: the
/// [`EmbeddingRouter`](crate::route::embedding::EmbeddingRouter) and the
/// [`HybridRouter`](crate::route::embedding::HybridRouter) over the same
/// catalog, with `model`'s embeddings (feature `embeddings`): a
/// `StaticEmbeddings` table or a `SentenceEncoder`.
#[cfg(feature = "embeddings")]
pub fn compare_selection_with_embeddings<M: crate::route::embedding::Embedder + 'static>(
    catalog: &Catalog,
    set: &SelectionSet,
    k: usize,
    model: &std::sync::Arc<M>,
) -> Result<SelectionComparison, SelectionSetError> {
    use crate::route::embedding::{EmbeddingRouter, HybridRouter};
    let mut comparison = compare_selection(catalog, set, k)?;
    let embedding = EmbeddingRouter::new(catalog.clone(), std::sync::Arc::clone(model));
    comparison.embedding = Some(evaluate_blocking(&embedding, set, k));
    let hybrid = HybridRouter::new(catalog.clone(), std::sync::Arc::clone(model));
    comparison.hybrid = Some(evaluate_blocking(&hybrid, set, k));
    Ok(comparison)
}

impl SelectionComparison {
    /// The comparison as pretty JSON, for CI artefacts.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a comparison is plain data")
    }
}

fn percent(value: f64) -> String {
    format!("{:.1}%", value * 100.0)
}

/// The abstention cell: `-` for a set with no "none" case, where the report's
/// 1.0 means "nothing to abstain on", not "abstained".
fn abstention(report: &SelectionReport, value: f64) -> String {
    if report.none_cases == 0 {
        "-".to_owned()
    } else {
        percent(value)
    }
}

/// One row of the table: the strategy, then its figures.
fn row(text: &mut String, strategy: &str, report: &SelectionReport) {
    let _ = writeln!(
        text,
        "{strategy:<36} {:>10.1} {:>9} {:>9} {:>6.3} {:>11}",
        report.tools_sent,
        percent(report.recall_at_1),
        percent(report.recall_at_k),
        report.mrr,
        abstention(report, report.abstention),
    );
}

impl SelectionComparison {
    /// The table alone: one row per way of choosing tools (tools sent per
    /// message, recall@1, recall@k, MRR, abstention), then the paired tests
    /// ([`paired_test`](super::paired_test)) of the router against the
    /// provider's search and of the hybrid against the router, without the
    /// router's misses, for sets too large to list them.
    #[must_use]
    pub fn table(&self) -> String {
        let k = self.k;
        let mut text = format!(
            "{} cases expecting tools, {} expecting none; {} routed tools\n",
            self.router.cases, self.router.none_cases, self.send_all
        );
        let recall_k = format!("recall@{k}");
        let _ = writeln!(
            text,
            "{:<36} {:>10} {:>9} {recall_k:>9} {:>6} {:>11}",
            "", "tools sent", "recall@1", "MRR", "abstention"
        );
        // Sending everything finds every expected tool and abstains on nothing;
        // which one the model then calls is the model's choice, not ranked here.
        let _ = writeln!(
            text,
            "{:<36} {:>10} {:>9} {:>9} {:>6} {:>11}",
            "send all",
            self.send_all,
            "-",
            percent(1.0),
            "-",
            abstention(&self.router, 0.0)
        );
        row(&mut text, "toolkit LexicalRouter", &self.router);
        if let Some(bare) = &self.router_without_asked_as {
            row(&mut text, "  the same, without asked_as", bare);
        }
        row(
            &mut text,
            "provider search (BM25, name + desc)",
            &self.provider_search,
        );
        if let Some(embedding) = &self.embedding {
            row(&mut text, "embeddings (cosine)", embedding);
        }
        if let Some(hybrid) = &self.hybrid {
            row(&mut text, "hybrid (words + embeddings, RRF)", hybrid);
        }
        // Each router against the one it should beat, case by case: is the
        // difference more than the luck of which cases the set holds?
        let _ = writeln!(text, "paired, over each case's reciprocal rank:");
        let mut pair = |label: &str, a: &SelectionReport, b: &SelectionReport| {
            if let Ok(test) = paired_test(a, b) {
                let _ = writeln!(text, "  {label}: {test}");
            }
        };
        pair(
            "LexicalRouter vs provider search",
            &self.provider_search,
            &self.router,
        );
        if let Some(hybrid) = &self.hybrid {
            pair("hybrid vs LexicalRouter", &self.router, hybrid);
        }
        text
    }
}

impl fmt::Display for SelectionComparison {
    /// The [`table`](SelectionComparison::table), then the router's own report.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}\nthe router's report:\n{}", self.table(), self.router)
    }
}

/// How to call the command of [`selection_command_main`].
const USAGE: &str = "usage: SET.toml [--k N] [--json]\n\
    prints how the labelled set SET.toml scores against this catalog: sending every routed\n\
    tool, toolkit's router, and a provider's search (BM25 over name and description)";

/// What [`selection_command_main`] prints for `args` (without the program
/// name): the comparison as text, or as JSON with `--json`; k is 5 unless
/// `--k N` says otherwise. The error is the message to print, with the usage
/// when the arguments were wrong.
pub fn selection_command(
    catalog: &Catalog,
    args: impl IntoIterator<Item = String>,
) -> Result<String, String> {
    let mut path = None;
    let mut k = 5;
    let mut json = false;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => json = true,
            "--k" => {
                k = args
                    .next()
                    .and_then(|value| value.parse::<usize>().ok())
                    .filter(|value| *value > 0)
                    .ok_or_else(|| format!("`--k` takes a whole number above 0\n{USAGE}"))?;
            }
            "-h" | "--help" => return Err(USAGE.to_owned()),
            flag if flag.starts_with('-') => {
                return Err(format!("unknown option `{flag}`\n{USAGE}"));
            }
            _ if path.is_some() => {
                return Err(format!(
                    "one labelled set at a time, got a second: `{arg}`\n{USAGE}"
                ));
            }
            _ => path = Some(arg),
        }
    }
    let path = path.ok_or_else(|| format!("name the labelled set to score\n{USAGE}"))?;
    let set = SelectionSet::load(&path).map_err(|error| error.to_string())?;
    let comparison = compare_selection(catalog, &set, k).map_err(|error| error.to_string())?;
    Ok(if json {
        comparison.to_json()
    } else {
        comparison.to_string()
    })
}

/// A command that prints the selection report of your own catalog: call it from
/// a small binary or example of your crate and pass the labelled set's path.
///
/// ```no_run
/// // examples/selection.rs of your crate; naming the crate keeps its tools linked.
/// // use my_tools as _;
/// fn main() -> std::process::ExitCode {
///     toolkit::testing::selection_command_main(&toolkit::route::Catalog::routed(toolkit::registry()))
/// }
/// ```
///
/// ```sh
/// cargo run --example selection -- tests/selection.toml           # the text report
/// cargo run --example selection -- tests/selection.toml --json    # the same as JSON
/// ```
///
/// Exits with 0 after printing the report, or 2 with the reason on stderr.
#[must_use]
pub fn selection_command_main(catalog: &Catalog) -> std::process::ExitCode {
    match selection_command(catalog, std::env::args().skip(1)) {
        Ok(text) => {
            println!("{text}");
            std::process::ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{message}");
            std::process::ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::CatalogEntry;

    #[test]
    fn three_ways_side_by_side_and_what_asked_as_adds() {
        let mut reminders = CatalogEntry::new("get_reminders", "Get reminders, soonest first.");
        reminders.asked_as = vec!["what is coming up this week".to_owned()];
        let catalog = Catalog::new([
            CatalogEntry::new("delete_tasks", "Delete tasks by id."),
            reminders,
            CatalogEntry::new("create_reminders", "Create a reminder at a time."),
        ]);
        let set = SelectionSet::from_toml(
            r#"
            [[case]]
            message = "get rid of the groceries to-do"
            expect = "delete_tasks"

            [[case]]
            message = "what is coming up?"
            expect = "get_reminders"

            [[case]]
            message = "tell me a joke"
            expect = "none"
            "#,
        )
        .unwrap();
        let comparison = compare_selection(&catalog, &set, 2).unwrap();
        // Plain BM25 keeps stop words: "a" in "tell me a joke" finds
        // `create_reminders` ("Create a reminder at a time"), so it never
        // abstains here, where the router does.
        assert_eq!(
            comparison.to_string(),
            concat!(
                "2 cases expecting tools, 1 expecting none; 3 routed tools\n",
                "                                     tools sent  recall@1  recall@2    MRR  abstention\n",
                "send all                                      3         -    100.0%      -        0.0%\n",
                "toolkit LexicalRouter                       0.7    100.0%    100.0%  1.000      100.0%\n",
                "  the same, without asked_as                0.3     50.0%     50.0%  0.500      100.0%\n",
                "provider search (BM25, name + desc)         0.7      0.0%      0.0%  0.000        0.0%\n",
                "paired, over each case's reciprocal rank:\n",
                "  LexicalRouter vs provider search: MRR +1.000 (95% CI +1.000..+1.000), better on 2, worse on 0, tied on 0 of 2; sign test p = 0.500\n",
                "\n",
                "the router's report:\n",
                "2 cases expecting tools, 1 expecting none\n",
                "recall@1 100.0%  recall@2 100.0%  MRR 1.000  abstention 100.0%  wrong abstentions 0\n",
            )
        );
        let json: serde_json::Value = serde_json::from_str(&comparison.to_json()).unwrap();
        assert_eq!(json["send_all"], 3);
        assert_eq!(json["router"]["recall_at_1"], 1.0);
        assert_eq!(json["router_without_asked_as"]["recall_at_1"], 0.5);
        assert_eq!(json["provider_search"]["recall_at_k"], 0.0);
    }

    #[test]
    fn the_command_reads_a_set_a_k_and_json_and_says_what_is_wrong() {
        let catalog = Catalog::new([CatalogEntry::new("delete_tasks", "Delete tasks by id.")]);
        let dir = std::env::temp_dir().join(format!("toolkit-selection-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("set.toml");
        std::fs::write(
            &path,
            "[[case]]\nmessage = \"delete task 4\"\nexpect = \"delete_tasks\"\n",
        )
        .unwrap();
        let path = path.display().to_string();
        let args = |list: &[&str]| list.iter().map(|arg| (*arg).to_owned()).collect::<Vec<_>>();

        let text = selection_command(&catalog, args(&[&path, "--k", "3"])).unwrap();
        assert!(
            text.starts_with("1 cases expecting tools, 0 expecting none; 1 routed tools\n"),
            "{text}"
        );
        assert!(text.contains("recall@3"), "{text}");
        // No "none" case: nothing to abstain on, shown as `-`, not 100%.
        assert!(
            text.contains("\nsend all                                      1         -    100.0%      -           -\n"),
            "{text}"
        );
        let json: serde_json::Value =
            serde_json::from_str(&selection_command(&catalog, args(&["--json", &path])).unwrap())
                .unwrap();
        assert_eq!(json["k"], 5);
        assert_eq!(json["router"]["recall_at_1"], 1.0);

        assert_eq!(
            selection_command(&catalog, args(&[&path, "--k", "0"])).unwrap_err(),
            format!("`--k` takes a whole number above 0\n{USAGE}")
        );
        assert_eq!(
            selection_command(&catalog, args(&[&path, "--verbose"])).unwrap_err(),
            format!("unknown option `--verbose`\n{USAGE}")
        );
        assert_eq!(
            selection_command(&catalog, args(&[])).unwrap_err(),
            format!("name the labelled set to score\n{USAGE}")
        );
        let missing = dir.join("missing.toml").display().to_string();
        assert!(
            selection_command(&catalog, args(&[&missing]))
                .unwrap_err()
                .starts_with(&format!("cannot read the labelled set {missing}: "))
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_set_naming_a_tool_outside_the_catalog_is_refused() {
        let catalog = Catalog::new([CatalogEntry::new("delete_tasks", "Delete tasks by id.")]);
        let set =
            SelectionSet::from_toml("[[case]]\nmessage = \"hi\"\nexpect = \"get_task\"\n").unwrap();
        assert!(matches!(
            compare_selection(&catalog, &set, 5),
            Err(SelectionSetError::UnknownTool { tool, .. }) if tool == "get_task"
        ));
    }
}

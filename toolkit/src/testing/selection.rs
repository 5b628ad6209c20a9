//! Selection evals: a labelled set of user messages, each with the tool or tools
//! that should reach the model (or none), scored against a router and its catalog.
//!
//! The set is TOML, one `[[case]]` per message:
//!
//! ```toml
//! [[case]]
//! message = "what's still open on my list?"
//! expect = "get_tasks"
//!
//! [[case]]
//! message = "move the milk to groceries and remind me at six"
//! expect = ["update_tasks", "create_reminders"]   # both should be picked
//!
//! [[case]]
//! message = "tell me a joke"
//! expect = "none"                                  # no routed tool fits
//! ```
//!
//! [`evaluate`] routes every message through a [`Router`] (with the earlier
//! `turns` a case gives) and adds up: recall@1 and recall@k (the share of a
//! message's expected tools found in the router's first 1 or k picks, averaged
//! over messages), MRR (1/rank of the first expected tool within the first k, 0
//! when none is there), abstention (the share of "none" messages the router
//! abstained on), the confusion pairs (expected, picked first instead) and each
//! tool's recall@k. [`SelectionReport`] prints as text for test output and
//! serializes to JSON for CI; [`SelectionReport::check`] and
//! [`assert_selection`] fail a `cargo test` when a figure drops under its
//! [`Thresholds`]. [`confusable_tools`] lists the pairs of tools the router
//! cannot tell apart from their own words.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll, Wake, Waker};
use std::thread::{self, Thread};

use serde::{Deserialize, Serialize};

use crate::route::{Catalog, Explanation, LexicalRouter, Outcome, RouteRequest, Router, select};

/// A labelled set: messages and the tools that should be picked for each.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SelectionSet {
    /// The cases, in file order.
    #[serde(default, rename = "case")]
    pub cases: Vec<SelectionCase>,
}

/// One labelled message.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SelectionCase {
    /// What the user says.
    pub message: String,
    /// The tool or tools that should be picked, or none.
    pub expect: Expected,
    /// Earlier turns of the conversation, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<String>,
}

/// What a case expects. In TOML: `"none"`, one name, or a list of names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// No routed tool fits: the router should abstain.
    Nothing,
    /// Every one of these tools should be picked.
    Tools(Vec<String>),
}

/// What `expect` accepts, in the words its errors use.
const EXPECT_ACCEPTS: &str = "\"none\", a tool's name (\"get_tasks\") or a list of tools' names ([\"get_tasks\", \"create_reminders\"])";

impl<'de> Deserialize<'de> for Expected {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // A visitor of its own rather than an untagged enum: a wrong value is then
        // told what `expect` accepts, not "data did not match any variant".
        struct ExpectedVisitor;

        impl<'de> serde::de::Visitor<'de> for ExpectedVisitor {
            type Value = Expected;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(EXPECT_ACCEPTS)
            }

            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Expected, E> {
                Ok(if name == "none" {
                    Expected::Nothing
                } else {
                    Expected::Tools(vec![name.to_owned()])
                })
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Expected, A::Error> {
                let mut names = Vec::new();
                while let Some(name) = seq.next_element::<ToolName>()? {
                    names.push(name.0);
                }
                if names.is_empty() {
                    return Err(serde::de::Error::custom(
                        "`expect = []` names no tool; write `expect = \"none\"` for a message no tool fits",
                    ));
                }
                Ok(Expected::Tools(names))
            }
        }

        deserializer.deserialize_any(ExpectedVisitor)
    }
}

/// One name in an `expect` list.
struct ToolName(String);

impl<'de> Deserialize<'de> for ToolName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor;

        impl serde::de::Visitor<'_> for NameVisitor {
            type Value = ToolName;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool's name, in quotes")
            }

            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<ToolName, E> {
                Ok(ToolName(name.to_owned()))
            }
        }

        deserializer.deserialize_str(NameVisitor)
    }
}

impl Serialize for Expected {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Expected::Nothing => serializer.serialize_str("none"),
            Expected::Tools(names) => names.serialize(serializer),
        }
    }
}

/// Why a labelled set could not be used.
#[derive(Debug)]
#[non_exhaustive]
pub enum SelectionSetError {
    /// The file could not be read.
    Read {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The text is not a labelled set.
    Parse {
        /// The file, or `<text>`.
        path: String,
        /// Where it went wrong, when TOML says or the text shows it (boxed, as
        /// is `source`: an error is passed around, these are large).
        place: Option<Box<TextPlace>>,
        /// What is wrong, cut to a few hundred characters.
        message: String,
        /// TOML's own error.
        source: Box<toml::de::Error>,
    },
    /// A case expects a tool the router's catalog does not have (renamed,
    /// removed, or sent always and so never routed).
    UnknownTool {
        /// The case's message.
        message: String,
        /// The tool it names.
        tool: String,
    },
}

impl fmt::Display for SelectionSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectionSetError::Read { path, source } => {
                write!(f, "cannot read the labelled set {path}: {source}")
            }
            SelectionSetError::Parse {
                path,
                place,
                message,
                ..
            } => match place {
                Some(place) => {
                    write!(
                        f,
                        "{path} is not a labelled set: line {}, column {}",
                        place.line, place.column
                    )?;
                    if let Some(key) = &place.key {
                        write!(f, ", at `{key}`")?;
                    }
                    write!(
                        f,
                        ": {message}\n  {}\n  {:>width$}",
                        place.excerpt,
                        "^",
                        width = place.caret + 1
                    )
                }
                None => write!(f, "{path} is not a labelled set: {message}"),
            },
            SelectionSetError::UnknownTool { message, tool } => write!(
                f,
                "the case {message:?} expects `{tool}`, which is not in the router's catalog; fix the name, or expect another tool (tools sent always are never routed)"
            ),
        }
    }
}

impl std::error::Error for SelectionSetError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SelectionSetError::Read { source, .. } => Some(source),
            SelectionSetError::Parse { source, .. } => Some(&**source),
            SelectionSetError::UnknownTool { .. } => None,
        }
    }
}

impl SelectionSet {
    /// Parses a labelled set from TOML text.
    pub fn from_toml(text: &str) -> Result<Self, SelectionSetError> {
        parse(text, "<text>".to_owned())
    }

    /// Reads a labelled set from a TOML file.
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<Self, SelectionSetError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| SelectionSetError::Read {
            path: shown.clone(),
            source,
        })?;
        parse(&text, shown)
    }

    /// Checks that every expected tool is in `catalog`: a set naming a tool that
    /// was renamed would otherwise score as a router failure.
    pub fn check_against(&self, catalog: &Catalog) -> Result<(), SelectionSetError> {
        for case in &self.cases {
            if let Expected::Tools(names) = &case.expect
                && let Some(tool) = names.iter().find(|name| catalog.get(name).is_none())
            {
                return Err(SelectionSetError::UnknownTool {
                    message: case.message.clone(),
                    tool: tool.clone(),
                });
            }
        }
        Ok(())
    }
}

/// Where in a labelled set's text an error is, as its message shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextPlace {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1, in characters.
    pub column: usize,
    /// The key the line sets or the table it opens (`expect`, `[[case]]`), cut.
    pub key: Option<String>,
    /// At most [`EXCERPT_CHARS`] characters of the line around the column, with
    /// `…` where it was cut and invisible characters shown as `�`.
    pub excerpt: String,
    /// The position of the column in `excerpt`, in characters from 0.
    pub caret: usize,
}

/// The most characters of a line an error about a labelled set shows.
pub const EXCERPT_CHARS: usize = 200;

/// The most characters of TOML's message (which may quote the text) shown.
const MESSAGE_CHARS: usize = 300;

/// The most characters of a key shown.
const KEY_CHARS: usize = 60;

/// Keys nested this deep are refused by `toml` without a place (its parser's
/// limit); the text is searched for the line that holds one.
const TOML_KEY_DEPTH: usize = 80;

/// A labelled set from `text`, or where and why it is not one.
fn parse(text: &str, path: String) -> Result<SelectionSet, SelectionSetError> {
    toml::from_str(text).map_err(|source| {
        let deep = source.message() == "recursion limit";
        let offset = source
            .span()
            .map(|span| span.start)
            .or_else(|| deep.then(|| deep_key_offset(text)).flatten());
        let message = if deep {
            format!("a key nests deeper than {TOML_KEY_DEPTH} levels")
        } else {
            bounded(source.message(), MESSAGE_CHARS)
        };
        SelectionSetError::Parse {
            path,
            place: offset.map(|offset| Box::new(text_place(text, offset))),
            message,
            source: Box::new(source),
        }
    })
}

/// The place of byte `offset` in `text`.
fn text_place(text: &str, offset: usize) -> TextPlace {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let line_start = text[..offset].rfind('\n').map_or(0, |at| at + 1);
    let line_end = text[offset..]
        .find('\n')
        .map_or(text.len(), |at| offset + at);
    let line = text[line_start..line_end].trim_end_matches('\r');
    let column = text[line_start..offset].chars().count();
    let chars: Vec<char> = line.chars().collect();
    // The window: up to half of it before the column, the rest after.
    let start = column
        .saturating_sub(EXCERPT_CHARS / 2)
        .min(chars.len().saturating_sub(EXCERPT_CHARS));
    let end = (start + EXCERPT_CHARS).min(chars.len());
    let mut excerpt = String::new();
    if start > 0 {
        excerpt.push('…');
    }
    excerpt.extend(chars[start..end].iter().map(|&c| shown(c)));
    if end < chars.len() {
        excerpt.push('…');
    }
    TextPlace {
        line: text[..line_start].matches('\n').count() + 1,
        column: column + 1,
        key: line_key(line),
        excerpt,
        caret: column - start + usize::from(start > 0),
    }
}

/// A character of an excerpt: one column wide, so the caret under it lines up.
fn shown(c: char) -> char {
    if c == '\t' {
        ' '
    } else if crate::echo::is_invisible(c) {
        '\u{fffd}'
    } else {
        c
    }
}

/// The key a TOML line sets (`expect` in `expect = 5`) or the table header it
/// is (`[[case]]`), cut.
fn line_key(line: &str) -> Option<String> {
    let trimmed = line.trim_start();
    let key = if trimmed.starts_with('[') {
        let close = trimmed.rfind(']').map_or(trimmed.len(), |at| at + 1);
        &trimmed[..close]
    } else {
        let equals = outside_quotes(trimmed).find(|&(_, c)| c == '=')?.0;
        trimmed[..equals].trim_end()
    };
    (!key.is_empty()).then(|| bounded(key, KEY_CHARS))
}

/// The characters of `line` outside quoted strings, with their byte offsets.
fn outside_quotes(line: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let mut quote = None;
    let mut escaped = false;
    line.char_indices().filter(move |&(_, c)| match quote {
        Some(open) => {
            if escaped {
                escaped = false;
            } else if c == '\\' && open == '"' {
                escaped = true;
            } else if c == open {
                quote = None;
            }
            false
        }
        None if c == '"' || c == '\'' => {
            quote = Some(c);
            false
        }
        None => true,
    })
}

/// The offset of the first line whose key (before `=`, or a table header)
/// has [`TOML_KEY_DEPTH`] dots or more outside quotes.
fn deep_key_offset(text: &str) -> Option<usize> {
    let mut start = 0;
    for line in text.split('\n') {
        let indent = line.len() - line.trim_start().len();
        let dots = outside_quotes(line)
            .take_while(|&(_, c)| c != '=' && c != '#')
            .filter(|&(_, c)| c == '.')
            .count();
        if dots >= TOML_KEY_DEPTH {
            return Some(start + indent);
        }
        start += line.len() + 1;
    }
    None
}

/// `text` cut to `max` characters (with `…` when cut), invisible characters
/// shown as `�`.
fn bounded(text: &str, max: usize) -> String {
    let mut out: String = text.chars().take(max).map(shown).collect();
    if text.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

/// How often one expected tool was picked instead of another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Confusion {
    /// The tool the case expected (its first, when it expects several).
    pub expected: String,
    /// The tool the router ranked first instead, or `none` when it abstained.
    pub picked: String,
    /// How many messages.
    pub count: usize,
}

/// One tool's figures over the cases that expect it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolRecall {
    /// How many cases expect the tool.
    pub cases: usize,
    /// The share of those where it was in the first k picks.
    pub recall_at_k: f64,
}

/// A case the router got wrong, for the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Miss {
    /// The message.
    pub message: String,
    /// What it expected (`["none"]` for a "none" case).
    pub expected: Vec<String>,
    /// What the router picked, best first (empty when it abstained).
    pub picked: Vec<String>,
    /// Why, when the router can say ([`Router::explain`]): the message's terms
    /// as read, and for the picks and the expected tools, the terms that
    /// matched each and their scores.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<Explanation>,
}

/// The figures of one router over one labelled set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SelectionReport {
    /// The k of recall@k and MRR.
    pub k: usize,
    /// How many cases expect tools.
    pub cases: usize,
    /// How many cases expect none.
    pub none_cases: usize,
    /// Mean share of a case's expected tools that the router ranked first.
    pub recall_at_1: f64,
    /// Mean share of a case's expected tools in the router's first k.
    pub recall_at_k: f64,
    /// Mean 1/rank of the first expected tool within the first k.
    pub mrr: f64,
    /// Share of "none" cases the router abstained on (1 when there are none).
    pub abstention: f64,
    /// Cases that expect tools on which the router abstained.
    pub wrong_abstentions: usize,
    /// Mean number of routed tools sent with a message, over every case: what a
    /// request carries besides the tools sent always (after a router error, the
    /// fallback sends every routed tool).
    pub tools_sent: f64,
    /// (expected, picked first) pairs, most frequent first.
    pub confusions: Vec<Confusion>,
    /// Each expected tool's recall@k, by name.
    pub per_tool: BTreeMap<String, ToolRecall>,
    /// The cases whose expected tools were not all in the first k, and the
    /// "none" cases the router did not abstain on.
    pub misses: Vec<Miss>,
    /// Per case expecting tools, in the set's order: 1/rank of the first
    /// expected tool within the first k, 0 when none is there (their mean is
    /// [`mrr`](Self::mrr)). For comparing two routers case by case
    /// ([`paired_test`](super::paired_test)); not in the JSON.
    #[serde(skip)]
    pub reciprocal_ranks: Vec<f64>,
}

/// The lowest figures a [`SelectionReport`] may show: each `None` is not checked.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Thresholds {
    /// Lowest recall@1.
    pub recall_at_1: Option<f64>,
    /// Lowest recall@k.
    pub recall_at_k: Option<f64>,
    /// Lowest MRR.
    pub mrr: Option<f64>,
    /// Lowest share of "none" cases abstained on.
    pub abstention: Option<f64>,
}

impl Thresholds {
    /// No figure checked; add the ones you want with the builder methods.
    #[must_use]
    pub const fn new() -> Self {
        Thresholds {
            recall_at_1: None,
            recall_at_k: None,
            mrr: None,
            abstention: None,
        }
    }

    /// recall@1 at least `value`, a fraction from 0 to 1 (`0.9` for 90%).
    #[must_use]
    pub fn recall_at_1(mut self, value: impl Fraction) -> Self {
        self.recall_at_1 = Some(value.fraction());
        self
    }

    /// recall@k at least `value`, a fraction from 0 to 1 (`0.9` for 90%).
    #[must_use]
    pub fn recall_at_k(mut self, value: impl Fraction) -> Self {
        self.recall_at_k = Some(value.fraction());
        self
    }

    /// MRR at least `value`, from 0 to 1.
    #[must_use]
    pub fn mrr(mut self, value: impl Fraction) -> Self {
        self.mrr = Some(value.fraction());
        self
    }

    /// Abstention on "none" cases at least `value`, a fraction from 0 to 1 (`0.75`
    /// for 75%).
    #[must_use]
    pub fn abstention(mut self, value: impl Fraction) -> Self {
        self.abstention = Some(value.fraction());
        self
    }
}

/// A threshold's value: a fraction from 0 to 1, written as an `f64` (`0.9` for
/// 90%). A percent written as an integer (`recall_at_1(90)`) does not compile,
/// with a message that says so; one written as a float (`90.0`) fails
/// [`SelectionReport::check`] with a message that says so, never passes nor fails
/// silently.
#[diagnostic::on_unimplemented(
    message = "a selection threshold is a fraction from 0 to 1, like `0.9` for 90%, not `{Self}`",
    label = "write a fraction from 0 to 1, like `0.9` for 90%"
)]
pub trait Fraction {
    /// The value as written.
    fn fraction(self) -> f64;
}

impl Fraction for f64 {
    fn fraction(self) -> f64 {
        self
    }
}

/// The figures that fell under their thresholds, and the report they came from.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectionFailure {
    /// One line per figure under its threshold, like `recall@1 71.4% is under 80.0%`.
    pub failures: Vec<String>,
    /// The whole report (boxed: a failure is passed around, the report is large).
    pub report: Box<SelectionReport>,
}

impl fmt::Display for SelectionFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "tool selection got worse:")?;
        for failure in &self.failures {
            writeln!(f, "  {failure}")?;
        }
        write!(f, "{}", self.report)
    }
}

impl std::error::Error for SelectionFailure {}

fn percent(value: f64) -> String {
    format!("{:.1}%", value * 100.0)
}

impl SelectionReport {
    /// `Ok` when every figure meets its threshold; otherwise each one that does
    /// not, with the report.
    pub fn check(&self, thresholds: &Thresholds) -> Result<(), SelectionFailure> {
        let mut failures = Vec::new();
        let k = self.k;
        let figures = [
            (
                "recall@1".to_owned(),
                self.recall_at_1,
                thresholds.recall_at_1,
                true,
            ),
            (
                format!("recall@{k}"),
                self.recall_at_k,
                thresholds.recall_at_k,
                true,
            ),
            ("MRR".to_owned(), self.mrr, thresholds.mrr, false),
            (
                "abstention".to_owned(),
                self.abstention,
                thresholds.abstention,
                true,
            ),
        ];
        for (name, value, threshold, as_percent) in figures {
            if let Some(threshold) = threshold
                && !(0.0..=1.0).contains(&threshold)
            {
                let meant = if (1.0..=100.0).contains(&threshold) {
                    format!("; write `{}` for {threshold}%", threshold / 100.0)
                } else {
                    String::new()
                };
                failures.push(format!(
                    "the {name} threshold {threshold} is not a fraction from 0 to 1{meant}"
                ));
            } else if let Some(threshold) = threshold
                && value < threshold
            {
                failures.push(if as_percent {
                    format!("{name} {} is under {}", percent(value), percent(threshold))
                } else {
                    format!("{name} {value:.3} is under {threshold:.3}")
                });
            }
        }
        if failures.is_empty() {
            Ok(())
        } else {
            Err(SelectionFailure {
                failures,
                report: Box::new(self.clone()),
            })
        }
    }

    /// The report as pretty JSON, for CI artefacts.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report is plain data")
    }
}

impl fmt::Display for SelectionReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let k = self.k;
        writeln!(
            f,
            "{} cases expecting tools, {} expecting none",
            self.cases, self.none_cases
        )?;
        writeln!(
            f,
            "recall@1 {}  recall@{k} {}  MRR {:.3}  abstention {}  wrong abstentions {}",
            percent(self.recall_at_1),
            percent(self.recall_at_k),
            self.mrr,
            percent(self.abstention),
            self.wrong_abstentions
        )?;
        if !self.confusions.is_empty() {
            writeln!(f, "confused (expected -> picked first):")?;
            for confusion in &self.confusions {
                writeln!(
                    f,
                    "  {} -> {}  x{}",
                    confusion.expected, confusion.picked, confusion.count
                )?;
            }
        }
        let weak: Vec<String> = self
            .per_tool
            .iter()
            .filter(|(_, tool)| tool.recall_at_k < 1.0)
            .map(|(name, tool)| {
                format!(
                    "  {name}: {} of {} cases",
                    percent(tool.recall_at_k),
                    tool.cases
                )
            })
            .collect();
        if !weak.is_empty() {
            writeln!(f, "tools not always in the first {k}:")?;
            for line in weak {
                writeln!(f, "{line}")?;
            }
        }
        if !self.misses.is_empty() {
            writeln!(f, "misses:")?;
            for miss in &self.misses {
                let picked = if miss.picked.is_empty() {
                    "(abstained)".to_owned()
                } else {
                    miss.picked.join(", ")
                };
                writeln!(
                    f,
                    "  {:?}: expected {}, got {picked}",
                    miss.message,
                    miss.expected.join(" + ")
                )?;
                if let Some(why) = &miss.why {
                    for line in why.to_string().lines() {
                        writeln!(f, "    {line}")?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Routes every case of `set` through `router` (at most `k` picks each, through
/// [`select`], so the fallback policy applies) and adds the figures up. A router
/// error counts as a miss (the fallback sends every tool, which is no selection).
pub async fn evaluate<R: Router + ?Sized>(
    router: &R,
    set: &SelectionSet,
    k: usize,
) -> SelectionReport {
    let k = k.max(1);
    let mut report = SelectionReport {
        k,
        cases: 0,
        none_cases: 0,
        recall_at_1: 0.0,
        recall_at_k: 0.0,
        mrr: 0.0,
        abstention: 1.0,
        wrong_abstentions: 0,
        tools_sent: 0.0,
        confusions: Vec::new(),
        per_tool: BTreeMap::new(),
        misses: Vec::new(),
        reciprocal_ranks: Vec::new(),
    };
    let mut abstained_on_none = 0_usize;
    let mut confusions: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut per_tool: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut tools_sent = 0_usize;
    for case in &set.cases {
        let request = RouteRequest::new(&case.message)
            .turns(case.turns.iter().map(String::as_str))
            .limit(k);
        let selection = select(router, &request).await;
        tools_sent += selection.tools.len();
        let picked: Vec<String> = match selection.outcome {
            Outcome::Picked => selection.names().into_iter().map(str::to_owned).collect(),
            Outcome::Abstained | Outcome::FellBack(_) => Vec::new(),
        };
        let abstained = matches!(selection.outcome, Outcome::Abstained);
        match &case.expect {
            Expected::Nothing => {
                report.none_cases += 1;
                if abstained {
                    abstained_on_none += 1;
                } else {
                    report.misses.push(Miss {
                        message: case.message.clone(),
                        expected: vec!["none".to_owned()],
                        picked,
                        why: router.explain(&request, &[]),
                    });
                }
            }
            Expected::Tools(expected) => {
                report.cases += 1;
                if abstained {
                    report.wrong_abstentions += 1;
                }
                #[allow(clippy::cast_precision_loss)] // sets are far below 2^52 cases
                let share = |found: usize| found as f64 / expected.len() as f64;
                let first = picked.first().map(String::as_str);
                report.recall_at_1 += share(usize::from(
                    first.is_some_and(|name| expected.iter().any(|e| e == name)),
                ));
                let found = expected.iter().filter(|name| picked.contains(name)).count();
                report.recall_at_k += share(found);
                let reciprocal_rank = picked
                    .iter()
                    .position(|name| expected.contains(name))
                    .map_or(0.0, |position| {
                        #[allow(clippy::cast_precision_loss)]
                        let rank = (position + 1) as f64;
                        1.0 / rank
                    });
                report.mrr += reciprocal_rank;
                report.reciprocal_ranks.push(reciprocal_rank);
                if !first.is_some_and(|name| expected.iter().any(|e| e == name)) {
                    let key = (expected[0].clone(), first.unwrap_or("none").to_owned());
                    *confusions.entry(key).or_default() += 1;
                }
                for name in expected {
                    let counts = per_tool.entry(name.clone()).or_default();
                    counts.0 += 1;
                    counts.1 += usize::from(picked.contains(name));
                }
                if found < expected.len() {
                    let also: Vec<&str> = expected.iter().map(String::as_str).collect();
                    report.misses.push(Miss {
                        message: case.message.clone(),
                        expected: expected.clone(),
                        picked,
                        why: router.explain(&request, &also),
                    });
                }
            }
        }
    }
    #[allow(clippy::cast_precision_loss)]
    {
        let cases = report.cases.max(1) as f64;
        report.recall_at_1 /= cases;
        report.recall_at_k /= cases;
        report.mrr /= cases;
        report.tools_sent = tools_sent as f64 / set.cases.len().max(1) as f64;
        if report.none_cases > 0 {
            report.abstention = abstained_on_none as f64 / report.none_cases as f64;
        }
        report.per_tool = per_tool
            .into_iter()
            .map(|(name, (cases, found))| {
                (
                    name,
                    ToolRecall {
                        cases,
                        recall_at_k: found as f64 / cases as f64,
                    },
                )
            })
            .collect();
    }
    let mut confusions: Vec<Confusion> = confusions
        .into_iter()
        .map(|((expected, picked), count)| Confusion {
            expected,
            picked,
            count,
        })
        .collect();
    // Most frequent first; ties in name order (the map's), so reports are stable.
    confusions.sort_by_key(|confusion| std::cmp::Reverse(confusion.count));
    report.confusions = confusions;
    report
}

/// [`evaluate`] on this thread, for tests without an async runtime. The
/// built-in [`LexicalRouter`] answers at once; a router that waits on I/O
/// through a runtime's reactor needs that runtime and [`evaluate`].
#[must_use]
pub fn evaluate_blocking<R: Router + ?Sized>(
    router: &R,
    set: &SelectionSet,
    k: usize,
) -> SelectionReport {
    block_on(evaluate(router, set, k))
}

/// Checks `set` against the router's catalog, scores it, and panics with the
/// text report when a figure is under its threshold (or the set names a tool the
/// catalog lacks). The report is returned for more checks or a JSON artefact.
///
/// ```
/// use toolkit::route::{Catalog, CatalogEntry, LexicalRouter};
/// use toolkit::testing::{SelectionSet, Thresholds, assert_selection};
///
/// let router = LexicalRouter::new(Catalog::new([
///     CatalogEntry::new("delete_tasks", "Delete tasks by id."),
///     CatalogEntry::new("get_reminders", "Get reminders, soonest first."),
/// ]));
/// let set = SelectionSet::from_toml(r#"
///     [[case]]
///     message = "get rid of the groceries to-do"
///     expect = "delete_tasks"
///
///     [[case]]
///     message = "what's the weather like"
///     expect = "none"
/// "#).unwrap();
/// let report = assert_selection(&router, &set, 3, Thresholds::new().recall_at_1(1.0).abstention(1.0));
/// assert_eq!(report.cases, 1);
/// ```
#[track_caller]
pub fn assert_selection<R: Router + ?Sized>(
    router: &R,
    set: &SelectionSet,
    k: usize,
    thresholds: Thresholds,
) -> SelectionReport {
    if let Err(error) = set.check_against(router.catalog()) {
        panic!("{error}");
    }
    let report = evaluate_blocking(router, set, k);
    if let Err(failure) = report.check(&thresholds) {
        panic!("{failure}");
    }
    report
}

/// Two tools the router cannot tell apart from their own words.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConfusablePair {
    /// The tool whose words were routed.
    pub tool: String,
    /// The tool that scored as high, or nearly.
    pub other: String,
    /// `other`'s score as a share of `tool`'s (1 or more: ranked at or above it).
    pub ratio: f32,
    /// The text that was routed (the summary, or an `asked_as` message).
    pub query: String,
}

impl fmt::Display for ConfusablePair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` scores {:.0}% of `{}` on {:?}; make their descriptions or example messages differ",
            self.other,
            self.ratio * 100.0,
            self.tool,
            self.query
        )
    }
}

/// Pairs of tools the [`LexicalRouter`] cannot tell apart: for each tool, its
/// summary and each of its `asked_as` messages are routed against the whole
/// catalog, and every other tool scoring at least `margin` of the tool's own
/// score (0.9: within 10%) is listed. A tool should win its own words clearly;
/// when it does not, a message meant for it is a coin toss between the two.
/// Pairs come in catalog order, each pair once, with its closest query.
#[must_use]
pub fn confusable_tools(catalog: &Catalog, margin: f32) -> Vec<ConfusablePair> {
    let router = LexicalRouter::new(catalog.clone());
    let mut pairs: Vec<ConfusablePair> = Vec::new();
    for entry in catalog {
        let queries = std::iter::once(entry.summary.as_str())
            .chain(entry.asked_as.iter().map(String::as_str))
            .filter(|query| !query.trim().is_empty());
        for query in queries {
            let request = RouteRequest::new(query).limit(catalog.len());
            let ranked = router.rank(&request);
            let own = ranked
                .iter()
                .find(|scored| scored.entry.name == entry.name)
                .map_or(0.0, |scored| scored.score);
            for scored in &ranked {
                if scored.entry.name == entry.name {
                    continue;
                }
                let ratio = if own > 0.0 {
                    scored.score / own
                } else {
                    f32::INFINITY
                };
                // One line per pair: the second tool's own words find the
                // first one again.
                if ratio < margin
                    || pairs
                        .iter()
                        .any(|pair| pair.tool == scored.entry.name && pair.other == entry.name)
                {
                    continue;
                }
                match pairs
                    .iter_mut()
                    .find(|pair| pair.tool == entry.name && pair.other == scored.entry.name)
                {
                    Some(pair) if pair.ratio >= ratio => {}
                    Some(pair) => {
                        pair.ratio = ratio;
                        query.clone_into(&mut pair.query);
                    }
                    None => pairs.push(ConfusablePair {
                        tool: entry.name.clone(),
                        other: scored.entry.name.clone(),
                        ratio,
                        query: query.to_owned(),
                    }),
                }
            }
        }
    }
    pairs
}

/// Panics listing every pair [`confusable_tools`] finds at `margin`.
#[track_caller]
pub fn assert_no_confusable_tools(catalog: &Catalog, margin: f32) {
    let pairs = confusable_tools(catalog, margin);
    if !pairs.is_empty() {
        let mut text = format!(
            "{} pairs of tools the router cannot tell apart:\n",
            pairs.len()
        );
        for pair in &pairs {
            let _ = writeln!(text, "  {pair}");
        }
        panic!("{text}");
    }
}

/// Runs a future to completion on this thread, parking between polls.
fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut context = TaskContext::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        thread::park();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::CatalogEntry;

    fn router() -> LexicalRouter {
        LexicalRouter::new(Catalog::new([
            CatalogEntry::new("get_tasks", "Get the open tasks, newest first."),
            CatalogEntry::new("delete_tasks", "Delete tasks by id."),
            CatalogEntry::new("get_reminders", "Get reminders, soonest first."),
            CatalogEntry::new("create_reminders", "Create a reminder at a time."),
        ]))
    }

    const SET: &str = r#"
        [[case]]
        message = "get rid of the groceries to-do"
        expect = "delete_tasks"

        [[case]]
        message = "remind me at six to call mum"
        expect = ["create_reminders"]

        [[case]]
        message = "what reminders do I have and which tasks are open"
        expect = ["get_reminders", "get_tasks"]

        [[case]]
        message = "show me my tasks"
        expect = "get_reminders"

        [[case]]
        message = "what's the weather like"
        expect = "none"

        [[case]]
        message = "get rid of it"
        turns = ["remind me to water the plants"]
        expect = "none"
    "#;

    #[test]
    fn the_toml_reads_one_name_a_list_or_none() {
        let set = SelectionSet::from_toml(SET).unwrap();
        assert_eq!(set.cases.len(), 6);
        assert_eq!(
            set.cases[0].expect,
            Expected::Tools(vec!["delete_tasks".into()])
        );
        assert_eq!(set.cases[4].expect, Expected::Nothing);
        assert_eq!(set.cases[5].turns, ["remind me to water the plants"]);
        let error =
            SelectionSet::from_toml("[[case]]\nmessage = \"hi\"\nexpect = []\n").unwrap_err();
        assert_eq!(
            error.to_string(),
            "<text> is not a labelled set: line 3, column 10, at `expect`: `expect = []` names no tool; write `expect = \"none\"` for a message no tool fits\n  expect = []\n           ^"
        );
        let error = SelectionSet::from_toml("[[case]]\nmessage = \"hi\"\nexpected = \"none\"\n")
            .unwrap_err();
        assert!(
            error.to_string().contains("unknown field `expected`"),
            "{error}"
        );
    }

    /// A wrong `expect` is told what `expect` accepts, at its key and line.
    #[test]
    fn a_wrong_expect_names_its_key_line_and_the_values_accepted() {
        let error =
            SelectionSet::from_toml("[[case]]\nmessage = \"hi\"\nexpect = 5\n").unwrap_err();
        assert_eq!(
            error.to_string(),
            "<text> is not a labelled set: line 3, column 10, at `expect`: invalid type: integer `5`, \
             expected \"none\", a tool's name (\"get_tasks\") or a list of tools' names \
             ([\"get_tasks\", \"create_reminders\"])\n  expect = 5\n           ^"
        );
        let error = SelectionSet::from_toml(
            "[[case]]\nmessage = \"hi\"\nexpect = { tool = \"get_tasks\" }\n",
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "<text> is not a labelled set: line 3, column 10, at `expect`: invalid type: map, \
             expected \"none\", a tool's name (\"get_tasks\") or a list of tools' names \
             ([\"get_tasks\", \"create_reminders\"])\n  expect = { tool = \"get_tasks\" }\n           ^"
        );
        let error =
            SelectionSet::from_toml("[[case]]\nmessage = \"hi\"\nexpect = [\"get_tasks\", 2]\n")
                .unwrap_err();
        assert_eq!(
            error.to_string(),
            "<text> is not a labelled set: line 3, column 24, at `expect`: invalid type: integer `2`, \
             expected a tool's name, in quotes\n  expect = [\"get_tasks\", 2]\n                         ^"
        );
    }

    /// Keys nested past TOML's limit are named with their line, not only
    /// "recursion limit".
    #[test]
    fn a_key_nested_too_deep_is_told_with_its_line() {
        let deep = format!(
            "[[case]]\nmessage = \"hi\"\nexpect = \"none\"\n  {}b = 1\n",
            "a.".repeat(100)
        );
        let error = SelectionSet::from_toml(&deep).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "<text> is not a labelled set: line 4, column 3, at `{}…`: a key nests deeper \
                 than 80 levels\n    {}…\n    ^",
                "a.".repeat(30),
                "a.".repeat(99)
            )
        );
    }

    /// An error on a very long line shows a bounded excerpt around the column,
    /// not the whole line.
    #[test]
    fn an_error_on_a_long_line_shows_a_bounded_excerpt() {
        let long = format!(
            "[[case]]\nmessage = \"{}\\q{}\"\nexpect = \"none\"\n",
            "x".repeat(300_000),
            "y".repeat(300_000)
        );
        let error = SelectionSet::from_toml(&long).unwrap_err();
        let shown = error.to_string();
        assert!(shown.len() < 1_000, "{} bytes", shown.len());
        let SelectionSetError::Parse {
            place: Some(place), ..
        } = &error
        else {
            panic!("{error:?}")
        };
        assert_eq!(place.line, 2);
        // The column of the `q` that makes `\q` no escape.
        assert_eq!(place.column, 300_013);
        assert_eq!(place.key.as_deref(), Some("message"));
        assert_eq!(place.excerpt.chars().count(), EXCERPT_CHARS + 2);
        assert_eq!(
            place.excerpt,
            format!("…{}\\q{}…", "x".repeat(99), "y".repeat(99))
        );
        assert_eq!(place.caret, 101);
        assert_eq!(
            shown,
            format!(
                "<text> is not a labelled set: line 2, column 300013, at `message`: missing escaped value, expected \
                 `b`, `e`, `f`, `n`, `r`, `\\`, `\"`, `x`, `u`, `U`\n  {}\n  {}^",
                place.excerpt,
                " ".repeat(101)
            )
        );
    }

    #[test]
    fn a_set_naming_a_tool_outside_the_catalog_is_refused() {
        let set =
            SelectionSet::from_toml("[[case]]\nmessage = \"hi\"\nexpect = \"get_task\"\n").unwrap();
        assert_eq!(
            set.check_against(router().catalog())
                .unwrap_err()
                .to_string(),
            "the case \"hi\" expects `get_task`, which is not in the router's catalog; fix the name, or expect another tool (tools sent always are never routed)"
        );
    }

    #[test]
    fn the_report_counts_recall_mrr_abstention_and_confusions() {
        let set = SelectionSet::from_toml(SET).unwrap();
        let report = evaluate_blocking(&router(), &set, 3);
        assert_eq!(
            report.to_string(),
            "4 cases expecting tools, 2 expecting none\n\
             recall@1 37.5%  recall@3 75.0%  MRR 0.625  abstention 50.0%  wrong abstentions 0\n\
             confused (expected -> picked first):\n  \
             create_reminders -> get_reminders  x1\n  \
             get_reminders -> get_tasks  x1\n\
             tools not always in the first 3:\n  \
             get_reminders: 50.0% of 2 cases\n\
             misses:\n  \
             \"show me my tasks\": expected get_reminders, got get_tasks, delete_tasks\n    \
             read: @get 1.00, show 1.00, task 1.00, #task 0.80, @search 0.30\n    \
             #1 get_tasks 1.56: @get +0.57, task +0.55, #task +0.44\n    \
             #2 delete_tasks 1.02: task +0.57, #task +0.45\n    \
             not picked get_reminders 0.56: @get +0.56\n  \
             \"get rid of it\": expected none, got delete_tasks, get_reminders, create_reminders\n    \
             read: @delete 1.00, delet 1.00, remind 0.40, water 0.40, plant 0.40, #reminder 0.32\n    \
             #1 delete_tasks 1.97: @delete +0.99, delet +0.99\n    \
             #2 get_reminders 0.40: remind +0.22, #reminder +0.18\n    \
             #3 create_reminders 0.40: remind +0.22, #reminder +0.18\n"
        );
        let mut json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        // Why each miss happened: the expected tool that was not picked is
        // explained beside the picks (its words and scores are in the text above).
        let why = &json["misses"][0]["why"]["entries"];
        assert_eq!(
            (why[2]["name"].clone(), why[2]["rank"].clone()),
            (serde_json::json!("get_reminders"), serde_json::Value::Null)
        );
        for miss in json["misses"].as_array_mut().unwrap() {
            miss.as_object_mut().unwrap().remove("why");
        }
        assert_eq!(
            json,
            serde_json::json!({
                "k": 3, "cases": 4, "none_cases": 2,
                "recall_at_1": 0.375, "recall_at_k": 0.75, "mrr": 0.625,
                "abstention": 0.5, "wrong_abstentions": 0, "tools_sent": 2.0,
                "confusions": [
                    {"expected": "create_reminders", "picked": "get_reminders", "count": 1},
                    {"expected": "get_reminders", "picked": "get_tasks", "count": 1}
                ],
                "per_tool": {
                    "create_reminders": {"cases": 1, "recall_at_k": 1.0},
                    "delete_tasks": {"cases": 1, "recall_at_k": 1.0},
                    "get_reminders": {"cases": 2, "recall_at_k": 0.5},
                    "get_tasks": {"cases": 1, "recall_at_k": 1.0}
                },
                "misses": [
                    {"message": "show me my tasks", "expected": ["get_reminders"], "picked": ["get_tasks", "delete_tasks"]},
                    {"message": "get rid of it", "expected": ["none"], "picked": ["delete_tasks", "get_reminders", "create_reminders"]}
                ]
            })
        );
    }

    #[test]
    fn thresholds_fail_with_each_figure_and_the_report() {
        let set = SelectionSet::from_toml(SET).unwrap();
        let report = evaluate_blocking(&router(), &set, 3);
        let failure = report
            .check(
                &Thresholds::new()
                    .recall_at_1(0.9)
                    .recall_at_k(0.5)
                    .mrr(0.99)
                    .abstention(1.0),
            )
            .unwrap_err();
        assert_eq!(
            failure.failures,
            [
                "recall@1 37.5% is under 90.0%",
                "MRR 0.625 is under 0.990",
                "abstention 50.0% is under 100.0%"
            ]
        );
        assert!(failure.to_string().starts_with(
            "tool selection got worse:\n  recall@1 37.5% is under 90.0%\n  MRR 0.625 is under 0.990\n  abstention 50.0% is under 100.0%\n4 cases expecting tools"
        ));
        assert!(report.check(&Thresholds::new().recall_at_k(0.5)).is_ok());
    }

    #[test]
    fn a_threshold_written_as_a_percent_fails_with_the_fraction_it_meant() {
        let set = SelectionSet::from_toml(SET).unwrap();
        let report = evaluate_blocking(&router(), &set, 3);
        let failure = report
            .check(
                &Thresholds::new()
                    .recall_at_1(90.0)
                    .mrr(-0.5)
                    .recall_at_k(0.5),
            )
            .unwrap_err();
        assert_eq!(
            failure.failures,
            [
                "the recall@1 threshold 90 is not a fraction from 0 to 1; write `0.9` for 90%",
                "the MRR threshold -0.5 is not a fraction from 0 to 1"
            ]
        );
        // Even a report that would meet 0.9 fails on 90.0: the slip never passes.
        let perfect = SelectionReport {
            recall_at_1: 1.0,
            ..report.clone()
        };
        assert!(perfect.check(&Thresholds::new().recall_at_1(90.0)).is_err());
        assert!(perfect.check(&Thresholds::new().recall_at_1(0.9)).is_ok());
    }

    #[test]
    fn confusable_tools_are_those_that_win_another_tools_words() {
        let catalog = Catalog::new([
            CatalogEntry::new("get_notes", "Get the notes of the day."),
            CatalogEntry::new("get_day_notes", "Get the notes of the day."),
            CatalogEntry::new("search_notes", "Search the notes of the day."),
            CatalogEntry::new("delete_tasks", "Delete tasks by id."),
        ]);
        let pairs = confusable_tools(&catalog, 0.9);
        let lines: Vec<String> = pairs.iter().map(ToString::to_string).collect();
        // Same words, same verb: only the name's extra word tells them apart, and
        // not by enough. `search_notes` differs by its verb, which the router reads.
        assert_eq!(
            lines,
            [
                "`get_day_notes` scores 103% of `get_notes` on \"Get the notes of the day.\"; make their descriptions or example messages differ"
            ]
        );
    }
}

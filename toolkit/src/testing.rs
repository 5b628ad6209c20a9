//! Helpers for your test suite: check the registry against a fixture of expected
//! tool names, in both directions, with a readable diff; score which tools a
//! router picks against a labelled set of messages (selection evals, see
//! [`assert_selection`]); and an approval store that is down
//! ([`DownApprovalStore`]), to show what a caller reads when the database is.
//!
//! ```
//! use toolkit::route::{Catalog, CatalogEntry, LexicalRouter, Router};
//! use toolkit::testing::{SelectionSet, Thresholds, assert_selection, confusable_tools};
//!
//! // In an application: LexicalRouter::new(view.catalog()).
//! let router = LexicalRouter::new(Catalog::new([
//!     CatalogEntry::new("delete_tasks", "Delete tasks by id."),
//!     CatalogEntry::new("get_reminders", "Get reminders, soonest first."),
//! ]));
//! let set = SelectionSet::from_toml(r#"
//!     [[case]]
//!     message = "get rid of the groceries to-do"
//!     expect = "delete_tasks"
//!
//!     [[case]]
//!     message = "what's the weather like"
//!     expect = "none"
//! "#).unwrap();
//! // Panics with the text report when a figure drops under its threshold, or when
//! // the set names a tool the catalog lacks (renamed, or sent `always`).
//! let report = assert_selection(
//!     &router,
//!     &set,
//!     5,
//!     Thresholds::new().recall_at_1(0.9).recall_at_k(1.0).mrr(0.9).abstention(1.0),
//! );
//! println!("{report}");            // the text report, for test output
//! let _json = report.to_json();    // the same figures for CI
//! assert!(confusable_tools(router.catalog(), 0.9).is_empty());
//! ```

use std::collections::BTreeSet;
use std::fmt;

mod compare;
mod down;
mod paired;
mod selection;

#[cfg(feature = "embeddings")]
pub use compare::compare_selection_with_embeddings;
pub use compare::{
    SelectionComparison, compare_selection, selection_command, selection_command_main,
};
pub use down::DownApprovalStore;
pub use paired::{BOOTSTRAP_RESAMPLES, PairedTest, PairedTestError, paired_test};
pub use selection::{
    ConfusablePair, Confusion, EXCERPT_CHARS, Expected, Fraction, Miss, SelectionCase,
    SelectionFailure, SelectionReport, SelectionSet, SelectionSetError, TextPlace, Thresholds,
    ToolRecall, assert_no_confusable_tools, assert_selection, confusable_tools, evaluate,
    evaluate_blocking,
};

/// The difference between the tools a registry has and the tools a fixture
/// expects.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FixtureDiff {
    /// Expected by the fixture but not registered (a tool lost or renamed).
    pub missing: Vec<String>,
    /// Registered but not in the fixture (a new tool, or a ghost).
    pub unexpected: Vec<String>,
}

impl FixtureDiff {
    /// Whether registry and fixture agree.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.missing.is_empty() && self.unexpected.is_empty()
    }
}

impl fmt::Display for FixtureDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("the tools match the fixture");
        }
        writeln!(f, "the tools do not match the fixture:")?;
        for name in &self.missing {
            writeln!(f, "- {name}    (in the fixture, not registered)")?;
        }
        for name in &self.unexpected {
            writeln!(f, "+ {name}    (registered, not in the fixture)")?;
        }
        write!(
            f,
            "update the fixture if the change is intended, or restore the tools"
        )
    }
}

impl std::error::Error for FixtureDiff {}

/// Parses a fixture: one tool name per line; blank lines and `#` comments ignored.
#[must_use]
pub fn parse_fixture(text: &str) -> Vec<&str> {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter(|line| !line.is_empty())
        .collect()
}

/// Compares tool names with the expected names, both ways.
pub fn compare<'a, 'b>(
    actual: impl IntoIterator<Item = &'a str>,
    expected: impl IntoIterator<Item = &'b str>,
) -> Result<(), FixtureDiff> {
    let actual: BTreeSet<&str> = actual.into_iter().collect();
    let expected: BTreeSet<&str> = expected.into_iter().collect();
    let diff = FixtureDiff {
        missing: expected
            .difference(&actual)
            .map(|name| (*name).to_owned())
            .collect(),
        unexpected: actual
            .difference(&expected)
            .map(|name| (*name).to_owned())
            .collect(),
    };
    if diff.is_empty() { Ok(()) } else { Err(diff) }
}

/// Panics with a readable diff unless `registry` holds exactly the tools the
/// fixture text lists.
///
/// ```
/// # fn main() {
/// let registry = toolkit::Registry::new([]).unwrap();
/// toolkit::testing::assert_tools_match(&registry, "# no tools yet\n");
/// # }
/// ```
#[track_caller]
pub fn assert_tools_match(registry: &crate::registry::Registry, fixture: &str) {
    if let Err(diff) = compare(
        registry.iter().map(|tool| tool.name),
        parse_fixture(fixture),
    ) {
        panic!("{diff}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_both_directions() {
        let diff = compare(
            ["get_tasks", "email_digest"],
            parse_fixture("get_tasks\ncreate_tasks # new\n\n"),
        )
        .unwrap_err();
        assert_eq!(diff.missing, ["create_tasks"]);
        assert_eq!(diff.unexpected, ["email_digest"]);
        assert_eq!(
            diff.to_string(),
            "the tools do not match the fixture:\n\
             - create_tasks    (in the fixture, not registered)\n\
             + email_digest    (registered, not in the fixture)\n\
             update the fixture if the change is intended, or restore the tools"
        );
    }

    #[test]
    fn agrees_when_equal() {
        assert_eq!(compare(["a_b"], ["a_b"]), Ok(()));
    }
}

//! Whether one router beats another by more than the noise of a small set: a
//! paired comparison of their per-case reciprocal ranks
//! ([`SelectionReport::reciprocal_ranks`]) over the same cases.
//!
//! Two tests, both over the per-case differences `b - a`:
//! - a **paired bootstrap** of the mean difference (10,000 resamples of the
//!   cases with replacement, a fixed seed so a report never changes between
//!   runs): the 95% percentile interval. An interval that excludes 0 says the
//!   difference is more than the luck of which cases the set holds.
//! - the exact two-sided **sign test** over the cases where the two differ
//!   (ties dropped): how likely this many wins and losses are if either router
//!   were as likely to win a case.

use std::fmt;

use serde::Serialize;

use super::selection::SelectionReport;

/// How many resamples the bootstrap draws.
pub const BOOTSTRAP_RESAMPLES: usize = 10_000;

/// The paired comparison of two reports over the same cases: the second
/// (`b`) against the first (`a`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairedTest {
    /// How many cases were compared.
    pub cases: usize,
    /// Cases where `b` ranked the first expected tool higher than `a`.
    pub wins: usize,
    /// Cases where `b` ranked it lower.
    pub losses: usize,
    /// Cases where both ranked it alike (or neither found it).
    pub ties: usize,
    /// The mean of `b`'s reciprocal rank minus `a`'s: `b`'s MRR minus `a`'s.
    pub mean_difference: f64,
    /// The paired bootstrap's 95% percentile interval of the mean difference.
    pub interval: (f64, f64),
    /// The exact two-sided sign test's p-value over the cases that differ (1
    /// when none does).
    pub sign_test_p: f64,
}

/// Why two reports cannot be compared case by case.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the reports cover different cases: {a} and {b} cases expecting tools")]
pub struct PairedTestError {
    /// The first report's cases.
    pub a: usize,
    /// The second's.
    pub b: usize,
}

impl PairedTest {
    /// Whether the bootstrap interval excludes 0: `b` is better (or worse, by
    /// the sign of [`mean_difference`](Self::mean_difference)) by more than
    /// the noise.
    #[must_use]
    pub fn significant(&self) -> bool {
        self.interval.0 > 0.0 || self.interval.1 < 0.0
    }
}

impl fmt::Display for PairedTest {
    /// `MRR +0.052 (95% CI -0.010..+0.114), better on 18, worse on 13, tied on
    /// 32 of 63; sign test p = 0.473`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MRR {:+.3} (95% CI {:+.3}..{:+.3}), better on {}, worse on {}, tied on {} of {}; sign test p = {:.3}",
            self.mean_difference,
            self.interval.0,
            self.interval.1,
            self.wins,
            self.losses,
            self.ties,
            self.cases,
            self.sign_test_p
        )
    }
}

/// Compares `b` with `a` case by case (see the module). Both must come from the
/// same set (the same cases in the same order); the work is proportional to the
/// cases times [`BOOTSTRAP_RESAMPLES`].
///
/// ```
/// use toolkit::route::{Catalog, CatalogEntry, LexicalRouter, PlainBm25};
/// use toolkit::testing::{SelectionSet, evaluate_blocking, paired_test};
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
/// let bm25 = evaluate_blocking(&PlainBm25::new(catalog.clone()), &set, 5);
/// let router = evaluate_blocking(&LexicalRouter::new(catalog), &set, 5);
/// let test = paired_test(&bm25, &router).unwrap();
/// assert_eq!((test.wins, test.losses, test.ties), (1, 0, 0));
/// // One case is no evidence: the sign test's p is 1.
/// assert_eq!(test.sign_test_p, 1.0);
/// ```
pub fn paired_test(
    a: &SelectionReport,
    b: &SelectionReport,
) -> Result<PairedTest, PairedTestError> {
    let (a, b) = (&a.reciprocal_ranks, &b.reciprocal_ranks);
    if a.len() != b.len() {
        return Err(PairedTestError {
            a: a.len(),
            b: b.len(),
        });
    }
    let differences: Vec<f64> = a.iter().zip(b).map(|(a, b)| b - a).collect();
    let wins = differences.iter().filter(|d| **d > 0.0).count();
    let losses = differences.iter().filter(|d| **d < 0.0).count();
    Ok(PairedTest {
        cases: differences.len(),
        wins,
        losses,
        ties: differences.len() - wins - losses,
        mean_difference: mean(&differences),
        interval: bootstrap_interval(&differences),
        sign_test_p: sign_test(wins, losses),
    })
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    #[allow(clippy::cast_precision_loss)] // sets are far below 2^52 cases
    let count = values.len() as f64;
    values.iter().sum::<f64>() / count
}

/// The 2.5th and 97.5th percentiles of the means of [`BOOTSTRAP_RESAMPLES`]
/// resamples (`SplitMix64` from a fixed seed).
fn bootstrap_interval(differences: &[f64]) -> (f64, f64) {
    if differences.is_empty() {
        return (0.0, 0.0);
    }
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let count = differences.len() as u64;
    let mut means: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
        .map(|_| {
            let sum: f64 = (0..differences.len())
                .map(|_| {
                    // The modulo's bias is below count / 2^64: nothing at these sizes.
                    let at = usize::try_from(next() % count).unwrap_or(0);
                    differences[at]
                })
                .sum();
            #[allow(clippy::cast_precision_loss)]
            let mean = sum / differences.len() as f64;
            mean
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let at = |share: f64| {
        #[allow(
            clippy::cast_precision_loss,
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss
        )]
        let index = ((means.len() - 1) as f64 * share).round() as usize;
        means[index.min(means.len() - 1)]
    };
    (at(0.025), at(0.975))
}

/// The exact two-sided sign test: twice the binomial(n, 1/2) probability of at
/// most `min(wins, losses)` successes, at most 1; summed in logarithms so a set
/// of thousands of cases does not underflow.
fn sign_test(wins: usize, losses: usize) -> f64 {
    let n = wins + losses;
    if n == 0 {
        return 1.0;
    }
    let fewer = wins.min(losses);
    #[allow(clippy::cast_precision_loss)]
    let n_f = n as f64;
    // ln C(n, i) - n ln 2, from i = 0 upwards.
    let mut log_term = -n_f * std::f64::consts::LN_2;
    let mut terms = Vec::with_capacity(fewer + 1);
    for i in 0..=fewer {
        terms.push(log_term);
        #[allow(clippy::cast_precision_loss)]
        let (i_f, next) = (i as f64, (i + 1) as f64);
        log_term += (n_f - i_f).ln() - next.ln();
    }
    let largest = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let tail = largest.exp() * terms.iter().map(|term| (term - largest).exp()).sum::<f64>();
    (2.0 * tail).min(1.0)
}

#[cfg(test)]
#[allow(clippy::float_cmp)] // p = 1 is exact: the tail is capped at 1.0
mod tests {
    use super::*;

    fn report(reciprocal_ranks: Vec<f64>) -> SelectionReport {
        SelectionReport {
            k: 5,
            cases: reciprocal_ranks.len(),
            none_cases: 0,
            recall_at_1: 0.0,
            recall_at_k: 0.0,
            mrr: 0.0,
            abstention: 1.0,
            wrong_abstentions: 0,
            tools_sent: 0.0,
            confusions: Vec::new(),
            per_tool: std::collections::BTreeMap::new(),
            misses: Vec::new(),
            reciprocal_ranks,
        }
    }

    #[test]
    fn the_sign_test_is_the_exact_binomial_tail() {
        // 9 wins, 1 loss: 2 * (1 + 10) / 1024.
        assert!((sign_test(9, 1) - 22.0 / 1024.0).abs() < 1e-12);
        assert!((sign_test(1, 9) - 22.0 / 1024.0).abs() < 1e-12);
        assert_eq!(sign_test(5, 5), 1.0);
        assert_eq!(sign_test(0, 0), 1.0);
        // 2,000 cases do not underflow: 1,000 to 1,000 is no evidence, 1,200
        // to 800 is a great deal.
        assert_eq!(sign_test(1000, 1000), 1.0);
        let p = sign_test(1200, 800);
        assert!(p > 0.0 && p < 1e-15, "{p}");
    }

    #[test]
    fn a_difference_on_every_case_is_significant_and_one_case_is_not() {
        let a = report(vec![0.5; 40]);
        let b = report(vec![1.0; 40]);
        let test = paired_test(&a, &b).unwrap();
        assert_eq!((test.wins, test.losses, test.ties), (40, 0, 0));
        assert!((test.mean_difference - 0.5).abs() < 1e-12);
        assert_eq!(test.interval, (0.5, 0.5));
        assert!(test.significant());
        assert!(test.sign_test_p < 1e-11);

        let mut one = vec![0.5; 40];
        one[7] = 1.0;
        let test = paired_test(&a, &report(one)).unwrap();
        assert_eq!((test.wins, test.losses, test.ties), (1, 0, 39));
        assert!(test.interval.0 <= 0.0, "{test}");
        assert!(!test.significant());
        assert_eq!(test.sign_test_p, 1.0);
    }

    #[test]
    fn the_interval_brackets_the_mean_and_is_the_same_every_run() {
        let a = report(
            (0..60)
                .map(|i| if i % 3 == 0 { 1.0 } else { 0.2 })
                .collect(),
        );
        let b = report(
            (0..60)
                .map(|i| if i % 2 == 0 { 1.0 } else { 0.25 })
                .collect(),
        );
        let test = paired_test(&a, &b).unwrap();
        // Per six cases: one tie (both 1), two where b finds it first instead
        // of fifth, two where b ranks it fourth instead of fifth, one loss.
        assert_eq!((test.wins, test.losses, test.ties), (40, 10, 10));
        assert!((test.mean_difference - 9.5 / 60.0).abs() < 1e-12);
        assert!(test.interval.0 < test.mean_difference && test.mean_difference < test.interval.1);
        assert!(test.significant(), "{test}");
        assert_eq!(paired_test(&a, &b).unwrap(), test);
        let shown = test.to_string();
        assert!(shown.starts_with("MRR +0.158 (95% CI +0."), "{shown}");
        assert!(
            shown.ends_with("better on 40, worse on 10, tied on 10 of 60; sign test p = 0.000"),
            "{shown}"
        );
    }

    #[test]
    fn reports_of_different_sets_are_refused() {
        let error = paired_test(&report(vec![1.0; 3]), &report(vec![1.0; 4])).unwrap_err();
        assert_eq!(error, PairedTestError { a: 3, b: 4 });
        assert_eq!(
            error.to_string(),
            "the reports cover different cases: 3 and 4 cases expecting tools"
        );
    }
}

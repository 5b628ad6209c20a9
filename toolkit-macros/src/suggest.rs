//! "Did you mean" suggestions for misspelled words.

/// The expected word closest to `input`, if close enough to be a typo.
pub(crate) fn closest<'a>(input: &str, expected: &[&'a str]) -> Option<&'a str> {
    expected
        .iter()
        .map(|&candidate| (strsim::jaro_winkler(input, candidate), candidate))
        .filter(|&(score, _)| score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

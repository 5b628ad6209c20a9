//! "Did you mean" suggestions.

/// The candidate closest to `input`, if it is close enough to be a likely typo or
/// a near-synonym spelling.
pub(crate) fn closest<'a>(
    input: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .filter(|&candidate| candidate != input)
        .map(|candidate| {
            (
                strsim::normalized_damerau_levenshtein(input, candidate),
                candidate,
            )
        })
        .filter(|&(score, _)| score >= 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)))
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn suggests_close_names_only() {
        let names = ["get_tasks", "create_tasks", "get_reminders"];
        assert_eq!(closest("get_task", names.into_iter()), Some("get_tasks"));
        assert_eq!(
            closest("creat_tasks", names.into_iter()),
            Some("create_tasks")
        );
        assert_eq!(closest("launch_rockets", names.into_iter()), None);
        assert_eq!(closest("list_task", ["list_entities"].into_iter()), None);
    }
}

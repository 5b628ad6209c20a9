//! "Did you mean" suggestions, bounded by input size: a name far longer
//! than every candidate, or with characters no tool name has, is not compared at
//! all, so an unknown name costs microseconds whatever its length.

/// How many characters longer than the longest candidate a name may be and still
/// be compared.
const LENGTH_MARGIN: usize = 8;

/// The candidate closest to `input`, if it is close enough to be a likely typo or
/// a near-synonym spelling. A case-only or whitespace-only difference (`GET_TASKS`,
/// `get_tasks `) always finds its tool; the call itself stays exact.
pub(crate) fn closest<'a>(
    input: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let candidates: Vec<&'a str> = candidates.collect();
    let longest = candidates.iter().map(|name| name.len()).max().unwrap_or(0);
    // Bounded before anything walks the whole input.
    if input.len() > 4 * (longest + LENGTH_MARGIN) {
        return None;
    }
    let trimmed = input.trim();
    if trimmed.len() > longest + LENGTH_MARGIN {
        return None;
    }
    if let Some(same) = candidates
        .iter()
        .find(|&&candidate| candidate != input && candidate.eq_ignore_ascii_case(trimmed))
    {
        return Some(same);
    }
    if !trimmed
        .bytes()
        .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.'))
    {
        return None;
    }
    let lowered = trimmed.to_ascii_lowercase();
    candidates
        .into_iter()
        .filter(|&candidate| candidate != input)
        .map(|candidate| {
            (
                strsim::normalized_damerau_levenshtein(&lowered, &candidate.to_ascii_lowercase()),
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

    #[test]
    fn case_and_whitespace_variants_find_their_tool() {
        let names = ["get_tasks", "create_tasks"];
        assert_eq!(closest("GET_TASKS", names.into_iter()), Some("get_tasks"));
        assert_eq!(closest("get_tasks ", names.into_iter()), Some("get_tasks"));
        assert_eq!(
            closest("\tGet_Tasks\n", names.into_iter()),
            Some("get_tasks")
        );
        assert_eq!(closest("get_tasks", names.into_iter()), None);
    }

    #[test]
    fn long_or_odd_names_are_not_compared() {
        let names = ["get_tasks"];
        // Within the margin, still compared.
        assert_eq!(closest("get_tasks_x", names.into_iter()), Some("get_tasks"));
        // One typo, but far too long: no search at all.
        let long = format!("get_tasks{}", "s".repeat(9));
        assert_eq!(closest(&long, names.into_iter()), None);
        let huge = "g".repeat(10_000_000);
        let started = std::time::Instant::now();
        assert_eq!(closest(&huge, names.into_iter()), None);
        // Characters no tool name has: no search either.
        assert_eq!(closest("get_task\u{200b}", names.into_iter()), None);
        assert_eq!(closest("get task", names.into_iter()), None);
        let _ = started;
    }
}

//! How many single-character insertions, deletions and substitutions turn one text into
//! another (Levenshtein), for "did you mean" suggestions.

/// The edit distance between `a` and `b`, by characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

/// The candidate closest to `given` (ignoring case) when it is close enough to be a typo:
/// one edit for short names, one more for every six characters. An exact match (bar case)
/// is not a suggestion; ties go to the first candidate.
pub fn closest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = given.to_lowercase();
    let allowed = 1 + lower.chars().count() / 6;
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(&lower, &candidate.to_lowercase()), candidate))
        .filter(|(distance, _)| (1..=allowed).contains(distance))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::{closest, edit_distance};

    #[test]
    fn closest_suggests_only_near_misses() {
        assert_eq!(closest("Dmo", ["Demo", "Staging"]), Some("Demo"));
        assert_eq!(
            closest("workspce", ["item", "workspace"]),
            Some("workspace")
        );
        assert_eq!(closest("Sales", ["Demo"]), None);
        assert_eq!(closest("demo", ["Demo"]), None);
    }

    #[test]
    fn counts_single_character_edits() {
        assert_eq!(edit_distance("Notebok", "Notebook"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
